/**
 * The identity re-check on refresh (issue 18 G5): who the user is now, asked again at the IdP
 * with the upstream tokens kept (sealed) since sign-in, at most once per re-check interval.
 *
 * It fails closed: a sign-in whose stored upstream tokens can no longer ask the IdP (the access
 * token expired and there is no refresh token, no userinfo endpoint, tokens sealed with another
 * key) ends, because nothing else would ever notice that the user was offboarded.
 *
 * Re-checks of one subject run one at a time within the process, and those that waited for one
 * take its answer: two refreshes racing would otherwise both spend the same upstream refresh
 * token, and an IdP that rotates refresh tokens revokes the grant on the second spend.
 */
import type { Logger } from "../../core/log.ts";
import type { ResolvedConfig } from "./config.ts";
import type { Keyring } from "./crypto.ts";
import type { Identity } from "./policy.ts";
import type { RefreshRecord, Store } from "./store.ts";
import { type Upstream, type UpstreamTokens, isUpstreamDenial } from "./upstream/index.ts";

/** What a re-check uses of the routes' shared dependencies (`context.ts` Deps): only this. */
export interface RecheckDeps {
  config: Pick<ResolvedConfig, "identityRecheck" | "refreshTokenTtl">;
  store: Pick<Store, "getUpstreamTokens" | "putUpstreamTokens">;
  keyring: Pick<Keyring, "seal" | "open">;
  upstream: Pick<Upstream, "recheck">;
  identityChecks: IdentityChecks;
  log: Pick<Logger, "warn">;
}

/** What the IdP said about a subject: who they are now, or why the sign-in ends. */
type Outcome = { identity: Identity; checkedAt: number } | { denied: string; checkedAt: number };

export interface IdentityChecks {
  /**
   * Runs `check` for `key` after any check of that key already under way; a caller that had to
   * wait for one gets that one's outcome instead of asking the IdP again (single flight).
   */
  once(key: string, check: () => Promise<Outcome>): Promise<Outcome>;
}

export function createIdentityChecks(): IdentityChecks {
  /** Per key: the last check queued, and the outcome of the last one that finished with an answer. */
  const keys = new Map<string, { tail: Promise<unknown>; finished: number; last?: Outcome }>();
  return {
    once(key, check) {
      const entry = keys.get(key) ?? { tail: Promise.resolve(), finished: 0 };
      keys.set(key, entry);
      const seen = entry.finished;
      const run = async (): Promise<Outcome> => {
        if (entry.finished > seen && entry.last) return entry.last;
        const outcome = await check();
        entry.last = outcome;
        entry.finished++;
        return outcome;
      };
      const result = entry.tail.then(run, run);
      const tail = result.catch(() => undefined);
      entry.tail = tail;
      // The last in line clears the key, so the map holds only subjects with a check under way.
      void tail.then(() => {
        if (entry.tail === tail) keys.delete(key);
      });
      return result;
    },
  };
}

/**
 * Who the user is now: the stored identity while it was confirmed recently, else the IdP's answer.
 * An IdP that refuses the user, or tokens that cannot ask it any more, end the sign-in; an IdP
 * that cannot be reached gets a retry later, the refresh token unspent.
 */
export async function confirmIdentity(
  deps: RecheckDeps,
  known: RefreshRecord,
  now: number,
): Promise<{ identity: Identity; checkedAt: number } | { denied: string }> {
  const checkedAt = known.checkedAt ?? known.signedInAt ?? 0;
  const interval = deps.config.identityRecheck * 1000;
  if (interval === 0 || now - checkedAt < interval) return { identity: known.identity, checkedAt };
  const outcome = await deps.identityChecks.once(known.subject, () => askIdp(deps, known, now));
  if ("denied" in outcome) return { denied: outcome.denied };
  if (outcome.identity.subject !== known.subject) return { denied: "the identity provider named another user." };
  return outcome;
}

/** One re-check at the IdP. Throws when the IdP cannot be reached (the caller answers 503). */
async function askIdp(deps: RecheckDeps, known: RefreshRecord, now: number): Promise<Outcome> {
  const stored = await upstreamTokensOf(deps, known.subject, now);
  if (!stored)
    return { denied: "no upstream tokens are kept for this user, so the IdP cannot be asked.", checkedAt: now };
  try {
    const result = await deps.upstream.recheck(stored, known.identity);
    if (!result)
      return {
        denied:
          "the upstream access token expired and no upstream refresh token was issued, so the IdP cannot be asked.",
        checkedAt: now,
      };
    // Kept first: an IdP that rotates refresh tokens has already retired the stored one.
    if (result.tokens !== stored) await keepUpstreamTokens(deps, known.subject, result.tokens, now);
    const identity = result.identity ?? known.identity;
    if (identity.subject !== known.subject)
      return { denied: "the identity provider named another user.", checkedAt: now };
    return { identity, checkedAt: now };
  } catch (error) {
    if (isUpstreamDenial(error)) return { denied: error.description, checkedAt: now };
    throw error;
  }
}

async function upstreamTokensOf(deps: RecheckDeps, subject: string, now: number): Promise<UpstreamTokens | undefined> {
  const sealed = await deps.store.getUpstreamTokens(subject, now);
  if (!sealed) return undefined;
  try {
    return JSON.parse(deps.keyring.open(sealed, `upstream-tokens:${subject}`)) as UpstreamTokens;
  } catch {
    deps.log.warn("stored upstream tokens cannot be opened (another --state-key?); the identity cannot be re-checked");
    return undefined;
  }
}

async function keepUpstreamTokens(
  deps: RecheckDeps,
  subject: string,
  tokens: UpstreamTokens,
  now: number,
): Promise<void> {
  const expiresAt = Math.max(now + deps.config.refreshTokenTtl * 1000, (tokens.expires_at ?? 0) * 1000);
  const sealed = deps.keyring.seal(JSON.stringify(tokens), `upstream-tokens:${subject}`);
  await deps.store.putUpstreamTokens(subject, sealed, expiresAt, now);
}
