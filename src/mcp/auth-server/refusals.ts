/**
 * Requests the authorization server turns away by one of its limits, counted in
 * mcpkit.authorization.refused. A refusal is the moment an operator needs to see: the 429 and 503
 * pages reach only the person at the browser, and the log lines are debug or per request.
 * `http.route` is the HTTP semantic conventions' attribute (the route's template, here the path
 * itself); `mcpkit.limit` names the limit as mcpkit.calls.refused does. Both take a handful of
 * fixed values, never anything a caller sent.
 */
import { countEvent, defineCounter } from "../../core/telemetry/index.ts";

// One counter for every limit, told apart by attributes, as mcpkit.calls.refused is: a dashboard
// sums or splits them, and a new limit is a new attribute value rather than a new instrument.
const refusals = defineCounter({
  name: "mcpkit.authorization.refused",
  unit: "{request}",
  description:
    "Requests to mcpkit's authorization server refused by a limit, by http.route and mcpkit.limit (address, browser, server or metadata_documents).",
});

/**
 * address: the per-address rate limit; browser: the consent page's per-browser rate limit; server:
 * the server-wide bound on what is stored or answered; metadata_documents: CIMD_MAX_IN_FLIGHT.
 */
export type AuthorizationLimit = "address" | "browser" | "server" | "metadata_documents";

export function countRefusal(route: "/authorize" | "/register" | "/consent", limit: AuthorizationLimit): void {
  countEvent(refusals, { "http.route": route, "mcpkit.limit": limit });
}
