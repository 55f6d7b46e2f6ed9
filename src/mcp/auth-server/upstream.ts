/**
 * The upstream leg: mcpkit as an OAuth client of the identity provider (oauth4webapi), with its
 * own fixed callback and its own PKCE pair. Generic OIDC by issuer discovery, or GitHub (OAuth
 * 2.0, identity through its REST API). Upstream tokens never reach mcpkit's clients.
 */
import * as oauth from "oauth4webapi";
import { stripControl } from "../../core/text.ts";
import { isLoopbackName, type UpstreamConfig } from "./config.ts";
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

export class UpstreamError extends Error {
  /** `access_denied` and friends, when the IdP itself said no. */
  constructor(
    message: string,
    readonly idpError?: string,
  ) {
    super(message);
  }
}

export interface Upstream {
  readonly label: string;
  authorizationUrl(pending: PendingUpstream): Promise<string>;
  /** Validates the callback (state, `iss`), redeems the code, and learns who signed in. */
  complete(callback: URL, pending: PendingUpstream): Promise<UpstreamResult>;
}

export function createUpstream(config: UpstreamConfig, callbackUrl: string, wantOrgs: boolean): Upstream {
  return config.kind === "oidc"
    ? createOidcUpstream(config, callbackUrl)
    : createGithubUpstream(config, callbackUrl, wantOrgs);
}

function insecureFor(url: string): Record<symbol, boolean> {
  // Plain http only for a loopback test IdP (config validation refuses it elsewhere).
  return new URL(url).protocol === "http:" && isLoopbackName(new URL(url).hostname)
    ? { [oauth.allowInsecureRequests]: true }
    : {};
}

function tokensOf(response: oauth.TokenEndpointResponse): UpstreamTokens {
  return {
    access_token: response.access_token,
    refresh_token: response.refresh_token,
    expires_at:
      typeof response.expires_in === "number" ? Math.floor(Date.now() / 1000) + response.expires_in : undefined,
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

function rethrow(error: unknown): never {
  if (error instanceof oauth.AuthorizationResponseError) {
    throw new UpstreamError(`the identity provider refused the sign-in (${stripControl(error.error)}).`, error.error);
  }
  if (error instanceof UpstreamError) throw error;
  const message = error instanceof Error ? stripControl(error.message) : "unknown error";
  throw new UpstreamError(`the identity provider's answer could not be verified: ${message}`);
}

function createOidcUpstream(config: Extract<UpstreamConfig, { kind: "oidc" }>, callbackUrl: string): Upstream {
  const client: oauth.Client = { client_id: config.clientId };
  const clientAuth = config.clientSecret ? oauth.ClientSecretPost(config.clientSecret) : oauth.None();
  const options = () => ({ ...insecureFor(config.issuer), signal: AbortSignal.timeout(TIMEOUT_MS) });
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
      throw new UpstreamError(
        `the identity provider's discovery document could not be loaded: ${error instanceof Error ? stripControl(error.message) : "unknown error"}`,
      );
    });
    return metadata;
  };
  const scope = (config.scopes ?? ["openid", "email", "profile"]).join(" ");

  return {
    label: new URL(config.issuer).host,
    async authorizationUrl(pending) {
      const as = await server();
      if (!as.authorization_endpoint)
        throw new UpstreamError("the identity provider's metadata names no authorization_endpoint.");
      return withParams(
        as.authorization_endpoint,
        await authorizationParams(pending, config.clientId, callbackUrl, scope),
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
        return { identity: oidcIdentity(claims.sub, profile), tokens: tokensOf(result) };
      } catch (error) {
        rethrow(error);
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
    const response = await fetch(`${api}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "user-agent": "mcpkit",
        "x-github-api-version": "2022-11-28",
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok) throw new UpstreamError(`GitHub's API answered HTTP ${response.status} for ${path}.`);
    return (await response.json()) as T;
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
          { ...insecureFor(web), signal: AbortSignal.timeout(TIMEOUT_MS) },
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response);
        const token = result.access_token;
        const user = await getJson<{ id: number; login: string }>("/user", token);
        const emails = await getJson<{ email: string; verified: boolean }[]>("/user/emails", token).catch(() => []);
        const orgs = wantOrgs ? await getJson<{ login: string }[]>("/user/orgs", token) : [];
        const login = stripControl(String(user.login));
        return {
          identity: {
            subject: `github:${user.id}`,
            upstreamSubject: String(user.id),
            emails: emails.filter((entry) => entry.verified).map((entry) => entry.email.toLowerCase()),
            displayName: login,
            github: { login: login.toLowerCase(), orgs: orgs.map((org) => String(org.login).toLowerCase()) },
          },
          tokens: tokensOf(result),
        };
      } catch (error) {
        rethrow(error);
      }
    },
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
