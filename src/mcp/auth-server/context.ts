/**
 * What every route shares: the resolved configuration, the store, the keys, the upstream IdP,
 * and the browser-binding cookies. One explicit object, built once in `index.ts`.
 */
import type { Logger } from "../../core/log.ts";
import type { CimdFetcher } from "./cimd.ts";
import type { ResolvedConfig } from "./config.ts";
import { type Keyring, hashToken, randomToken } from "./crypto.ts";
import { type CookieSettings, cookieName, readCookie, setCookie } from "./http.ts";
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

export const REQUEST_TTL_SECONDS = 600;
export const UPSTREAM_STATE_TTL_SECONDS = 600;
const BROWSER_COOKIE_SECONDS = 86_400;
const USER_COOKIE_SECONDS = 30 * 86_400;

export interface BrowserCookies {
  /** The signed random nonce that identifies this browser, when it carries a valid one. */
  nonce(request: Request): string | undefined;
  /** A new nonce and the Set-Cookie that gives it to the browser. */
  issueNonce(): { nonce: string; cookie: string };
  /** The user this browser last signed in as (only to skip an already-given consent). */
  rememberedUser(request: Request): string | undefined;
  rememberUser(subject: string): string;
  forgetUser(): string;
  csrfFor(requestId: string, nonce: string): string;
}

export function createBrowserCookies(keyring: Keyring, settings: CookieSettings): BrowserCookies {
  const browserName = cookieName("mcpkit-browser", settings);
  const userName = cookieName("mcpkit-user", settings);
  const verified = (value: string | undefined, context: string): string | undefined => {
    if (!value) return undefined;
    const dot = value.lastIndexOf(".");
    if (dot <= 0) return undefined;
    const payload = value.slice(0, dot);
    return keyring.verify(payload, value.slice(dot + 1), context) ? payload : undefined;
  };
  return {
    nonce: (request) => verified(readCookie(request, browserName), "browser"),
    issueNonce() {
      const nonce = randomToken();
      return {
        nonce,
        cookie: setCookie(browserName, `${nonce}.${keyring.sign(nonce, "browser")}`, BROWSER_COOKIE_SECONDS, settings),
      };
    },
    rememberedUser(request) {
      const payload = verified(readCookie(request, userName), "user");
      if (!payload) return undefined;
      const [subject, expires] = payload.split("~");
      return Number(expires) > Date.now() / 1000 ? Buffer.from(subject, "base64url").toString("utf8") : undefined;
    },
    rememberUser(subject) {
      const payload = `${Buffer.from(subject).toString("base64url")}~${Math.floor(Date.now() / 1000) + USER_COOKIE_SECONDS}`;
      return setCookie(userName, `${payload}.${keyring.sign(payload, "user")}`, USER_COOKIE_SECONDS, settings);
    },
    forgetUser: () => setCookie(userName, "", 0, settings),
    csrfFor: (requestId, nonce) => keyring.sign(`${requestId}|${hashToken(nonce)}`, "csrf"),
  };
}
