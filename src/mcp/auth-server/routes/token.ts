/**
 * `POST /token`: the authorization-code grant (PKCE S256, same client and redirect URI, single
 * use — a replayed code revokes what it issued) and the refresh-token grant (rotation on every
 * use; reuse of a rotated token revokes the family, except one retry within a short grace window
 * for a client that lost the response, and only while the token it was rotated into is unused:
 * the retry replaces that token, so a sign-in never has two live branches). The access policy is
 * applied again on every grant, to an identity the IdP confirms again every few minutes, and a
 * sign-in ends a fixed time after the user signed in, however often it is refreshed.
 */
import type { Deps } from "../context.ts";
import { hashToken, s256, safeEqual } from "../crypto.ts";
import { OAuthFailure } from "../errors.ts";
import { type Route, jsonResponse, preflightRoute, readForm, single } from "../http.ts";
import { type Identity, grantScopes } from "../policy.ts";
import { type RefreshRecord, StoreUnavailable } from "../store.ts";
import { type Grant, issueTokens, mintRefreshToken, tokenResponse } from "../tokens.ts";
import { confirmIdentity } from "../recheck.ts";

export function tokenRoutes(deps: Deps): Route[] {
  return [
    { method: "POST", path: "/token", handle: (request) => token(deps, request) },
    { method: "OPTIONS", path: "/token", handle: preflightRoute() },
  ];
}

async function token(deps: Deps, request: Request): Promise<Response> {
  const form = await readForm(request);
  if (request.headers.get("authorization")) {
    throw new OAuthFailure(
      "invalid_client",
      "this server only has public clients: send client_id in the body and no Authorization header.",
      { status: 401 },
    );
  }
  const grantType = single(form, "grant_type");
  const clientId = single(form, "client_id");
  if (!clientId)
    throw new OAuthFailure(
      "invalid_request",
      "client_id is required (public clients identify themselves in the body).",
    );
  if (grantType === "authorization_code") return redeemCode(deps, form, clientId);
  if (grantType === "refresh_token") return refresh(deps, form, clientId);
  throw new OAuthFailure("unsupported_grant_type", 'grant_type must be "authorization_code" or "refresh_token".');
}

/** A grant that cannot be used (RFC 6749 §5.2 `invalid_grant`): the client signs in again. */
const badGrant = (description: string) => new OAuthFailure("invalid_grant", description);

function checkResource(deps: Deps, form: URLSearchParams, granted: string): void {
  const resources = form.getAll("resource");
  if (resources.length > 1 || (resources.length === 1 && resources[0] !== granted && resources[0] !== `${granted}/`)) {
    throw new OAuthFailure("invalid_target", `resource must be this server's MCP URL, ${deps.config.resource}.`);
  }
}

/** The scopes the policy still allows; none means the user lost access since signing in. */
function allowedNow(deps: Deps, identity: Identity, scopes: string[]): string[] {
  return grantScopes(deps.config.policy, identity, scopes);
}

async function redeemCode(deps: Deps, form: URLSearchParams, clientId: string): Promise<Response> {
  const code = single(form, "code");
  const redirectUri = single(form, "redirect_uri");
  const verifier = single(form, "code_verifier");
  if (!code || !verifier) throw new OAuthFailure("invalid_request", "code and code_verifier are required (PKCE).");
  const codeHash = hashToken(code);
  const taken = await deps.store.takeCode(codeHash, Date.now());
  if (taken.status === "replayed") {
    const revoked = await deps.store.revokeFamily(taken.code.familyId);
    deps.log.warn("authorization code replayed; revoking the tokens it issued", {
      client_id: taken.code.clientId,
      revoked,
    });
    throw badGrant(
      "this authorization code was already used; the tokens issued with it are revoked. Start a new authorization.",
    );
  }
  if (taken.status === "unknown")
    throw badGrant(
      `the authorization code is unknown or expired (codes live ${deps.config.codeTtl} seconds here); start a new authorization.`,
    );
  const granted = taken.code;
  if (granted.clientId !== clientId) throw badGrant("the authorization code was issued to another client.");
  if (redirectUri !== granted.redirectUri)
    throw badGrant("redirect_uri must be exactly the one used in the authorization request.");
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !safeEqual(s256(verifier), granted.codeChallenge)) {
    throw badGrant("code_verifier does not match the code_challenge (PKCE S256).");
  }
  checkResource(deps, form, granted.resource);
  const scopes = allowedNow(deps, granted.identity, granted.scopes);
  if (scopes.length === 0) throw badGrant("the access policy no longer allows this user.");
  // A code from before the sign-in time was recorded: it was issued right after the sign-in.
  const signedInAt = granted.signedInAt ?? granted.expiresAt - deps.config.codeTtl * 1000;
  const tokens = await issueTokens(deps, { ...granted, scopes, signedInAt, checkedAt: signedInAt });
  // A replay between taking the code and storing the refresh token revoked a family that had no row
  // yet (several database connections, Postgres): the code's mark says so, and the tokens go too.
  if (await deps.store.wasCodeReplayed(codeHash)) {
    await deps.store.revokeFamily(granted.familyId);
    deps.log.warn("authorization code replayed while it was redeemed; revoking the tokens it issued", {
      client_id: clientId,
    });
    throw badGrant(
      "this authorization code was used twice at once; the tokens issued with it are revoked. Start a new authorization.",
    );
  }
  deps.log.info("tokens issued", { client_id: clientId, grant: "authorization_code" });
  return jsonResponse(tokens);
}

