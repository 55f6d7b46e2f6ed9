/**
 * `GET /authorize`: the client and its redirect URI are verified first, and any problem with
 * them is an error page (never a redirect: an unverified URI is an open redirect). Only then do
 * errors go back to the client. Consent already given by this user to this client for these
 * scopes and this exact redirect URI skips the page; otherwise the consent page is shown.
 */
import type { Deps, PendingRequest } from "../context.ts";
import { randomToken } from "../crypto.ts";
import { OAuthFailure } from "../errors.ts";
import { type Route, single } from "../http.ts";
import { pointsAtThisServer, redirectUriMatches, redirectUriProblem } from "../redirect-uri.ts";
import { countRefusal } from "../refusals.ts";
import type { RegisteredClient } from "../store.ts";
import { REQUEST_TTL_SECONDS, backToClient, consentCovers, findClient, showConsent, startUpstream } from "../flow.ts";

export function authorizeRoutes(deps: Deps): Route[] {
  return [
    {
      method: "GET",
      path: "/authorize",
      browser: true,
      handle: async (request, ctx) => {
        // Each request stores a pending row and may fetch a client metadata document: bound both per address.
        const wait = deps.authorizations.admit(ctx.clientAddress ?? "unknown");
        if (wait > 0) {
          countRefusal("/authorize", "address");
          deps.log.debug("authorization refused: rate limit", { address: ctx.clientAddress });
          throw new OAuthFailure("temporarily_unavailable", `Wait ${wait} seconds and try again.`, {
            status: 429,
            page: "Too many sign-in attempts",
          });
        }
        return authorize(deps, request);
      },
    },
  ];
}

/** A problem with the client or its redirect URI: a page, since nothing is verified to redirect to. */
const unverified = (title: string, description: string) =>
  new OAuthFailure("invalid_request", description, { page: title });

/**
 * The longest `state` accepted: it is stored with every pending sign-in, and at the server-wide
 * 3,000 sign-ins a minute, 15 KB states (Bun takes URLs that long) kept until purged came to about 0.9 GB.
 */
const MAX_STATE_CHARS = 1024;

async function authorize(deps: Deps, request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const { client, metadataHost } = await findClient(deps, single(params, "client_id"));
  const redirectUri = verifiedRedirectUri(deps, client, single(params, "redirect_uri"));

  // From here the redirect URI is registered; errors go back to the client, but only to one a user
  // has approved before: a self-registered client nobody approved gets no redirect (RFC 9700 §4.11.2).
  let state: string | undefined;
  let checked: PendingRequest;
  try {
    state = single(params, "state");
    if (state !== undefined && state.length > MAX_STATE_CHARS) {
      const length = state.length;
      state = undefined; // not echoed back: its size is the problem
      throw new OAuthFailure(
        "invalid_request",
        `state is ${length} characters long; at most ${MAX_STATE_CHARS} are accepted (it only needs to be unguessable: 32 random bytes in base64url are 43 characters).`,
      );
    }
    checked = checkParameters(
      deps,
      params,
      client.client_id,
      client.client_name ?? client.client_id,
      redirectUri,
      state,
      metadataHost,
    );
  } catch (error) {
    if (!(error instanceof OAuthFailure)) throw error;
    if (await deps.store.hasAnyConsent(client.client_id))
      throw new OAuthFailure(error.code, error.description, { redirect: backToClient(deps, redirectUri, state) });
    deps.log.info("authorization refused without a redirect: client not approved yet", { client_id: client.client_id });
    throw new OAuthFailure(
      error.code,
      `${error.description} You are not sent back to the application, since nobody has approved it yet.`,
      { page: "Invalid request" },
    );
  }

  // Only a valid request counts against the server-wide bound: it is about to write a row.
  const storeWait = deps.authorizations.commit();
  if (storeWait > 0) {
    countRefusal("/authorize", "server");
    deps.log.warn("authorization refused: the server-wide bound on pending sign-ins is reached");
    throw new OAuthFailure("temporarily_unavailable", `This server is busy; wait ${storeWait} seconds and try again.`, {
      status: 429,
      page: "Too many sign-ins",
    });
  }
  const requestId = randomToken();
  await deps.store.putEphemeral("request", requestId, checked, Date.now() + REQUEST_TTL_SECONDS * 1000);
  const remembered = deps.browser.rememberedUser(request);
  const nonce = deps.browser.nonce(request);
  if (remembered && nonce) {
    if (consentCovers(await deps.store.getConsent(client.client_id, remembered), checked)) {
      return startUpstream(deps, requestId, nonce, remembered);
    }
  }
  return showConsent(deps, request, requestId, checked);
}

