/**
 * What every route shares: the resolved configuration, the store, the keys, the upstream IdP,
 * and the browser-binding cookies. One explicit object, built once in `index.ts`; this file
 * holds only its shape and the shapes of what the sign-in keeps between requests.
 */
import type { Logger } from "../../core/log.ts";
import type { CimdFetcher } from "./cimd.ts";
import type { ResolvedConfig } from "./config.ts";
import type { BrowserCookies } from "./browser-cookies.ts";
import type { Keyring } from "./crypto.ts";
import type { KeyManager } from "./keys.ts";
import type { RateLimiter } from "./rate-limit.ts";
import type { IdentityChecks } from "./recheck.ts";
import type { Store } from "./store.ts";
import type { Upstream } from "./upstream/index.ts";

export interface Deps {
  config: ResolvedConfig;
  store: Store;
  keyring: Keyring;
  keys: KeyManager;
  upstream: Upstream;
  /** Identity re-checks at the IdP, one at a time per subject. */
  identityChecks: IdentityChecks;
  cimd: CimdFetcher;
  registrations: RateLimiter;
  /** GET /authorize, per client address (a person signs in a few times a minute, not hundreds). */
  authorizations: RateLimiter;
  /** POST /consent, per browser (its signed nonce): a form is answered once, by a person. */
  consents: RateLimiter;
  log: Logger;
  browser: BrowserCookies;
}

/** An authorization request between `/authorize` and the callback (kept ≤ 10 min). */
export interface PendingRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  metadataHost?: string;
  /** When the consent form was answered: the form is single-use (issue 18 G7). */
  answeredAt?: number;
}

/** The upstream `state`, created only after consent, bound to the consenting browser. */
export interface UpstreamState {
  requestId: string;
  /** Hash of the browser cookie's nonce: the callback must arrive in that same browser. */
  browser: string;
  sealedVerifier: string;
  nonce?: string;
  /** Set when consent was remembered: the user who gave it, so another account sees the page. */
  rememberedSubject?: string;
}
