/**
 * mcpkit's own tokens: ES256 JWT access tokens (RFC 9068 shape, `aud` = the MCP URL, which the
 * `--auth jwt` verifier accepts as is) and opaque refresh tokens stored by hash, one family per
 * sign-in so a detected reuse revokes everything that sign-in produced.
 */
import * as jose from "jose";
import type { ResolvedConfig } from "./config.ts";
import { hashToken, randomToken } from "./crypto.ts";
import { type KeyManager, SIGNING_ALG } from "./keys.ts";
import type { Identity } from "./policy.ts";
import type { Store } from "./store.ts";

/** What issuing tokens uses of the routes' shared dependencies (`context.ts` Deps): only this. */
export interface TokenDeps {
  config: Pick<ResolvedConfig, "issuer" | "now" | "accessTokenTtl" | "refreshTokenTtl" | "signInLifetime">;
  keys: Pick<KeyManager, "signingKey">;
  store: Pick<Store, "putRefresh" | "extendClient">;
}

export interface Grant {
  clientId: string;
  subject: string;
  identity: Identity;
  scopes: string[];
  resource: string;
  familyId: string;
  /** When the user signed in at the IdP: no token of this sign-in outlives it by more than the sign-in lifetime. */
  signedInAt: number;
  /** When the IdP last confirmed the identity. */
  checkedAt: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * Seconds an access token of this grant may live: the configured lifetime, cut at the end of the
 * sign-in, so no token outlives `--sign-in-lifetime` (at least one second: the grant was checked live).
 */
function accessTokenLifetime(deps: TokenDeps, grant: Grant): number {
  const signInEnd = grant.signedInAt + deps.config.signInLifetime * 1000;
  const remaining = Math.floor((signInEnd - deps.config.now()) / 1000);
  return Math.max(1, Math.min(deps.config.accessTokenTtl, remaining));
}

async function signAccessToken(deps: TokenDeps, grant: Grant, lifetime: number): Promise<string> {
  const { kid, key } = await deps.keys.signingKey();
  // Real time here: the resource server checks `exp` against its own clock.
  const now = Math.floor(Date.now() / 1000);
  // `sid` names the sign-in (the refresh-token family), so revoking it cuts off its access tokens too.
  return new jose.SignJWT({ scope: grant.scopes.join(" "), client_id: grant.clientId, sid: grant.familyId })
    .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: "at+jwt" })
    .setIssuer(deps.config.issuer)
    .setAudience(grant.resource)
    .setSubject(grant.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .setJti(randomToken(16))
    .sign(key);
}

/** A new refresh token of the grant's family, stored by hash; the token itself is not kept. */
export async function mintRefreshToken(deps: TokenDeps, grant: Grant): Promise<{ token: string; hash: string }> {
  const token = randomToken();
  const hash = hashToken(token);
  const now = deps.config.now();
  const expiresAt = Math.min(
    now + deps.config.refreshTokenTtl * 1000,
    grant.signedInAt + deps.config.signInLifetime * 1000,
  );
  await deps.store.putRefresh(hash, {
    familyId: grant.familyId,
    clientId: grant.clientId,
    subject: grant.subject,
    identity: grant.identity,
    scopes: grant.scopes,
    resource: grant.resource,
    signedInAt: grant.signedInAt,
    checkedAt: grant.checkedAt,
    expiresAt,
    revoked: false,
  });
  return { token, hash };
}

/** The token response for a refresh token already stored (and, for a rotation, already committed). */
export async function tokenResponse(deps: TokenDeps, grant: Grant, refreshToken: string): Promise<TokenResponse> {
  // A client in use is no longer an "unused registration": keep it as long as its refresh token.
  await deps.store.extendClient(grant.clientId, deps.config.now() + deps.config.refreshTokenTtl * 1000);
  const lifetime = accessTokenLifetime(deps, grant);
  return {
    access_token: await signAccessToken(deps, grant, lifetime),
    token_type: "Bearer",
    expires_in: lifetime,
    refresh_token: refreshToken,
    scope: grant.scopes.join(" "),
  };
}

export async function issueTokens(deps: TokenDeps, grant: Grant): Promise<TokenResponse> {
  const { token } = await mintRefreshToken(deps, grant);
  return tokenResponse(deps, grant, token);
}
