/**
 * CORS on the /mcp endpoint, for browser clients on an allowed origin (the Host/Origin step has
 * already refused the others): the origin is reflected, and the session id and the authorization
 * challenge are readable. The policies themselves are applied by `web/cors.ts`.
 */
import { type CorsPolicy, preflight, readableBy } from "../web/cors.ts";
import type { Middleware } from "./middleware.ts";

export const MCP_CORS: CorsPolicy = {
  methods: "GET, POST, DELETE, OPTIONS",
  headers:
    "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
  expose: "mcp-session-id, www-authenticate",
};

/** The /mcp step: preflights answered here, and every response made readable by the requesting origin. */
export function cors(): Middleware {
  return (exchange, next) => {
    const origin = exchange.request.headers.get("origin");
    if (exchange.request.method === "OPTIONS") return preflight(MCP_CORS, origin ?? "*");
    // Without an Origin (every non-browser client) there is nothing to add: no wait for the answer.
    if (!origin) return next();
    return readableFrom(next(), origin);
  };
}

async function readableFrom(answer: Response | Promise<Response>, origin: string): Promise<Response> {
  const response = await answer;
  for (const [name, value] of Object.entries(readableBy(MCP_CORS, origin))) {
    if (name === "vary") response.headers.append(name, value);
    else response.headers.set(name, value);
  }
  return response;
}
