/**
 * `POST /consent`: the user's answer on the consent page. Accepted only from the browser that
 * was shown the page (signed browser cookie + CSRF token derived from it and the request) and
 * only from this origin; "Allow" creates the upstream state and goes to the IdP, "Deny" answers
 * the client with `access_denied`.
 */
import { type Deps, type PendingRequest, REQUEST_TTL_SECONDS } from "../context.ts";
import { safeEqual } from "../crypto.ts";
import { BadRequest, type Route, readForm, single } from "../http.ts";
import { errorPage } from "../pages.ts";
import { redirectWithError, startUpstream } from "../flow.ts";

export function consentRoutes(deps: Deps): Route[] {
  return [{ method: "POST", path: "/consent", handle: (request) => consent(deps, request) }];
}

const forged = () =>
  errorPage(
    "Request not accepted",
    "This approval did not come from the consent page shown in this browser (missing or wrong CSRF token). Start again from your application.",
    403,
  );

async function consent(deps: Deps, request: Request): Promise<Response> {
  const origin = request.headers.get("origin");
  if (
    (origin !== null && origin !== deps.config.publicUrl.origin) ||
    request.headers.get("sec-fetch-site") === "cross-site"
  ) {
    deps.log.warn("consent refused: cross-origin form post");
    return forged();
  }
  let form: URLSearchParams;
  let requestId: string | undefined;
  let csrf: string | undefined;
  let decision: string | undefined;
  try {
    form = await readForm(request);
    requestId = single(form, "request");
    csrf = single(form, "csrf");
    decision = single(form, "decision");
  } catch (error) {
    return errorPage("Invalid request", error instanceof BadRequest ? error.message : "The form could not be read.");
  }
  const nonce = deps.browser.nonce(request);
  if (!requestId || !csrf || !nonce || !safeEqual(csrf, deps.browser.csrfFor(requestId, nonce))) {
    deps.log.warn("consent refused: CSRF check failed");
    return forged();
  }
  const wait = deps.consents.admit(nonce) || deps.consents.commit();
  if (wait > 0) {
    deps.log.debug("consent refused: rate limit");
    return errorPage("Too many answers", `Wait ${wait} seconds and start again from your application.`, 429);
  }
  // Taken, not read: of two answers to one form only the first finds it (issue 18 G7).
  const now = Date.now();
  const pending = await deps.store.takeEphemeral<PendingRequest>("request", requestId, now);
  if (!pending || pending.answeredAt !== undefined)
    return errorPage(
      "Request expired",
      "This sign-in took longer than 10 minutes or this page was already answered; start again from your application.",
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
  return redirectWithError(deps, pending.redirectUri, pending.state, "access_denied", "the user denied access.");
}
