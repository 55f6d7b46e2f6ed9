/**
 * `GET /healthz`: 200 while serving, 503 once draining, and 503 "degraded" while mcpkit's own
 * authorization server cannot reach its state store (no sign-in or refresh can succeed, so a
 * load balancer should send traffic elsewhere). No authorization (load balancers probe it), and
 * any Host is answered, so probes that name a pod's IP work; but what the server holds (open
 * sessions, tool calls running and waiting) is shown only to a Host (and Origin) that /mcp itself
 * accepts: a page that rebinds its own name to this server learns only the status.
 */
import { dispatcherFor } from "../protocol/dispatcher.ts";
import type { HostOriginCheck } from "./host-origin.ts";
import { type Middleware, route } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export const HEALTH_PATH = "/healthz";

export function health(state: HttpState, hostOriginCheck: HostOriginCheck): Middleware {
  const { admission } = dispatcherFor(state.serverOptions);
  return route(HEALTH_PATH, async ({ request }) => {
    const shown = hostOriginCheck(request.headers.get("host"), request.headers.get("origin")) === undefined;
    const counts = shown
      ? { sessions: state.sessions?.size ?? 0, calls: { running: admission.running, waiting: admission.waiting } }
      : {};
    if (state.stopping) return Response.json({ status: "stopping", ...counts }, { status: 503 });
    const as = state.authorizationServer;
    if (as && !(await as.storeReachable())) {
      return Response.json(
        { status: "degraded", ...counts, store: "unavailable" },
        { status: 503, headers: { "retry-after": "30", "cache-control": "no-store" } },
      );
    }
    return Response.json({ status: "ok", ...counts, ...(as ? { store: "ok" } : {}) });
  });
}
