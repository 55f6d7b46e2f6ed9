/**
 * `GET /healthz`: 200 while serving, 503 once draining, and 503 "degraded" while mcpkit's own
 * authorization server cannot reach its state store (no sign-in or refresh can succeed, so a
 * load balancer should send traffic elsewhere). No authorization (load balancers probe it).
 */
import { type Middleware, route } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export const HEALTH_PATH = "/healthz";

export function health(state: HttpState): Middleware {
  return route(HEALTH_PATH, async () => {
    const sessions = state.sessions?.size ?? 0;
    if (state.stopping) return Response.json({ status: "stopping", sessions }, { status: 503 });
    const as = state.authorizationServer;
    if (as && !(await as.storeReachable())) {
      return Response.json(
        { status: "degraded", sessions, store: "unavailable" },
        { status: 503, headers: { "retry-after": "30", "cache-control": "no-store" } },
      );
    }
    return Response.json({ status: "ok", sessions, ...(as ? { store: "ok" } : {}) });
  });
}
