/**
 * Steps of the browser flow shared by `/authorize`, `/consent` and the callback: finding the
 * client, answering the client with an error or a code, showing the consent page, and sending
 * the browser to the IdP with a fresh, browser-bound upstream state.
 */
import { scrubbed } from "../../core/scrubbed.ts";
import { isCimdClientId } from "./cimd.ts";
import type { Deps, PendingRequest, UpstreamState } from "./context.ts";
import { hashToken, randomToken } from "./crypto.ts";
import { type ClientRedirect, OAuthFailure } from "./errors.ts";
import { redirect } from "./http.ts";
import { consentPage } from "./pages.ts";
import { hostOf, isWebScheme } from "./redirect-uri.ts";
import { countRefusal } from "./refusals.ts";
import type { ConsentRecord, RegisteredClient } from "./store.ts";
import { isLoopbackName } from "./config.ts";

/** How long an authorization request waits between `/authorize` and the callback (10 min). */
export const REQUEST_TTL_SECONDS = 600;
/** How long the browser may take at the IdP with the upstream state it was given (10 min). */
const UPSTREAM_STATE_TTL_SECONDS = 600;

/** The client a browser flow is for, verified; failures are pages (nothing is verified to redirect to). */
export async function findClient(
  deps: Deps,
  clientId: string | undefined,
): Promise<{ client: RegisteredClient; metadataHost?: string }> {
  if (!clientId)
    throw new OAuthFailure(
      "invalid_request",
      "The authorization request names no client_id; the application must send one.",
      { page: "Missing client_id" },
    );
  if (isCimdClientId(clientId)) {
    try {
      return { client: await deps.cimd.resolve(clientId), metadataHost: hostOf(clientId) };
    } catch (error) {
      // Too many documents in flight says nothing about this application: its 503 and Retry-After stand.
      if (error instanceof OAuthFailure && error.code === "temporarily_unavailable") {
        countRefusal("/authorize", "metadata_documents");
        deps.log.warn("client metadata document not fetched: too many in flight", { client_id: clientId });
        throw error;
      }
      const reason = error instanceof OAuthFailure ? error.description : "the document could not be read.";
      deps.log.info("client metadata document refused", { client_id: clientId, reason });
      throw new OAuthFailure("invalid_client", `This application's metadata could not be used: ${reason}`, {
        page: "Unknown application",
      });
    }
  }
  const record = await deps.store.getClient(clientId, Date.now());
  if (!record) {
    throw new OAuthFailure(
      "invalid_client",
      "This client_id is not registered here (or its registration expired); the application should register again.",
      { page: "Unknown application" },
    );
  }
  return { client: record.metadata };
}

/**
 * Whether a remembered consent covers this request: every scope asked for, and the very redirect
 * URI the consent page named. A loopback redirect may use any port (RFC 8252 §7.3), and any program
 * on the machine, or a web page's link, can name another one: a consent given for port 9 must not
 * send a code to port 31337 without asking. Rows an older release wrote name no URI and cover none.
 */
export function consentCovers(consent: ConsentRecord | undefined, pending: PendingRequest): boolean {
  return (
    consent !== undefined &&
    consent.redirectUri === pending.redirectUri &&
    pending.scopes.every((scope) => consent.scopes.includes(scope))
  );
}

/** Where an error goes once the client's redirect URI is verified: back to it, with `iss` (RFC 9207). */
export function backToClient(deps: Deps, redirectUri: string, state: string | undefined): ClientRedirect {
  return { redirectUri, state, issuer: deps.config.issuer };
}

export function redirectWithCode(
  deps: Deps,
  pending: PendingRequest,
  code: string,
  cookies: [string, string][],
): Response {
  const url = new URL(pending.redirectUri);
  url.searchParams.set("code", code);
  if (pending.state !== undefined) url.searchParams.set("state", pending.state);
  url.searchParams.set("iss", deps.config.issuer);
  return redirect(url.href, cookies);
}

/** The consent page, with a browser nonce (new when the browser has none) and its CSRF token. */
export function showConsent(
  deps: Deps,
  request: Request,
  requestId: string,
  pending: PendingRequest,
  extraCookies: [string, string][] = [],
): Response {
  const cookies: [string, string][] = [...extraCookies];
  let nonce = deps.browser.nonce(request);
  if (!nonce) {
    const issued = deps.browser.issueNonce();
    nonce = issued.nonce;
    cookies.push(["set-cookie", issued.cookie]);
  }
  const redirectHost = hostOf(pending.redirectUri);
  const redirect = URL.parse(pending.redirectUri);
  const loopbackRedirect = redirect?.protocol === "http:" && isLoopbackName(redirect.hostname);
  return consentPage(
    {
      clientName: pending.clientName,
      clientId: pending.clientId,
      redirectHost,
      metadataHost: pending.metadataHost,
      scopes: pending.scopes,
      requestId,
      csrf: deps.browser.csrfFor(requestId, nonce),
      action: `${deps.config.issuer}/consent`,
      upstreamLabel: deps.upstream.label,
      warning:
        pending.metadataHost && loopbackRedirect
          ? `The application describes itself at ${pending.metadataHost} but receives the result on this computer (${redirectHost}); allow only if you just started it here.`
          : redirect && !isWebScheme(redirect)
            ? `The result goes to an application installed on this device that opens ${redirect.protocol} links, not to a website; allow only if you just started that application here.`
            : undefined,
    },
    cookies,
  );
}

/**
 * After consent: a new upstream state (random, single use, ≤ 10 min) bound to this browser's
 * nonce, and the redirect to the IdP. A link to the IdP copied out of this browser is useless
 * in another one: the callback checks the binding.
 */
export async function startUpstream(
  deps: Deps,
  requestId: string,
  nonce: string,
  rememberedSubject?: string,
  cookies: [string, string][] = [],
): Promise<Response> {
  const state = randomToken();
  const verifier = randomToken(48);
  const oidcNonce = deps.config.upstream.kind === "oidc" ? randomToken() : undefined;
  const record: UpstreamState = {
    requestId,
    browser: hashToken(nonce),
    sealedVerifier: deps.keyring.seal(verifier, "upstream-verifier"),
    nonce: oidcNonce,
    rememberedSubject,
  };
  await deps.store.putEphemeral("upstream", hashToken(state), record, Date.now() + UPSTREAM_STATE_TTL_SECONDS * 1000);
  let location: string;
  try {
    location = await deps.upstream.authorizationUrl({ state, verifier, nonce: oidcNonce });
  } catch (error) {
    deps.log.error("identity provider unavailable", {
      error: scrubbed(error instanceof Error ? error.message : String(error)),
    });
    throw new OAuthFailure(
      "temporarily_unavailable",
      "The identity provider could not be reached; try again in a moment.",
      {
        status: 502,
        page: "Sign-in unavailable",
      },
    );
  }
  return redirect(location, cookies);
}
