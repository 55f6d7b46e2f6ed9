/**
 * With `--auth oauth`, mcpkit's own authorization server (RFC 8414 metadata, JWKS, /register,
 * /authorize, the consent page, /oauth/callback, /token, /revoke) answers its paths here; every
 * other path goes on to the MCP endpoint. Its routes set their own headers and checks, but the
 * Host header is checked as for /mcp (issue 18: DNS rebinding reaches these routes too); Origin
 * is not, since browser-based clients call them from their own origins.
 */
import type { HostOriginCheck } from "./host-origin.ts";
import { type Middleware, passThrough } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function authorizationServer(state: HttpState, hostCheck: HostOriginCheck): Middleware {
  const server = state.authorizationServer;
  if (!server) return passThrough;
  return async (exchange, next) => {
    if (!server.serves(exchange.pathname)) return next();
    const refusal = hostCheck(exchange.request.headers.get("host"), null);
    if (refusal !== undefined) {
      state.log.debug("request refused", { reason: refusal });
      return server.forbidden(refusal);
    }
    return (await server.handle(exchange.request, { clientAddress: exchange.clientAddress() })) ?? next();
  };
}
