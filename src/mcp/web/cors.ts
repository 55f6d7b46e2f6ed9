/**
 * CORS, the one implementation: what a browser on another origin may read, and what a preflight
 * allows, under a policy. Two policies exist: `PUBLIC_CORS` here, for public documents and the
 * OAuth endpoints (metadata, keys, registration, token, revocation): any origin, no cookies
 * involved; and `MCP_CORS` (`http/cors.ts`), for the /mcp endpoint.
 */
export interface CorsPolicy {
  /** Methods a preflight allows. */
  methods: string;
  /** Request headers a preflight allows. */
  headers: string;
  /** Response headers a script may read besides the simple ones. */
  expose?: string;
}

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