async function refresh(deps: Deps, form: URLSearchParams, clientId: string): Promise<Response> {
  const presented = single(form, "refresh_token");
  if (!presented) throw new OAuthFailure("invalid_request", "refresh_token is required.");
  const hash = hashToken(presented);
  const known = await deps.store.findRefresh(hash);
  // Checked before rotating, so another client cannot burn a token it stole but cannot use.
  if (!known || known.clientId !== clientId)
    throw badGrant("the refresh token is unknown, expired or belongs to another client; sign in again.");
  const now = deps.config.now();
  if (known.revoked || known.expiresAt <= now)
    throw badGrant("the refresh token is expired or revoked; sign in again.");
  const signedInAt = known.signedInAt ?? (await legacySignInTime(deps, known));
  if (now >= signedInAt + deps.config.signInLifetime * 1000)
    throw badGrant("this sign-in reached its maximum lifetime; sign in again.");
  if (known.rotatedAt !== undefined && (known.retried || now - known.rotatedAt > deps.config.refreshGrace * 1000))
    throw await reuseDetected(deps, known.familyId, clientId);
  checkResource(deps, form, known.resource);
  const scopeText = single(form, "scope");
  const requested = scopeText ? scopeText.split(" ").filter(Boolean) : known.scopes;
  if (requested.some((scope) => !known.scopes.includes(scope))) {
    throw new OAuthFailure(
      "invalid_scope",
      `a refresh can only narrow the scopes; this grant has ${known.scopes.join(" ")}.`,
    );
  }
  const confirmed = await reconfirm(deps, known, now);
  const scopes = allowedNow(deps, confirmed.identity, requested);
  if (scopes.length === 0) {
    await deps.store.revokeFamily(known.familyId);
    throw badGrant("the access policy no longer allows this user; sign in again.");
  }
  const grant: Grant = { ...known, identity: confirmed.identity, scopes, signedInAt, checkedAt: confirmed.checkedAt };
  const next = await mintRefreshToken(deps, grant);
  await commitRotation(deps, known, hash, next.hash, now);
  deps.log.info("tokens issued", { client_id: clientId, grant: "refresh_token" });
  return jsonResponse(await tokenResponse(deps, grant, next.token));
}

/**
 * When a sign-in began whose rows predate the recorded sign-in time (an older release): the
 * creation of its family's earliest row still kept, that row's expiry less the refresh-token
 * lifetime. Never the presented row's own creation (each rotation would restart the sign-in),
 * never now. Once rotated, the successor records this time, so it is derived once.
 */
async function legacySignInTime(deps: Deps, known: RefreshRecord): Promise<number> {
  const earliest = (await deps.store.familyEarliestExpiry(known.familyId)) ?? known.expiresAt;
  return Math.min(earliest, known.expiresAt) - deps.config.refreshTokenTtl * 1000;
}

/**
 * Makes `successor` the one live token of the family: a first use rotates the presented token; a
 * use of a token rotated moments ago (within the grace window) is its single retry, which
 * replaces the successor it got before, and only while that successor is unused. Anything
 * else is reuse, and the family is revoked. Throws the refusal; returns when committed.
 */
async function commitRotation(
  deps: Deps,
  known: RefreshRecord,
  hash: string,
  successor: string,
  now: number,
): Promise<void> {
  if (known.rotatedAt === undefined) {
    const rotation = await deps.store.rotateRefresh(hash, now, successor);
    if (rotation.status === "ok") return;
    if (rotation.status !== "rotated") {
      await deps.store.deleteRefresh(successor);
      throw badGrant("the refresh token is expired or revoked; sign in again.");
    }
    // Another request rotated it first: this one is its retry, judged like any other.
    if (now - (rotation.token.rotatedAt ?? 0) > deps.config.refreshGrace * 1000)
      throw await reuseDetected(deps, known.familyId, known.clientId);
  }
  if (await deps.store.retryRefresh(hash, now, successor)) return;
  throw await reuseDetected(deps, known.familyId, known.clientId);
}

/** Revokes the family of a reused refresh token; the failure to throw. */
async function reuseDetected(deps: Deps, familyId: string, clientId: string): Promise<OAuthFailure> {
  const revoked = await deps.store.revokeFamily(familyId);
  deps.log.warn("rotated refresh token reused; revoking its family", { client_id: clientId, revoked });
  return badGrant(
    "this refresh token was already used; for safety every token of this sign-in is revoked. Sign in again.",
  );
}

/** The identity re-check's answer as the token endpoint gives it: revoked or retry later (thrown), or go on. */
async function reconfirm(
  deps: Deps,
  known: RefreshRecord,
  now: number,
): Promise<{ identity: Identity; checkedAt: number }> {
  let confirmed: Awaited<ReturnType<typeof confirmIdentity>>;
  try {
    confirmed = await confirmIdentity(deps, known, now);
  } catch (error) {
    if (error instanceof StoreUnavailable) throw error;
    deps.log.warn("identity re-check failed; the client may retry", {
      error: error instanceof Error ? error.message : String(error),
    });
    throw new OAuthFailure(
      "temporarily_unavailable",
      "the identity provider could not confirm the user just now; retry the refresh in a minute.",
      { status: 503, headers: { "retry-after": "60" } },
    );
  }
  if (!("denied" in confirmed)) return confirmed;
  const revoked = await deps.store.revokeFamily(known.familyId);
  deps.log.info("identity provider no longer confirms the user; sign-in revoked", {
    client_id: known.clientId,
    user: known.identity.displayName,
    reason: confirmed.denied,
    revoked,
  });
  throw badGrant("the identity provider no longer confirms this user; sign in again.");
}