/** The redirect URI this request may be answered at: registered, and still one this server accepts. */
function verifiedRedirectUri(deps: Deps, client: RegisteredClient, requestedUri: string | undefined): string {
  const registered = client.redirect_uris;
  const redirectUri = requestedUri ?? (registered.length === 1 ? registered[0] : undefined);
  if (!redirectUri)
    throw unverified(
      "Missing redirect_uri",
      "This application registered several redirect URIs, so the request must name one with redirect_uri.",
    );
  if (!redirectUriMatches(registered, redirectUri)) {
    deps.log.warn("authorization refused: redirect_uri not registered", { client_id: client.client_id });
    throw unverified(
      "Redirect URI not registered",
      "The redirect_uri in this request is not one this application registered, so this server will not send you there.",
    );
  }
  const ownOrigin = deps.config.publicUrl.origin;
  if (pointsAtThisServer(new URL(redirectUri), ownOrigin)) {
    throw unverified(
      "Redirect URI not allowed",
      "This redirect_uri points back at this server, so it will not send you there.",
    );
  }
  // A client registered before a rule was added (a browser hand-off scheme) keeps its row: the
  // rules registration applies now hold here too.
  const problem = redirectUriProblem(redirectUri, ownOrigin);
  if (problem) {
    deps.log.warn("authorization refused: redirect_uri no longer accepted", { client_id: client.client_id });
    throw unverified("Redirect URI not allowed", `This application's redirect URI is not accepted: ${problem}`);
  }
  return redirectUri;
}

function checkParameters(
  deps: Deps,
  params: URLSearchParams,
  clientId: string,
  clientName: string,
  redirectUri: string,
  state: string | undefined,
  metadataHost: string | undefined,
): PendingRequest {
  const responseType = single(params, "response_type");
  if (responseType !== "code") throw new OAuthFailure("unsupported_response_type", 'response_type must be "code".');
  const challenge = single(params, "code_challenge");
  const method = single(params, "code_challenge_method");
  if (!challenge)
    throw new OAuthFailure("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256.");
  if (method !== "S256")
    throw new OAuthFailure(
      "invalid_request",
      'code_challenge_method must be "S256"; "plain" and omitting it are refused.',
    );
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    throw new OAuthFailure(
      "invalid_request",
      "code_challenge must be the base64url SHA-256 of the verifier (43 characters).",
    );
  const resources = params.getAll("resource");
  const { resource } = deps.config;
  if (
    resources.length > 1 ||
    (resources.length === 1 && resources[0] !== resource && resources[0] !== `${resource}/`)
  ) {
    throw new OAuthFailure("invalid_target", `resource must be this server's MCP URL, ${resource}.`);
  }
  const scopeText = single(params, "scope");
  const scopes = scopeText ? [...new Set(scopeText.split(" ").filter(Boolean))] : deps.config.scopesSupported;
  const unknown = scopes.filter((scope) => !deps.config.scopesSupported.includes(scope));
  if (unknown.length > 0) {
    throw new OAuthFailure(
      "invalid_scope",
      `unknown scope ${unknown.join(", ")}; this server offers ${deps.config.scopesSupported.join(" ")}.`,
    );
  }
  return { clientId, clientName, redirectUri, state, codeChallenge: challenge, scopes, resource, metadataHost };
}
