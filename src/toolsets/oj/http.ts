/**
 * The one HTTP client of the `oj` toolset (docs/contracts/oj.md §3): whole-request timeout, the
 * bearer token on every request to the configured origin, redirects within that origin followed
 * (at most 10) and any other refused, the
 * body read as a stream keeping its first 1 MiB, and the Content-Type recorded so that nobody
 * parses a non-JSON body as JSON.
 *
 * Network failures, timeouts and undecodable success bodies are protocol errors (-32603, §5); HTTP
 * error statuses are returned to the caller, which turns them into `isError` results. Every piece
 * of body text leaves this file sanitized (§7): control sequences stripped and the token redacted
 * before any cut is made.
 */
import { nestsDeeperThan } from "../../core/json-depth.ts";
import { networkFailure } from "../../core/network-failure.ts";
import { parseRetryAfter, retryAfterSeconds } from "../../core/retry-after.ts";
import type { Logger } from "../../core/log.ts";
import { readAtMost } from "../../core/read-at-most.ts";
import { upstreamFetch } from "../../core/telemetry/index.ts";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import type { OjConfig } from "./config.ts";
import { type Sanitizer, createSanitizer } from "./sanitize.ts";

/** Never keep more than this many bytes of a response body. */
export const MAX_BODY_BYTES = 1_048_576;
/**
 * A success body whose arrays and objects nest deeper is refused before it is parsed: craboj's
 * answers need three or four levels, and the sanitizer walks a parsed answer recursively (a
 * megabyte of `[` overflowed its stack and became a vague "Internal error").
 */
export const MAX_JSON_DEPTH = 64;
/** reqwest's default redirect policy, which the reference server relies on. */
export const MAX_REDIRECTS = 10;

/** What to tell a person whose base URL does not lead to a working craboj server. */
export const BASE_URL_HINT = "check --oj-base-url (OJ_BASE_URL)";

export interface UpstreamResponse {
  method: string;
  /** Path and query as requested (for messages; never carries the token). */
  path: string;
  /** `host[:port]` of the server that answered (never with credentials). */
  host: string;
  status: number;
  /** At most MAX_BODY_BYTES bytes, unsanitized: read it through `bodyText` or `decodeJsonBody`. */
  body: Uint8Array;
  /** The body was longer than MAX_BODY_BYTES and reading stopped there. */
  truncated: boolean;
  /** `Content-Type` starts with `application/json` or `application/problem+json`. */
  isJson: boolean;
  /** The wait a `Retry-After` header asked for, in whole seconds; absent without a readable one. */
  retryAfterSeconds?: number;
  sanitize: Sanitizer;
}

export interface RequestOptions {
  method?: "GET" | "POST";
  /** Sent as `application/json` (POST only). */
  json?: unknown;
  signal?: AbortSignal;
}

export class OjHttpClient {
  private readonly origin: string;
  readonly sanitize: Sanitizer;

  constructor(
    private readonly config: OjConfig,
    private readonly log: Logger,
    /** The time an HTTP-date `Retry-After` is measured from (as BojClient's; tests may pass a fixed one). */
    private readonly now: () => number = Date.now,
  ) {
    this.origin = new URL(config.baseUrl).origin;
    this.sanitize = createSanitizer(config.token);
  }

  get timeoutMs(): number {
    return this.config.timeoutMs;
  }

  /** Requests `{baseUrl}{path}`; `path` is a literal absolute path with its query (§3). */
  async request(path: string, options: RequestOptions = {}): Promise<UpstreamResponse> {
    let method = options.method ?? "GET";
    let body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const started = performance.now();
    let url = new URL(`${this.config.baseUrl}${path}`);
    const shownPath = this.sanitize.text(path);

    try {
      for (let redirects = 0; ; redirects++) {
        const response = await upstreamFetch(url, {
          method,
          body,
          headers: this.headersFor(url, body !== undefined),
          redirect: "manual",
          signal,
        });
        const location = response.headers.get("location");
        if (isRedirect(response.status) && location !== null) {
          await response.body?.cancel().catch(() => {});
          if (redirects >= MAX_REDIRECTS) {
            throw upstreamFault(
              `the craboj server at ${url.host} redirected more than ${MAX_REDIRECTS} times for ${method} ${shownPath}: ${BASE_URL_HINT}`,
            );
          }
          url = followLocation(url, location, this.origin, `${method} ${shownPath}`);
          // Fetch semantics: 303 always, and 301/302 after a POST, continue as a body-less GET.
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          continue;
        }
        const { bytes, truncated } = await readFirstBytes(response);
        const result: UpstreamResponse = {
          method,
          path: shownPath,
          host: url.host,
          status: response.status,
          body: bytes,
          truncated,
          isJson: isJsonContentType(response.headers.get("content-type")),
          sanitize: this.sanitize,
        };
        const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), this.now());
        if (retryAfterMs !== undefined) result.retryAfterSeconds = retryAfterSeconds(retryAfterMs);
        this.log.debug("oj upstream response", {
          method,
          path: shownPath,
          status: result.status,
          bytes: bytes.byteLength,
          truncated,
          ms: Math.round(performance.now() - started),
        });
        return result;
      }
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw upstreamFault(
        describeFailure(error, {
          host: url.host,
          request: `${method} ${shownPath}`,
          timeout,
          timeoutMs: this.config.timeoutMs,
        }),
      );
    }
  }

  /**
   * The token goes to the configured origin only. followLocation already keeps every request
   * there; the check stays so that the header cannot follow a later change to that rule.
   */
  private headersFor(url: URL, hasJsonBody: boolean): Headers {
    const headers = new Headers({ accept: "application/json, application/problem+json;q=0.9, */*;q=0.1" });
    if (hasJsonBody) headers.set("content-type", "application/json");
    if (this.config.token !== undefined && url.origin === this.origin)
      headers.set("authorization", `Bearer ${this.config.token}`);
    return headers;
  }
}

