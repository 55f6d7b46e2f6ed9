/**
 * The upstream leg: mcpkit as an OAuth client of the identity provider (oauth4webapi), with its
 * own fixed callback and its own PKCE pair. Generic OIDC by issuer discovery, or GitHub (OAuth
 * 2.0, identity through its REST API). Upstream tokens never reach mcpkit's clients.
 */
import * as oauth from "oauth4webapi";
import { upstreamFetch } from "../../core/telemetry/index.ts";
import { stripControl } from "../../core/text.ts";
import { isLoopbackName, type UpstreamConfig } from "./config.ts";
import { OAuthFailure } from "./errors.ts";
import type { Identity } from "./policy.ts";

const TIMEOUT_MS = 10_000;

export interface UpstreamTokens {
  access_token: string;
  refresh_token?: string;
  /** Seconds since the epoch, when the IdP said. */
  expires_at?: number;
}

export interface UpstreamResult {
  identity: Identity;
  tokens: UpstreamTokens;
}

export interface PendingUpstream {
  state: string;
  verifier: string;
  nonce?: string;
}

/**
 * The IdP failed us: `access_denied` when it refused the sign-in itself, else it could not be
 * reached or its answer did not verify. The routes decide what their reader sees.
 */
const upstreamFailed = (message: string, refusedSignIn = false) =>
  new OAuthFailure(refusedSignIn ? "access_denied" : "temporarily_unavailable", message, { status: 502 });

/** The IdP itself says the user's grant is gone (refresh refused, token rejected, another subject). */
const upstreamDenied = (message: string) => new OAuthFailure("invalid_grant", message);

export function isUpstreamDenial(error: unknown): error is OAuthFailure {
  return error instanceof OAuthFailure && error.code === "invalid_grant";
}

export interface Upstream {
  readonly label: string;
  authorizationUrl(pending: PendingUpstream): Promise<string>;
  /** Validates the callback (state, `iss`), redeems the code, and learns who signed in. */
  complete(callback: URL, pending: PendingUpstream): Promise<UpstreamResult>;
  /**
   * Asks the IdP again who holds these (stored) tokens: the current identity and the tokens to keep
   * (a refreshed pair), `undefined` when the stored tokens cannot ask any more (nothing to refresh
   * with and the access token expired). Throws an `invalid_grant` failure (`isUpstreamDenial`)
   * when the IdP refuses the user, another failure when it cannot be reached.
   */
  recheck(tokens: UpstreamTokens, previous: Identity): Promise<RecheckResult | undefined>;
}

/** `identity` absent: the IdP accepted the tokens (so the grant lives) but said nothing about the user. */
export interface RecheckResult {
  identity?: Identity;
  tokens: UpstreamTokens;
}

/** `now`: the authorization server's clock, so an upstream token's expiry is judged on the same time as its grants. */
export function createUpstream(
  config: UpstreamConfig,
  callbackUrl: string,
  wantOrgs: boolean,
  now: () => number = Date.now,
): Upstream {
  return config.kind === "oidc"
    ? createOidcUpstream(config, callbackUrl, now)
    : createGithubUpstream(config, callbackUrl, wantOrgs, now);
}

/**
 * What every oauth4webapi request to the IdP at `url` is sent with: `upstreamFetch` (a CLIENT span
 * that sends traceparent, with OpenTelemetry on), and plain http only for a loopback test IdP
 * (config validation refuses it elsewhere).
 */
function requestOptions(url: string): Record<symbol, unknown> {
  const options: Record<symbol, unknown> = { [oauth.customFetch]: upstreamFetch };
  if (new URL(url).protocol === "http:" && isLoopbackName(new URL(url).hostname)) {
    options[oauth.allowInsecureRequests] = true;
  }
  return options;
}

function tokensOf(response: oauth.TokenEndpointResponse, clock: () => number): UpstreamTokens {
  return {
    access_token: response.access_token,
    refresh_token: response.refresh_token,
    expires_at: typeof response.expires_in === "number" ? Math.floor(clock() / 1000) + response.expires_in : undefined,
  };
}

