/**
 * A generic OpenID Connect identity provider, found by issuer discovery: who signed in comes from
 * the ID token (and userinfo when the token has no email), and a re-check refreshes the upstream
 * tokens to ask again.
 */
import * as oauth from "oauth4webapi";
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
  requestOptions,
  redeemUpstreamCode,
  rethrow,
  rethrowRecheck,
  stillValid,
  tokensOf,
  upstreamDenied,
  upstreamFailed,
  withParams,
} from "./client.ts";

export class OidcUpstream implements Upstream {
  readonly label: string;
  private readonly client: oauth.Client;
  private readonly clientAuth: oauth.ClientAuth;
  /** The discovery document, loaded at the first sign-in; a failure is forgotten so the next one tries again. */
  private metadata: Promise<oauth.AuthorizationServer> | undefined;

  constructor(
    private readonly config: Extract<UpstreamConfig, { kind: "oidc" }>,
    private readonly callbackUrl: string,
    private readonly clock: () => number,
  ) {
    this.label = new URL(config.issuer).host;
    this.client = { client_id: config.clientId };
    this.clientAuth = config.clientSecret ? oauth.ClientSecretPost(config.clientSecret) : oauth.None();
  }

  async authorizationUrl(pending: PendingUpstream): Promise<string> {
    const as = await this.server();
    if (!as.authorization_endpoint)
      throw upstreamFailed("the identity provider's metadata names no authorization_endpoint.");
    return withParams(
      as.authorization_endpoint,
      await authorizationParams(pending, this.config.clientId, this.callbackUrl, this.scopeFor(as)),
    );
  }

  async complete(callback: URL, pending: PendingUpstream): Promise<UpstreamResult> {
    const as = await this.server();
    const { client, clientAuth, callbackUrl } = this;
    try {
      const response = await redeemUpstreamCode(
        { as, client, clientAuth, callback, pending, callbackUrl },
        this.options(),
      );
      const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: pending.nonce,
        requireIdToken: true,
      });
      const claims = oauth.getValidatedIdTokenClaims(result) as oauth.IDToken;
      let profile: Record<string, unknown> = claims;
      if (claims.email === undefined && as.userinfo_endpoint) {
        const info = await oauth.userInfoRequest(as, client, result.access_token, this.options());
        profile = { ...(await oauth.processUserInfoResponse(as, client, claims.sub, info)), ...claims };
      }
      return { identity: oidcIdentity(claims.sub, profile), tokens: tokensOf(result, this.clock) };
    } catch (error) {
      rethrow(error);
    }
  }

  async recheck(tokens: UpstreamTokens, previous: Identity): Promise<RecheckResult | undefined> {
    const as = await this.server();
    const { client, clientAuth } = this;
    try {
      let current: UpstreamTokens = tokens;
      let claims: Record<string, unknown> = {};
      if (tokens.refresh_token) {
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuth,
          tokens.refresh_token,
          this.options(),
        );
        const result = await oauth.processRefreshTokenResponse(as, client, response);
        current = { ...tokensOf(result, this.clock), refresh_token: result.refresh_token ?? tokens.refresh_token };
        claims = (oauth.getValidatedIdTokenClaims(result) as Record<string, unknown> | undefined) ?? {};
      } else if (!stillValid(tokens, this.clock) || !as.userinfo_endpoint) {
        return undefined;
      }
      if (claims.sub !== undefined && claims.sub !== previous.upstreamSubject)
        throw upstreamDenied("the identity provider answered for another subject.");
      if (claims.email === undefined && as.userinfo_endpoint) {
        const info = await oauth.userInfoRequest(as, client, current.access_token, this.options());
        claims = { ...(await oauth.processUserInfoResponse(as, client, previous.upstreamSubject, info)), ...claims };
      }
      // No ID token and no userinfo: nothing says who the user is now, only that the grant lives.
      if (claims.sub === undefined) return { tokens: current };
      return { identity: oidcIdentity(previous.upstreamSubject, claims), tokens: current };
    } catch (error) {
      rethrowRecheck(error);
    }
  }

  private options() {
    return { ...requestOptions(this.config.issuer), signal: AbortSignal.timeout(TIMEOUT_MS) };
  }

  private server(): Promise<oauth.AuthorizationServer> {
    this.metadata ??= (async () => {
      const issuer = new URL(this.config.issuer);
      return oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { ...this.options(), algorithm: "oidc" }),
      );
    })().catch((error: unknown) => {
      this.metadata = undefined; // the next sign-in tries discovery again
      throw upstreamFailed(
        `the identity provider's discovery document could not be loaded: ${error instanceof Error ? stripControl(error.message) : "unknown error"}`,
      );
    });
    return this.metadata;
  }

  /**
   * offline_access where the IdP offers it: an upstream refresh token is what lets a later
   * refresh ask the IdP again who the user is (without one, the sign-in ends at the first re-check).
   */
  private scopeFor(as: oauth.AuthorizationServer): string {
    return (
      this.config.scopes ?? [
        "openid",
        "email",
        "profile",
        ...(as.scopes_supported?.includes("offline_access") ? ["offline_access"] : []),
      ]
    ).join(" ");
  }
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
