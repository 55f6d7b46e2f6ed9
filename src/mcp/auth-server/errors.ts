/**
 * The authorization server's one error style. A request that fails throws an `OAuthFailure` (an
 * RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 7009 §2.2.1 error code, a description its reader can act
 * on, the status and headers, and how it reaches that reader); `renderFailure` is the only code
 * that turns one into a Response, and `createOnError` the only place anything thrown by a route
 * is caught: an `OAuthFailure` is rendered as it says, an unreachable store becomes a generic 503,
 * anything else a generic 500. Neither says more than that on the wire or in the log.
 */
import type { Logger } from "../../core/log.ts";
import { scrubbed } from "../../core/scrubbed.ts";
import { stripControl } from "../../core/text.ts";
import { PUBLIC_CORS, readableBy } from "../web/cors.ts";
import { errorPageHtml, htmlResponse, notAllowedHtml } from "./pages.ts";
import { StoreUnavailable } from "./store.ts";

/** Anything carrying a token or an error about one: never cached (RFC 6749 §5.1). */
export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export type ErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_redirect_uri"
  | "invalid_client_metadata";

/** Where a failure from the browser flow goes once the client's redirect URI is verified (RFC 6749 §4.1.2.1). */
export interface ClientRedirect {
  redirectUri: string;
  state: string | undefined;
  /** RFC 9207 `iss`. */
  issuer: string;
}

export interface FailureOptions {
  /** 400 unless said. */
  status?: number;
  /** Retry-After, Allow, WWW-Authenticate: set on whatever the failure renders as. */
  headers?: Record<string, string>;
  /**
   * The title of the HTML page a browser route (`/authorize`, `/consent`, the callback) shows
   * instead of JSON; a route clients call answers JSON whatever this says.
   */
  page?: string;
  /** The page for a person the IdP signed in whom the access policy refuses (their display name). */
  signedInAs?: string;
  /** Sent back to the client's verified redirect URI instead (a 302 with `error`, `state`, `iss`). */
  redirect?: ClientRedirect;
  /** Status and headers only (a 405 with Allow). */
  bodyless?: boolean;
}

export class OAuthFailure extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    /** On the wire: a sentence a client developer, a model or a person can act on, never internals. */
    readonly description: string,
    readonly options: FailureOptions = {},
  ) {
    super(description);
    this.name = "OAuthFailure";
    this.status = options.status ?? 400;
  }
}

/**
 * The one renderer: an `OAuthFailure` as the Response its reader expects. `browser`: the route
 * answers a person's browser, so a failure with a page title is that page.
 */
export function renderFailure(failure: OAuthFailure, browser: boolean): Response {
  const { status } = failure;
  const { page, signedInAs, redirect, bodyless, headers = {} } = failure.options;
  let response: Response;
  if (redirect) {
    response = new Response(null, { status: 302, headers: { location: redirectUrl(failure, redirect), ...NO_STORE } });
  } else if (bodyless) {
    response = new Response(null, { status });
  } else if (browser && signedInAs !== undefined) {
    response = htmlResponse(notAllowedHtml(signedInAs, failure.description), status);
  } else if (browser && page !== undefined) {
    response = htmlResponse(errorPageHtml(page, failure.description), status);
  } else {
    const body = { error: failure.code, error_description: wireDescription(failure.description) };
    // Browser-based clients call these endpoints from another origin (no cookies involved).
    response = new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...NO_STORE, ...readableBy(PUBLIC_CORS) },
    });
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

function redirectUrl(failure: OAuthFailure, { redirectUri, state, issuer }: ClientRedirect): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", failure.code);
  url.searchParams.set("error_description", failure.description);
  if (state !== undefined) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer);
  return url.href;
}

/** RFC 6749 §5.2: `error_description` is printable ASCII without `"` and `\`. */
function wireDescription(description: string): string {
  return stripControl(description).replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "");
}

/** How long a client should wait before trying again while the state store is down. */
export const STORE_RETRY_AFTER_SECONDS = 30;
/** While the store is down every request fails the same way: one log line a minute says so. */
const STORE_DOWN_LOG_INTERVAL_MS = 60_000;

const storeDown = () =>
  new OAuthFailure(
    "temporarily_unavailable",
    "The sign-in service cannot reach its storage right now; try again in a minute.",
    { status: 503, headers: { "retry-after": String(STORE_RETRY_AFTER_SECONDS) }, page: "Temporarily unavailable" },
  );

const internalError = () =>
  new OAuthFailure("server_error", "internal error; the server log has details.", { status: 500 });

/** Where a route failed, for the log and for choosing between a page and JSON. */
export interface FailedRoute {
  path: string;
  browser: boolean;
}

/** The one handler of everything a route throws. */
export function createOnError(log: Logger): (error: unknown, route: FailedRoute) => Response {
  const logStoreDown = throttledLog(log, STORE_DOWN_LOG_INTERVAL_MS);
  return (error, route) => {
    if (error instanceof OAuthFailure) return renderFailure(error, route.browser);
    if (error instanceof StoreUnavailable) {
      logStoreDown("authorization state store unavailable; answering 503", {
        path: route.path,
        error: scrubbed(error.message),
      });
      return renderFailure(storeDown(), route.browser);
    }
    log.error("authorization server route failed", { path: route.path, error: describeUnexpected(error) });
    return renderFailure(internalError(), route.browser);
  };
}

/**
 * One log line per `intervalMs` for a failure that repeats on every request (the store down):
 * the first occurrence at once, then one line per interval carrying how many were left out.
 */
export function throttledLog(log: Logger, intervalMs: number, now: () => number = Date.now) {
  let lastAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (message: string, fields: Record<string, unknown>) => {
    if (now() - lastAt < intervalMs) {
      suppressed++;
      return;
    }
    log.error(message, suppressed > 0 ? { ...fields, suppressed } : fields);
    lastAt = now();
    suppressed = 0;
  };
}

/** An unexpected error for the log: its kind and a scrubbed message, never its fields or stack. */
function describeUnexpected(error: unknown): string {
  if (!(error instanceof Error)) return `non-Error value (${typeof error})`;
  return `${error.name}: ${scrubbed(error.message)}`;
}
