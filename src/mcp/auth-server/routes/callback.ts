/**
 * `GET /oauth/callback`: where the IdP sends the browser back. The upstream state must exist
 * (single use, taken atomically), belong to this browser, and the IdP's answer must verify
 * (`iss`, PKCE, ID token); then the access policy decides, and the client gets mcpkit's own
 * single-use code.
 */
import { scrubbed } from "../../../core/scrubbed.ts";
import { countEvent, defineCounter } from "../../../core/telemetry/index.ts";
import type { Deps, PendingRequest, UpstreamState } from "../context.ts";
import { hashToken, randomToken, safeEqual } from "../crypto.ts";
import { OAuthFailure } from "../errors.ts";
import type { Route } from "../http.ts";
import { grantScopes, policyScopes } from "../policy.ts";
import { backToClient, consentCovers, redirectWithCode, showConsent } from "../flow.ts";
import type { UpstreamResult } from "../upstream/index.ts";

export const CALLBACK_PATH = "/oauth/callback";

const signIns = defineCounter({
  name: "mcpkit.authorization.sign_ins",
  unit: "{sign_in}",
  description: "Sign-ins at mcpkit's authorization server, by mcpkit.outcome.",
});

export function callbackRoutes(deps: Deps): Route[] {
  return [{ method: "GET", path: CALLBACK_PATH, browser: true, handle: (request) => callback(deps, request) }];
}

/** A sign-in that cannot finish here: the page says why and where to start again. */
const cannotFinish = (title: string, description: string) =>
  new OAuthFailure("invalid_request", description, { page: title });

async function callback(deps: Deps, request: Request): Promise<Response> {
  const now = Date.now();
  // The IdP redirects to the public URL; rebuild it so `iss`/state checks see what the IdP sent.
  const url = new URL(`${deps.config.callbackUrl}${new URL(request.url).search}`);
  const state = url.searchParams.get("state");
  if (!state)
    throw cannotFinish(
      "Invalid sign-in response",
      "The identity provider's answer has no state; start again from your application.",
    );
  const upstreamState = await deps.store.takeEphemeral<UpstreamState>("upstream", hashToken(state), now);
  if (!upstreamState) {
    throw cannotFinish(
      "Sign-in expired",
      "This sign-in link was already used or is older than 10 minutes; start again from your application.",
    );
  }
  const nonce = deps.browser.nonce(request);
  if (!nonce || !safeEqual(hashToken(nonce), upstreamState.browser)) {
    deps.log.warn("callback refused: state belongs to another browser");
    throw new OAuthFailure(
      "access_denied",
      "This sign-in was approved in another browser, so it cannot finish here. Start again from your application in this browser.",
      { status: 403, page: "Sign-in started elsewhere" },
    );
  }
  const pending = await deps.store.getEphemeral<PendingRequest>("request", upstreamState.requestId, now);
  if (!pending)
    throw cannotFinish(
      "Sign-in expired",
      "This sign-in took longer than 10 minutes; start again from your application.",
    );

  let result: UpstreamResult;
  try {
    result = await deps.upstream.complete(url, {
      state,
      verifier: deps.keyring.open(upstreamState.sealedVerifier, "upstream-verifier"),
      nonce: upstreamState.nonce,
    });
  } catch (error) {
    // The IdP's or a library's words: whatever they quote (a code, a token) stays out of the log.
    const message = scrubbed(error instanceof Error ? error.message : String(error));
    deps.log.warn("upstream sign-in failed", { error: message });
    countEvent(signIns, { "mcpkit.outcome": "upstream_failed" });
    if (error instanceof OAuthFailure && error.code === "access_denied") {
      await deps.store.takeEphemeral("request", upstreamState.requestId, now);
      throw new OAuthFailure("access_denied", "the identity provider did not sign the user in.", {
        redirect: backToClient(deps, pending.redirectUri, pending.state),
      });
    }
    throw new OAuthFailure("temporarily_unavailable", `The identity provider's answer could not be used: ${message}`, {
      status: 502,
      page: "Sign-in failed",
    });
  }
  return finish(deps, request, upstreamState, pending, result);
}

async function finish(
  deps: Deps,
  request: Request,
  upstreamState: UpstreamState,
  pending: PendingRequest,
  result: UpstreamResult,
): Promise<Response> {
  const { identity, tokens } = result;
  const now = Date.now();
  if (policyScopes(deps.config.policy, identity).length === 0) {
    deps.log.info("sign-in refused by the access policy", { user: identity.displayName });
    countEvent(signIns, { "mcpkit.outcome": "refused_by_policy" });
    throw notAllowed(identity.displayName, "The access policy of this server does not include your account.");
  }
  const scopes = grantScopes(deps.config.policy, identity, pending.scopes);
  if (scopes.length === 0) {
    throw notAllowed(
      identity.displayName,
      `The access policy gives your account none of the permissions requested (${pending.scopes.join(", ")}).`,
    );
  }
  if (upstreamState.rememberedSubject !== undefined && upstreamState.rememberedSubject !== identity.subject) {
    // Consent was skipped for the account this browser remembered, but someone else signed in.
    if (!consentCovers(await deps.store.getConsent(pending.clientId, identity.subject), pending)) {
      return showConsent(deps, request, upstreamState.requestId, pending, [["set-cookie", deps.browser.forgetUser()]]);
    }
  }
  const taken = await deps.store.takeEphemeral<PendingRequest>("request", upstreamState.requestId, now);
  if (!taken)
    throw cannotFinish(
      "Sign-in already finished",
      "This sign-in was completed in another tab; return to your application.",
    );
  await deps.store.putConsent(
    pending.clientId,
    identity.subject,
    { scopes: pending.scopes, redirectUri: pending.redirectUri },
    now,
  );
  const upstreamExpiry = Math.max(now + deps.config.refreshTokenTtl * 1000, (tokens.expires_at ?? 0) * 1000);
  await deps.store.putUpstreamTokens(
    identity.subject,
    deps.keyring.seal(JSON.stringify(tokens), `upstream-tokens:${identity.subject}`),
    upstreamExpiry,
    now,
  );
  const code = randomToken();
  await deps.store.putCode(hashToken(code), {
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    resource: pending.resource,
    scopes,
    subject: identity.subject,
    identity,
    familyId: randomToken(16),
    expiresAt: now + deps.config.codeTtl * 1000,
    signedInAt: deps.config.now(),
  });
  countEvent(signIns, { "mcpkit.outcome": "signed_in" });
  deps.log.info("sign-in complete", {
    client_id: pending.clientId,
    user: identity.displayName,
    scopes: scopes.join(" "),
  });
  return redirectWithCode(deps, pending, code, [["set-cookie", deps.browser.rememberUser(identity.subject)]]);
}

const notAllowed = (displayName: string, reason: string) =>
  new OAuthFailure("access_denied", reason, { status: 403, signedInAs: displayName });
