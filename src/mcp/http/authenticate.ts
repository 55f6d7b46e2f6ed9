/** With --auth: the bearer token is checked (401/403/503) and the caller rides on the exchange. */
import { type Middleware, passThrough } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function authenticate(state: HttpState): Middleware {
  const server = state.resourceServer;
  if (!server) return passThrough;
  return async (exchange, next) => {
    const result = await server.authenticate(exchange.request);
    if (result instanceof Response) return result;
    exchange.caller = result;
    return next();
  };
}
