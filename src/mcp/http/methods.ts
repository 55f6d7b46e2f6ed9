/** `/mcp` takes POST, and GET/DELETE for sessions; anything else gets 405 with Allow. */
import { methodNotAllowed } from "./jsonrpc-errors.ts";
import type { Middleware } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function methods(state: HttpState): Middleware {
  const sessionful = state.sessions !== undefined;
  return (exchange, next) => {
    switch (exchange.request.method) {
      case "POST":
        return next();
      case "GET":
      case "DELETE":
        return sessionful
          ? next()
          : methodNotAllowed("POST", "this server is stateless: there are no sessions to stream from or end.");
      default:
        return methodNotAllowed(sessionful ? "GET, POST, DELETE" : "POST");
    }
  };
}