export function isJsonContentType(value: string | null): boolean {
  const type = (value ?? "").trim().toLowerCase();
  return type.startsWith("application/json") || type.startsWith("application/problem+json");
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function upstreamFault(message: string): ProtocolError {
  return new ProtocolError(ErrorCode.InternalError, message);
}

/**
 * Where a redirect leads, when it may be followed: within the configured origin only (as boj's
 * client). Another host's answer would be shown as the craboj server's, and a hostile or
 * compromised server could use mcpkit to fetch addresses only it can reach (a cloud metadata
 * endpoint, say) and relay them, with a POST body forwarded on 307/308.
 */
function followLocation(current: URL, location: string, origin: string, request: string): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw upstreamFault(
      `the craboj server at ${current.host} redirected ${request} to an invalid URL: ${BASE_URL_HINT}`,
    );
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw upstreamFault(
      `the craboj server at ${current.host} redirected ${request} to a ${next.protocol} URL: ${BASE_URL_HINT}`,
    );
  }
  if (next.origin !== origin) {
    throw upstreamFault(
      `the craboj server at ${current.host} redirected ${request} to another origin, ${next.origin}, which is not followed: its answer would be taken for the craboj server's. Check --oj-base-url (OJ_BASE_URL): if the server has moved to ${next.origin}, set it to that`,
    );
  }
  return next;
}

/**
 * Reads chunk by chunk and keeps the first `cap` bytes, dropping the rest unread, instead of
 * buffering the whole body (§3: a longer body is used as far as it was read).
 */
export async function readFirstBytes(
  response: Response,
  cap = MAX_BODY_BYTES,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const { bytes, overflowed } = await readAtMost(response.body, cap);
  return { bytes, truncated: overflowed };
}

interface FailureContext {
  host: string;
  request: string;
  timeout: AbortSignal;
  timeoutMs: number;
}

/** Why a request got no answer, in words, naming the host and the flag to check (§5). */
function describeFailure(error: unknown, { host, request, timeout, timeoutMs }: FailureContext): string {
  if (timeout.aborted) {
    return `the craboj server at ${host} sent no complete answer within ${timeoutMs} ms (timed out) for ${request}: ${BASE_URL_HINT}, or raise --oj-timeout-ms (OJ_TIMEOUT_MS)`;
  }
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))
    return `${request} was cancelled`;
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const [why, hint] = failureWords(code);
  return `cannot reach the craboj server at ${host} (${why}) for ${request}: ${hint}`;
}

/** Why the craboj server could not be reached, and what to check (one wording for every toolset). */
export function failureWords(code: string): [why: string, hint: string] {
  return networkFailure(code, BASE_URL_HINT);
}

/** UTF-8 decoding for success bodies: invalid bytes are a decode failure, not replacement characters. */
export function decodeJsonBody(response: UpstreamResponse): unknown {
  let text: string;
  const from = `the craboj server at ${response.host} answered ${response.method} ${response.path} with`;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(response.body);
  } catch {
    throw upstreamFault(`${from} a body that is not valid UTF-8: ${BASE_URL_HINT}`);
  }
  if (nestsDeeperThan(response.body, MAX_JSON_DEPTH)) {
    throw upstreamFault(`${from} JSON nested deeper than ${MAX_JSON_DEPTH} levels: ${BASE_URL_HINT}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it stumbled on, which may be the token an upstream echoed.
    const why = response.truncated
      ? `the body exceeds ${MAX_BODY_BYTES} bytes`
      : response.sanitize.text((error as Error).message);
    throw upstreamFault(`${from} invalid JSON (${why}): ${BASE_URL_HINT}`);
  }
  return response.sanitize.value(value);
}

/** Error bodies are only text for a message, so decoding replaces bad bytes instead of failing. */
export function bodyText(response: UpstreamResponse): string {
  return response.sanitize.text(rawBodyText(response));
}

/** The body as decoded, before sanitizing: only for parsing, never for showing. */
export function rawBodyText(response: UpstreamResponse): string {
  return new TextDecoder("utf-8").decode(response.body);
}