async function authorizationParams(pending: PendingUpstream, clientId: string, callbackUrl: string, scope: string) {
  return {
    response_type: "code",
    client_id: clientId,
    redirect_uri: callbackUrl,
    scope,
    state: pending.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: "S256",
    ...(pending.nonce ? { nonce: pending.nonce } : {}),
  };
}

/** What a failed re-check means: the IdP refused (revoke) or could not answer (try again later). */
function rethrowRecheck(error: unknown): never {
  if (isUpstreamDenial(error)) throw error;
  if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant")
    throw upstreamDenied("the identity provider refused to refresh the user's grant (invalid_grant).");
  if (
    error instanceof oauth.WWWAuthenticateChallengeError ||
    // Only a token the IdP refuses speaks about the user; 401 invalid_client is about mcpkit's own
    // credentials (an expired client secret) and must not sign every user out: a 503, retried later.
    (error instanceof oauth.ResponseBodyError && error.status === 401 && error.error === "invalid_token")
  )
    throw upstreamDenied("the identity provider no longer accepts the user's token.");
  rethrow(error);
}

const stillValid = (tokens: UpstreamTokens, clock: () => number) =>
  tokens.expires_at === undefined || tokens.expires_at * 1000 > clock() + 5000;

function rethrow(error: unknown): never {
  if (error instanceof oauth.AuthorizationResponseError) {
    throw upstreamFailed(`the identity provider refused the sign-in (${stripControl(error.error)}).`, true);
  }
  // A denial inside a sign-in is an answer that could not be used, like any other.
  if (error instanceof OAuthFailure && !isUpstreamDenial(error)) throw error;
  const message = error instanceof Error ? stripControl(error.message) : "unknown error";
  throw upstreamFailed(`the identity provider's answer could not be verified: ${message}`);
}

function createOidcUpstream(
  config: Extract<UpstreamConfig, { kind: "oidc" }>,
  callbackUrl: string,
  clock: () => number,
): Upstream {
  const client: oauth.Client = { client_id: config.clientId };
  const clientAuth = config.clientSecret ? oauth.ClientSecretPost(config.clientSecret) : oauth.None();
  const options = () => ({ ...requestOptions(config.issuer), signal: AbortSignal.timeout(TIMEOUT_MS) });
  let metadata: Promise<oauth.AuthorizationServer> | undefined;
  const server = () => {
    metadata ??= (async () => {
      const issuer = new URL(config.issuer);
      return oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { ...options(), algorithm: "oidc" }),
      );
    })().catch((error: unknown) => {
      metadata = undefined; // the next sign-in tries discovery again
      throw upstreamFailed(
        `the identity provider's discovery document could not be loaded: ${error instanceof Error ? stripControl(error.message) : "unknown error"}`,
      );
    });
    return metadata;
  };
  // offline_access where the IdP offers it: an upstream refresh token is what lets a later
  // refresh ask the IdP again who the user is (without one, the sign-in ends at the first re-check).
  const scopeFor = (as: oauth.AuthorizationServer) =>
    (
      config.scopes ?? [
        "openid",
        "email",
        "profile",
        ...(as.scopes_supported?.includes("offline_access") ? ["offline_access"] : []),
      ]
    ).join(" ");

  return {
    label: new URL(config.issuer).host,
    async authorizationUrl(pending) {
      const as = await server();
      if (!as.authorization_endpoint)
        throw upstreamFailed("the identity provider's metadata names no authorization_endpoint.");
      return withParams(
        as.authorization_endpoint,
        await authorizationParams(pending, config.clientId, callbackUrl, scopeFor(as)),
      );
    },
    async complete(callback, pending) {
      const as = await server();
      try {
        const response = await redeemUpstreamCode(
          { as, client, clientAuth, callback, pending, callbackUrl },
          options(),
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
          expectedNonce: pending.nonce,
          requireIdToken: true,
        });
        const claims = oauth.getValidatedIdTokenClaims(result) as oauth.IDToken;
        let profile: Record<string, unknown> = claims;
        if (claims.email === undefined && as.userinfo_endpoint) {
          const info = await oauth.userInfoRequest(as, client, result.access_token, options());
          profile = { ...(await oauth.processUserInfoResponse(as, client, claims.sub, info)), ...claims };
        }
        return { identity: oidcIdentity(claims.sub, profile), tokens: tokensOf(result, clock) };
      } catch (error) {
        rethrow(error);
      }
    },
    async recheck(tokens, previous) {
      const as = await server();
      try {
        let current: UpstreamTokens = tokens;
        let claims: Record<string, unknown> = {};
        if (tokens.refresh_token) {
          const response = await oauth.refreshTokenGrantRequest(
            as,
            client,
            clientAuth,
            tokens.refresh_token,
            options(),
          );
          const result = await oauth.processRefreshTokenResponse(as, client, response);
          current = { ...tokensOf(result, clock), refresh_token: result.refresh_token ?? tokens.refresh_token };
          claims = (oauth.getValidatedIdTokenClaims(result) as Record<string, unknown> | undefined) ?? {};
        } else if (!stillValid(tokens, clock) || !as.userinfo_endpoint) {
          return undefined;
        }
        if (claims.sub !== undefined && claims.sub !== previous.upstreamSubject)
          throw upstreamDenied("the identity provider answered for another subject.");
        if (claims.email === undefined && as.userinfo_endpoint) {
          const info = await oauth.userInfoRequest(as, client, current.access_token, options());
          claims = { ...(await oauth.processUserInfoResponse(as, client, previous.upstreamSubject, info)), ...claims };
        }
        // No ID token and no userinfo: nothing says who the user is now, only that the grant lives.
        if (claims.sub === undefined) return { tokens: current };
        return { identity: oidcIdentity(previous.upstreamSubject, claims), tokens: current };
      } catch (error) {
        rethrowRecheck(error);
      }
    },
  };
}

