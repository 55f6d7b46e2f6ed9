/**
 * `POST /token`: the authorization-code grant (PKCE S256, same client and redirect URI, single
 * use — a replayed code revokes what it issued) and the refresh-token grant (rotation on every
 * use; reuse of a rotated token revokes the family, except within a short grace window for a
 * client retrying a response it lost). The access policy is applied again on every grant.
 */
import type { Deps } from "../context.ts";
import { hashToken, s256, safeEqual } from "../crypto.ts";
import { BadRequest, type Route, jsonResponse, oauthError, preflight, readForm, single } from "../http.ts";
import { type Identity, grantScopes } from "../policy.ts";
import { issueTokens } from "../tokens.ts";

export function tokenRoutes(deps: Deps): Route[] {
  return [
    { method: "POST", path: "/token", handle: (request) => token(deps, request) },
    { method: "OPTIONS", path: "/token", handle: preflight() },
  ];
}

async function token(deps: Deps, request: Request): Promise<Response> {
  let form: URLSearchParams;
  try {
    form = await readForm(request);
    if (request.headers.get("authorization")) {
      return oauthError(
        "invalid_client",
        "this server only has public clients: send client_id in the body and no Authorization header.",
        401,
      );
    }
    const grantType = single(form, "grant_type");
    const clientId = single(form, "client_id");
    if (!clientId)
      return oauthError("invalid_request", "client_id is required (public clients identify themselves in the body).");
    if (grantType === "authorization_code") return await redeemCode(deps, form, clientId);
    if (grantType === "refresh_token") return await refresh(deps, form, clientId);
    return oauthError("unsupported_grant_type", 'grant_type must be "authorization_code" or "refresh_token".');
  } catch (error) {
    if (error instanceof BadRequest) return oauthError("invalid_request", error.message);
    throw error;
  }
}

function checkResource(deps: Deps, form: URLSearchParams, granted: string): Response | undefined {
  const resources = form.getAll("resource");
  if (resources.length > 1 || (resources.length === 1 && resources[0] !== granted && resources[0] !== `${granted}/`)) {
    return oauthError("invalid_target", `resource must be this server's MCP URL, ${deps.config.resource}.`);
  }
  return undefined;
}

/** The scopes the policy still allows; none means the user lost access since signing in. */
function allowedNow(deps: Deps, identity: Identity, scopes: string[]): string[] {
  return grantScopes(deps.config.policy, identity, scopes);
}

async function redeemCode(deps: Deps, form: URLSearchParams, clientId: string): Promise<Response> {
  const code = single(form, "code");
  const redirectUri = single(form, "redirect_uri");
  const verifier = single(form, "code_verifier");
  if (!code || !verifier) return oauthError("invalid_request", "code and code_verifier are required (PKCE).");
  const taken = await deps.store.takeCode(hashToken(code), Date.now());
  if (taken.status === "replayed") {
    const revoked = await deps.store.revokeFamily(taken.code.familyId);
    deps.log.warn("authorization code replayed; revoking the tokens it issued", {
      client_id: taken.code.clientId,
      revoked,
    });
    return oauthError(
      "invalid_grant",
      "this authorization code was already used; the tokens issued with it are revoked. Start a new authorization.",
    );
  }
  if (taken.status === "unknown")
    return oauthError(
      "invalid_grant",
      "the authorization code is unknown or expired (codes live at most 5 minutes); start a new authorization.",
    );
  const granted = taken.code;
  if (granted.clientId !== clientId)
    return oauthError("invalid_grant", "the authorization code was issued to another client.");
  if (redirectUri !== granted.redirectUri)
    return oauthError("invalid_grant", "redirect_uri must be exactly the one used in the authorization request.");
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !safeEqual(s256(verifier), granted.codeChallenge)) {
    return oauthError("invalid_grant", "code_verifier does not match the code_challenge (PKCE S256).");
  }
  const wrongResource = checkResource(deps, form, granted.resource);
  if (wrongResource) return wrongResource;
  const scopes = allowedNow(deps, granted.identity, granted.scopes);
  if (scopes.length === 0) return oauthError("invalid_grant", "the access policy no longer allows this user.");
  const tokens = await issueTokens(deps, { ...granted, scopes });
  deps.log.info("tokens issued", { client_id: clientId, grant: "authorization_code" });
  return jsonResponse(tokens);
}

async function refresh(deps: Deps, form: URLSearchParams, clientId: string): Promise<Response> {
  const presented = single(form, "refresh_token");
  if (!presented) return oauthError("invalid_request", "refresh_token is required.");
  const hash = hashToken(presented);
  const known = await deps.store.findRefresh(hash);
  // Checked before rotating, so another client cannot burn a token it stole but cannot use.
  if (!known || known.clientId !== clientId)
    return oauthError(
      "invalid_grant",
      "the refresh token is unknown, expired or belongs to another client; sign in again.",
    );
  const now = Date.now();
  const rotation = await deps.store.rotateRefresh(hash, now);
  if (!("token" in rotation)) {
    return oauthError("invalid_grant", "the refresh token is expired or revoked; sign in again.");
  }
  if (rotation.status === "rotated") {
    const age = now - (rotation.token.rotatedAt ?? 0);
    if (age > deps.config.refreshGrace * 1000) {
      const revoked = await deps.store.revokeFamily(rotation.token.familyId);
      deps.log.warn("rotated refresh token reused; revoking its family", { client_id: clientId, revoked });
      return oauthError(
        "invalid_grant",
        "this refresh token was already used; for safety every token of this sign-in is revoked. Sign in again.",
      );
    }
  }
  const current = rotation.token;
  const wrongResource = checkResource(deps, form, current.resource);
  if (wrongResource) return wrongResource;
  const scopeText = single(form, "scope");
  const requested = scopeText ? scopeText.split(" ").filter(Boolean) : current.scopes;
  if (requested.some((scope) => !current.scopes.includes(scope))) {
    return oauthError(
      "invalid_scope",
      `a refresh can only narrow the scopes; this grant has ${current.scopes.join(" ")}.`,
    );
  }
  const scopes = allowedNow(deps, current.identity, requested);
  if (scopes.length === 0) {
    await deps.store.revokeFamily(current.familyId);
    return oauthError("invalid_grant", "the access policy no longer allows this user; sign in again.");
  }
  const tokens = await issueTokens(deps, { ...current, scopes });
  deps.log.info("tokens issued", { client_id: clientId, grant: "refresh_token" });
  return jsonResponse(tokens);
}
