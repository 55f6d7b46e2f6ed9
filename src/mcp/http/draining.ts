/** Once shutdown has begun, new MCP requests get 503 with Retry-After so a balancer sends them elsewhere. */
import { RETRY_AFTER_SECONDS, TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import type { Middleware } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function draining(state: HttpState): Middleware {
  return (_exchange, next) =>
    state.stopping
      ? jsonRpcErrorResponse(
          503,
          TRANSPORT_ERROR,
          "Service Unavailable: the server is shutting down; retry against another instance.",
          {
            headers: { "retry-after": String(RETRY_AFTER_SECONDS), connection: "close" },
          },
        )
      : next();
}
