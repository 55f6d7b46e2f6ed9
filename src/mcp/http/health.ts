/** `GET /healthz`: 200 while serving, 503 once draining; no authorization (load balancers probe it). */
import { type Middleware, route } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export const HEALTH_PATH = "/healthz";

export function health(state: HttpState): Middleware {
  return route(HEALTH_PATH, () =>
    Response.json(
      { status: state.stopping ? "stopping" : "ok", sessions: state.sessions?.size ?? 0 },
      { status: state.stopping ? 503 : 200 },
    ),
  );
}
