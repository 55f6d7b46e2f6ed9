/**
 * CORS for browser clients on an allowed origin (the Host/Origin step has already refused the
 * others): preflights answered here, and every response made readable, including the session
 * id and the authorization challenge.
 */
import type { Middleware } from "./middleware.ts";

const ALLOWED_HEADERS =
  "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id";

export function cors(): Middleware {
  return async (exchange, next) => {
    const origin = exchange.request.headers.get("origin");
    if (exchange.request.method === "OPTIONS") return preflight(origin ?? "*", "GET, POST, DELETE, OPTIONS");
    const response = await next();
    return origin ? withCors(response, origin) : response;
  };
}

export function preflight(origin: string, methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": methods,
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
      vary: "origin",
    },
  });
}

function withCors(response: Response, origin: string): Response {
  response.headers.set("access-control-allow-origin", origin);
  response.headers.set("access-control-expose-headers", "mcp-session-id, www-authenticate");
  response.headers.append("vary", "origin");
  return response;
}
