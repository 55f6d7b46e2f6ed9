/**
 * Asking the identity provider again who a signed-in user is (issue 18 G5), with the upstream
 * tokens kept sealed since the sign-in. Concurrent re-checks of one user share one call: an IdP
 * that rotates refresh tokens retires the one they would each spend, and the loser would then
 * look like a user the IdP refuses. (Across instances on one Postgres store the calls are not
 * shared; there the second one fails as "unavailable" and its client retries.)
 */
import type { Deps } from "./context.ts";
import type { Identity } from "./policy.ts";
import { UpstreamDenied, type UpstreamTokens } from "./upstream.ts";

export type RecheckOutcome =
  /** `identity` absent: the IdP honoured the tokens but said nothing new about the user. */
  | { kind: "confirmed"; identity: Identity | undefined }
  /** The IdP refuses the user (or names another): the sign-in must end. */
  | { kind: "denied"; reason: string }
  /** Nothing left to ask the IdP with: the sign-in must end too (fail closed). */
  | { kind: "impossible"; reason: string }
  /** The IdP could not be reached or its answer not verified: try again later. */
  | { kind: "unavailable"; reason: string };

const running = new WeakMap<Deps, Map<string, Promise<RecheckOutcome>>>();

export function recheckIdentity(deps: Deps, subject: string, previous: Identity, now: number): Promise<RecheckOutcome> {
  let bySubject = running.get(deps);
  if (!bySubject) {
    bySubject = new Map();
    running.set(deps, bySubject);
  }
  const shared = bySubject.get(subject);
  if (shared) return shared;
  const call = askIdentityProvider(deps, subject, previous, now).finally(() => bySubject.delete(subject));
  bySubject.set(subject, call);
  return call;
}

async function askIdentityProvider(
  deps: Deps,
  subject: string,
  previous: Identity,
  now: number,
): Promise<RecheckOutcome> {
  const stored = await upstreamTokensOf(deps, subject, now);
  if (!stored) return { kind: "impossible", reason: "no upstream tokens are kept for this sign-in" };
  try {
    const result = await deps.upstream.recheck(stored, previous);
    if (!result) {
      return { kind: "impossible", reason: "the upstream access token expired and there is no refresh token" };
    }
    // Kept first: an IdP that rotates refresh tokens has already retired the stored one.
    if (result.tokens !== stored) await keepUpstreamTokens(deps, subject, result.tokens, now);
    if (result.identity && result.identity.subject !== subject) {
      return { kind: "denied", reason: "the identity provider named another user." };
    }
    return { kind: "confirmed", identity: result.identity };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return error instanceof UpstreamDenied ? { kind: "denied", reason } : { kind: "unavailable", reason };
  }
}

async function upstreamTokensOf(deps: Deps, subject: string, now: number): Promise<UpstreamTokens | undefined> {
  const sealed = await deps.store.getUpstreamTokens(subject, now);
  if (!sealed) return undefined;
  try {
    return JSON.parse(deps.keyring.open(sealed, `upstream-tokens:${subject}`)) as UpstreamTokens;
  } catch {
    deps.log.warn("stored upstream tokens cannot be opened (another --state-key?); the sign-in cannot be re-checked");
    return undefined;
  }
}

async function keepUpstreamTokens(deps: Deps, subject: string, tokens: UpstreamTokens, now: number): Promise<void> {
  const expiresAt = Math.max(now + deps.config.refreshTokenTtl * 1000, (tokens.expires_at ?? 0) * 1000);
  const sealed = deps.keyring.seal(JSON.stringify(tokens), `upstream-tokens:${subject}`);
  await deps.store.putUpstreamTokens(subject, sealed, expiresAt, now);
}
