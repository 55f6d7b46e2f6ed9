/**
 * GitHub as the identity provider: OAuth 2.0 without OpenID Connect, so who signed in comes from
 * its REST API (the user, their verified emails, their organizations when a policy needs them).
 */
import * as oauth from "oauth4webapi";
import { upstreamFetch } from "../../../core/telemetry/index.ts";
import { stripControl } from "../../../core/text.ts";
import type { UpstreamConfig } from "../config.ts";
import type { Identity } from "../policy.ts";
import {
  type PendingUpstream,
  type RecheckResult,
  TIMEOUT_MS,
  type Upstream,
  type UpstreamResult,
  type UpstreamTokens,
  authorizationParams,
  idpJson,
  requestOptions,
  isUpstreamDenial,
  redeemUpstreamCode,
  rethrow,
  rethrowRecheck,
  stillValid,
  tokensOf,
  upstreamDenied,
  upstreamFailed,
  withParams,
} from "./client.ts";

type GithubUser = { id: number; login: string };
type GithubEmail = { email: string; verified: boolean };

export class GithubUpstream implements Upstream {
  readonly label: string;
  private readonly web: string;
  private readonly api: string;
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly clientAuth: oauth.ClientAuth;
  private readonly scope: string;

  constructor(
    private readonly config: Extract<UpstreamConfig, { kind: "github" }>,
    private readonly callbackUrl: string,
    private readonly wantOrgs: boolean,
    private readonly clock: () => number,
  ) {
    this.web = (config.authorizeBase ?? "https://github.com").replace(/\/+$/, "");
    this.api = (config.apiBase ?? "https://api.github.com").replace(/\/+$/, "");
    this.label = new URL(this.web).host;
    this.as = {
      issuer: this.web,
      authorization_endpoint: `${this.web}/login/oauth/authorize`,
      token_endpoint: `${this.web}/login/oauth/access_token`,
    };
    this.client = { client_id: config.clientId };
    this.clientAuth = oauth.ClientSecretPost(config.clientSecret);
    this.scope = ["read:user", "user:email", ...(wantOrgs ? ["read:org"] : [])].join(" ");
  }

  async authorizationUrl(pending: PendingUpstream): Promise<string> {
    return withParams(
      this.as.authorization_endpoint as string,
      await authorizationParams(pending, this.config.clientId, this.callbackUrl, this.scope),
    );
  }

  async complete(callback: URL, pending: PendingUpstream): Promise<UpstreamResult> {
    const { as, client, clientAuth, callbackUrl } = this;
    try {
      const response = await redeemUpstreamCode(
        { as, client, clientAuth, callback, pending, callbackUrl },
        { ...requestOptions(this.web), signal: AbortSignal.timeout(TIMEOUT_MS) },
      );
      const result = await oauth.processAuthorizationCodeResponse(as, client, response);
      const token = result.access_token;
      const user = await this.getJson<GithubUser>("/user", token);
      const emails = await this.getJson<GithubEmail[]>("/user/emails", token).catch(() => []);
      const orgs = this.wantOrgs ? await this.getJson<{ login: string }[]>("/user/orgs", token) : [];
      return {
        identity: githubIdentity(user, emails, orgs),
        tokens: tokensOf(result, this.clock),
      };
    } catch (error) {
      rethrow(error);
    }
  }

  async recheck(stored: UpstreamTokens, previous: Identity): Promise<RecheckResult | undefined> {
    // GitHub OAuth-app tokens do not expire; one the user or an admin revoked answers 401. A
    // GitHub App's user token expires (8 h) and comes with a refresh token to renew it.
    let tokens = stored;
    if (!stillValid(stored, this.clock)) {
      if (!stored.refresh_token) return undefined;
      tokens = await this.refresh(stored.refresh_token);
    }
    const user = await this.getJson<GithubUser>("/user", tokens.access_token);
    if (String(user.id) !== previous.upstreamSubject) throw upstreamDenied("GitHub answered for another user.");
    const orgs = this.wantOrgs ? await this.getJson<{ login: string }[]>("/user/orgs", tokens.access_token) : [];
    const identity = githubIdentity(user, [], orgs);
    try {
      const emails = await this.getJson<GithubEmail[]>("/user/emails", tokens.access_token);
      identity.emails = githubIdentity(user, emails, orgs).emails;
    } catch (error) {
      if (isUpstreamDenial(error)) throw error;
      // As at sign-in, the email list is optional; a hiccup must not strip addresses --allow matches.
      identity.emails = previous.emails;
    }
    return { identity, tokens };
  }

  private async getJson<T>(path: string, token: string): Promise<T> {
    const response = await upstreamFetch(`${this.api}${path}`, {
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
    return (await idpJson(response, `${this.api}${path}`)) as T;
  }

  private async refresh(refreshToken: string): Promise<UpstreamTokens> {
    const { as, client, clientAuth } = this;
    try {
      const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, {
        ...requestOptions(this.web),
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
      return { ...tokensOf(result, this.clock), refresh_token: result.refresh_token ?? refreshToken };
    } catch (error) {
      rethrowRecheck(error);
    }
  }
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
