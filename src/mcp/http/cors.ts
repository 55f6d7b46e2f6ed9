/**
 * CORS, the one implementation: what a browser on another origin may read, and what a preflight
 * allows. Two policies:
 *
 *   MCP_CORS     the /mcp endpoint, for browser clients on an allowed origin (the Host/Origin
 *                step has already refused the others); the origin is reflected, and the session
 *                id and the authorization challenge are readable;
 *   PUBLIC_CORS  public documents and the OAuth endpoints (metadata, keys, registration, token,
 *                revocation): any origin, no cookies involved.
 */
import type { Middleware } from "./middleware.ts";

export interface CorsPolicy {
  /** Methods a preflight allows. */
  methods: string;
  /** Request headers a preflight allows. */
  headers: string;
  /** Response headers a script may read besides the simple ones. */
  expose?: string;
}

export const MCP_CORS: CorsPolicy = {
  methods: "GET, POST, DELETE, OPTIONS",
  headers:
    "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
  expose: "mcp-session-id, www-authenticate",
};

export const PUBLIC_CORS: CorsPolicy = {
  methods: "GET, POST, OPTIONS",
  headers: "authorization, content-type, mcp-protocol-version",
};

/** The headers that let `origin` read a response ("*": anyone). */
export function readableBy(policy: CorsPolicy, origin = "*"): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    ...(policy.expose ? { "access-control-expose-headers": policy.expose } : {}),
    ...(origin === "*" ? {} : { vary: "origin" }),
  };
}

/** The answer to a preflight (OPTIONS) under `policy`. */
export function preflight(policy: CorsPolicy, origin = "*"): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": policy.methods,
      "access-control-allow-headers": policy.headers,
      "access-control-max-age": "600",
      vary: "origin",
    },
  });
}

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
