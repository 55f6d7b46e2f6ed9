/**
 * The upstream leg: mcpkit as an OAuth client of the identity provider (oauth4webapi), with its
 * own fixed callback and its own PKCE pair. Generic OIDC by issuer discovery (`oidc.ts`), or
 * GitHub (`github.ts`: OAuth 2.0, identity through its REST API). Upstream tokens never reach
 * mcpkit's clients.
 */
import type { UpstreamConfig } from "../config.ts";
import type { Upstream } from "./client.ts";
import { GithubUpstream } from "./github.ts";
import { OidcUpstream } from "./oidc.ts";

export {
  type PendingUpstream,
  type RecheckResult,
  type Upstream,
  type UpstreamResult,
  type UpstreamTokens,
  isUpstreamDenial,
} from "./client.ts";

/** `now`: the authorization server's clock, so an upstream token's expiry is judged on the same time as its grants. */
export function createUpstream(
  config: UpstreamConfig,
  callbackUrl: string,
  wantOrgs: boolean,
  now: () => number = Date.now,
): Upstream {
  return config.kind === "oidc"
    ? new OidcUpstream(config, callbackUrl, now)
    : new GithubUpstream(config, callbackUrl, wantOrgs, now);
}
