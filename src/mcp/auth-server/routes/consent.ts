/**
 * `POST /consent`: the user's answer on the consent page. Accepted only from the browser that
 * was shown the page (signed browser cookie + CSRF token derived from it and the request) and
 * only from this origin; "Allow" creates the upstream state and goes to the IdP, "Deny" answers
 * the client with `access_denied`.
 */
import type { Deps, PendingRequest } from "../context.ts";
import { safeEqual } from "../crypto.ts";
import { OAuthFailure } from "../errors.ts";
import { type Route, readForm, single } from "../http.ts";
import { REQUEST_TTL_SECONDS, backToClient, startUpstream } from "../flow.ts";
import { countRefusal } from "../refusals.ts";

export function consentRoutes(deps: Deps): Route[] {
  return [{ method: "POST", path: "/consent", browser: true, handle: (request) => consent(deps, request) }];
}

const forged = () =>
  new OAuthFailure(
    "access_denied",
    "This approval did not come from the consent page shown in this browser (missing or wrong CSRF token). Start again from your application.",
    { status: 403, page: "Request not accepted" },
  );

async function consent(deps: Deps, request: Request): Promise<Response> {
  const origin = request.headers.get("origin");
  if (
    (origin !== null && origin !== deps.config.publicUrl.origin) ||
    request.headers.get("sec-fetch-site") === "cross-site"
  ) {
    deps.log.warn("consent refused: cross-origin form post");
    throw forged();
  }
  const form = await readForm(request);
  const requestId = single(form, "request");
  const csrf = single(form, "csrf");
  const decision = single(form, "decision");
  const nonce = deps.browser.nonce(request);
  if (!requestId || !csrf || !nonce || !safeEqual(csrf, deps.browser.csrfFor(requestId, nonce))) {
    deps.log.warn("consent refused: CSRF check failed");
    throw forged();
  }
  const browserWait = deps.consents.admit(nonce);
  const wait = browserWait || deps.consents.commit();
  if (wait > 0) {
    countRefusal("/consent", browserWait > 0 ? "browser" : "server");
    deps.log.debug("consent refused: rate limit");
    throw new OAuthFailure("temporarily_unavailable", `Wait ${wait} seconds and start again from your application.`, {
      status: 429,
      page: "Too many answers",
    });
  }
  // Taken, not read: of two answers to one form only the first finds it (issue 18 G7).
  const now = Date.now();
  const pending = await deps.store.takeEphemeral<PendingRequest>("request", requestId, now);
  if (!pending || pending.answeredAt !== undefined)
    throw new OAuthFailure(
      "invalid_request",
      "This sign-in took longer than 10 minutes or this page was already answered; start again from your application.",
      { page: "Request expired" },
    );
  if (decision === "approve") {
    // Put back, marked answered, for the callback; a replay of the form now finds it answered.
    await deps.store.putEphemeral(
      "request",
      requestId,
      { ...pending, answeredAt: now },
      now + REQUEST_TTL_SECONDS * 1000,
    );
    return startUpstream(deps, requestId, nonce);
  }
  deps.log.info("consent denied", { client_id: pending.clientId });
  throw new OAuthFailure("access_denied", "the user denied access.", {
    redirect: backToClient(deps, pending.redirectUri, pending.state),
  });
}
