/**
 * What both upstream providers share (`oidc.ts`, `github.ts`): the contract the routes use, how
 * the IdP's failures read, and the OAuth client steps (oauth4webapi) that do not depend on the
 * provider.
 */
import * as oauth from "oauth4webapi";
import { bufferedAnswer } from "../../../core/read-at-most.ts";
import { upstreamFetch } from "../../../core/telemetry/index.ts";
import { stripControl } from "../../../core/text.ts";
import { isLoopbackName } from "../config.ts";
import { OAuthFailure } from "../errors.ts";
import type { Identity } from "../policy.ts";

export const TIMEOUT_MS = 10_000;
/**
 * The most of any one answer of the IdP read (discovery, tokens, JWKS, user info: a few kilobytes
 * each): one that sends more, or never stops, fails the step instead of filling the server's memory.
 */
export const IDP_ANSWER_MAX_BYTES = 1024 * 1024;

const idpAnswerTooLarge = (url: string) => () =>
  upstreamFailed(
    `the identity provider's answer from ${new URL(url).host} is larger than ${IDP_ANSWER_MAX_BYTES} bytes.`,
  );

/** `upstreamFetch` with the answer read at most IDP_ANSWER_MAX_BYTES, for oauth4webapi, which reads any size. */
async function cappedUpstreamFetch(url: string, init?: RequestInit): Promise<Response> {
  return bufferedAnswer(await upstreamFetch(url, init), IDP_ANSWER_MAX_BYTES, idpAnswerTooLarge(url));
}

/** An answer of the IdP as JSON, read at most IDP_ANSWER_MAX_BYTES. */
export async function idpJson(response: Response, url: string): Promise<unknown> {
  return (await bufferedAnswer(response, IDP_ANSWER_MAX_BYTES, idpAnswerTooLarge(url))).json();
}

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
export const upstreamFailed = (message: string, refusedSignIn = false) =>
  new OAuthFailure(refusedSignIn ? "access_denied" : "temporarily_unavailable", message, { status: 502 });

/** The IdP itself says the user's grant is gone (refresh refused, token rejected, another subject). */
export const upstreamDenied = (message: string) => new OAuthFailure("invalid_grant", message);

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

/**
 * What every oauth4webapi request to the IdP at `url` is sent with: `upstreamFetch` (a CLIENT span
 * that sends traceparent, with OpenTelemetry on), and plain http only for a loopback test IdP
 * (config validation refuses it elsewhere).
 */
export function requestOptions(url: string): Record<symbol, unknown> {
  const options: Record<symbol, unknown> = { [oauth.customFetch]: cappedUpstreamFetch };
  if (new URL(url).protocol === "http:" && isLoopbackName(new URL(url).hostname)) {
    options[oauth.allowInsecureRequests] = true;
  }
  return options;
}

export function tokensOf(response: oauth.TokenEndpointResponse, clock: () => number): UpstreamTokens {
  return {
    access_token: response.access_token,
    refresh_token: response.refresh_token,
    expires_at: typeof response.expires_in === "number" ? Math.floor(clock() / 1000) + response.expires_in : undefined,
  };
}

export async function authorizationParams(
  pending: PendingUpstream,
  clientId: string,
  callbackUrl: string,
  scope: string,
) {
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
export function rethrowRecheck(error: unknown): never {
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

export const stillValid = (tokens: UpstreamTokens, clock: () => number) =>
  tokens.expires_at === undefined || tokens.expires_at * 1000 > clock() + 5000;

export function rethrow(error: unknown): never {
  if (error instanceof oauth.AuthorizationResponseError) {
    throw upstreamFailed(`the identity provider refused the sign-in (${stripControl(error.error)}).`, true);
  }
  // A denial inside a sign-in is an answer that could not be used, like any other.
  if (error instanceof OAuthFailure && !isUpstreamDenial(error)) throw error;
  const message = error instanceof Error ? stripControl(error.message) : "unknown error";
  throw upstreamFailed(`the identity provider's answer could not be verified: ${message}`);
}

export function withParams(endpoint: string, params: Record<string, string>): string {
  const url = new URL(endpoint);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** Checks the callback against the pending sign-in (state, iss) and exchanges its code with our PKCE verifier. */
export function redeemUpstreamCode(
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