function oidcIdentity(sub: string, profile: Record<string, unknown>): Identity {
  const email = typeof profile.email === "string" ? profile.email.toLowerCase() : undefined;
  // An unverified email is only a claim the user typed; policy rules match verified ones only.
  const verified = email !== undefined && (profile.email_verified === true || profile.email_verified === "true");
  const name = [email, profile.preferred_username, profile.name].find(
    (item): item is string => typeof item === "string" && item.length > 0,
  );
  return {
    subject: `oidc:${sub}`,
    upstreamSubject: sub,
    emails: verified && email ? [email] : [],
    displayName: stripControl(name ?? sub),
  };
}

function createGithubUpstream(
  config: Extract<UpstreamConfig, { kind: "github" }>,
  callbackUrl: string,
  wantOrgs: boolean,
  clock: () => number,
): Upstream {
  const web = (config.authorizeBase ?? "https://github.com").replace(/\/+$/, "");
  const api = (config.apiBase ?? "https://api.github.com").replace(/\/+$/, "");
  const as: oauth.AuthorizationServer = {
    issuer: web,
    authorization_endpoint: `${web}/login/oauth/authorize`,
    token_endpoint: `${web}/login/oauth/access_token`,
  };
  const client: oauth.Client = { client_id: config.clientId };
  const clientAuth = oauth.ClientSecretPost(config.clientSecret);
  const scope = ["read:user", "user:email", ...(wantOrgs ? ["read:org"] : [])].join(" ");

  const getJson = async <T>(path: string, token: string): Promise<T> => {
    const response = await upstreamFetch(`${api}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "user-agent": "mcpkit",
        "x-github-api-version": "2022-11-28",
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (response.status === 401) throw upstreamDenied(`GitHub no longer accepts the user's token (${path}).`);
    if (!response.ok) throw upstreamFailed(`GitHub's API answered HTTP ${response.status} for ${path}.`);
    return (await response.json()) as T;
  };

  const refreshGithubToken = async (refreshToken: string): Promise<UpstreamTokens> => {
    try {
      const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, {
        ...requestOptions(web),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      // GitHub answers a refused refresh with HTTP 200 and an `error` field.
      const body = (await response
        .clone()
        .json()
        .catch(() => undefined)) as { error?: unknown } | undefined;
      if (body?.error === "bad_refresh_token")
        throw upstreamDenied("GitHub refused to refresh the user's token (bad_refresh_token).");
      const result = await oauth.processRefreshTokenResponse(as, client, response);
      return { ...tokensOf(result, clock), refresh_token: result.refresh_token ?? refreshToken };
    } catch (error) {
      rethrowRecheck(error);
    }
  };

  return {
    label: new URL(web).host,
    async authorizationUrl(pending) {
      return withParams(
        as.authorization_endpoint as string,
        await authorizationParams(pending, config.clientId, callbackUrl, scope),
      );
    },
    async complete(callback, pending) {
      try {
        const response = await redeemUpstreamCode(
          { as, client, clientAuth, callback, pending, callbackUrl },
          { ...requestOptions(web), signal: AbortSignal.timeout(TIMEOUT_MS) },
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response);
        const token = result.access_token;
        const user = await getJson<{ id: number; login: string }>("/user", token);
        const emails = await getJson<{ email: string; verified: boolean }[]>("/user/emails", token).catch(() => []);
        const orgs = wantOrgs ? await getJson<{ login: string }[]>("/user/orgs", token) : [];
        return {
          identity: githubIdentity(user, emails, orgs),
          tokens: tokensOf(result, clock),
        };
      } catch (error) {
        rethrow(error);
      }
    },
    async recheck(stored, previous) {
      // GitHub OAuth-app tokens do not expire; one the user or an admin revoked answers 401. A
      // GitHub App's user token expires (8 h) and comes with a refresh token to renew it.
      let tokens = stored;
      if (!stillValid(stored, clock)) {
        if (!stored.refresh_token) return undefined;
        tokens = await refreshGithubToken(stored.refresh_token);
      }
      const user = await getJson<{ id: number; login: string }>("/user", tokens.access_token);
      if (String(user.id) !== previous.upstreamSubject) throw upstreamDenied("GitHub answered for another user.");
      const orgs = wantOrgs ? await getJson<{ login: string }[]>("/user/orgs", tokens.access_token) : [];
      const identity = githubIdentity(user, [], orgs);
      try {
        const emails = await getJson<{ email: string; verified: boolean }[]>("/user/emails", tokens.access_token);
        identity.emails = githubIdentity(user, emails, orgs).emails;
      } catch (error) {
        if (isUpstreamDenial(error)) throw error;
        // As at sign-in, the email list is optional; a hiccup must not strip addresses --allow matches.
        identity.emails = previous.emails;
      }
      return { identity, tokens };
    },
  };
}

function githubIdentity(
  user: { id: number; login: string },
  emails: { email: string; verified: boolean }[],
  orgs: { login: string }[],
): Identity {
  const login = stripControl(String(user.login));
  return {
    subject: `github:${user.id}`,
    upstreamSubject: String(user.id),
    emails: emails.filter((entry) => entry.verified).map((entry) => entry.email.toLowerCase()),
    displayName: login,
    github: { login: login.toLowerCase(), orgs: orgs.map((org) => String(org.login).toLowerCase()) },
  };
}

function withParams(endpoint: string, params: Record<string, string>): string {
  const url = new URL(endpoint);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** Checks the callback against the pending sign-in (state, iss) and exchanges its code with our PKCE verifier. */
function redeemUpstreamCode(
  leg: {
    as: oauth.AuthorizationServer;
    client: oauth.Client;
    clientAuth: oauth.ClientAuth;
    callback: URL;
    pending: { state: string; verifier: string };
    callbackUrl: string;
  },
  requestOptions: oauth.TokenEndpointRequestOptions,
): Promise<Response> {
  const params = oauth.validateAuthResponse(leg.as, leg.client, leg.callback, leg.pending.state);
  return oauth.authorizationCodeGrantRequest(
    leg.as,
    leg.client,
    leg.clientAuth,
    params,
    leg.callbackUrl,
    leg.pending.verifier,
    requestOptions,
  );
}
