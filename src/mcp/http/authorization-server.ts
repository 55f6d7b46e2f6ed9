/**
 * With `--auth oauth`, mcpkit's own authorization server (RFC 8414 metadata, JWKS, /register,
 * /authorize, the consent page, /oauth/callback, /token, /revoke) answers its paths here; every
 * other path goes on to the MCP endpoint. Its routes set their own headers and checks.
 */
import type { Middleware } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function authorizationServer(state: HttpState): Middleware {
  const server = state.authorizationServer;
  if (!server) return (_exchange, next) => next();
  return async (exchange, next) =>
    (await server.handle(exchange.request, { clientAddress: exchange.clientAddress() })) ?? next();
}
