/**
 * The one HTTP client of the `oj` toolset (seed 003 S2): whole-request timeout, bearer token on
 * every request when configured, redirects followed (at most 10), the body read as a stream and
 * capped at 1 MiB, and the Content-Type recorded so that nobody parses a non-JSON body as JSON.
 *
 * Network failures, timeouts and undecodable success bodies are protocol errors (-32603, S4.1);
 * HTTP error statuses are returned to the caller, which turns them into `isError` results.
 */
import type { Logger } from "../../core/log.ts";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import type { OjConfig } from "./config.ts";
import { readAtMost } from "../../core/read-at-most.ts";

/** S2.2: never keep more than this many bytes of a response body. */
export const MAX_BODY_BYTES = 1_048_576;
/** reqwest's default redirect policy, which the reference server relies on. */
export const MAX_REDIRECTS = 10;

export interface UpstreamResponse {
  method: string;
  /** Path and query as requested (for messages; never carries the token). */
  path: string;
  status: number;
  /** At most MAX_BODY_BYTES bytes. */
  body: Uint8Array;
  /** The body was longer than MAX_BODY_BYTES and reading stopped there. */
  truncated: boolean;
  /** S2.3: `Content-Type` starts with `application/json` or `application/problem+json`. */
  isJson: boolean;
}

export interface RequestOptions {
  method?: "GET" | "POST";
  /** Sent as `application/json` (POST only). */
  json?: unknown;
  signal?: AbortSignal;
}

export class OjHttpClient {
  private readonly origin: string;

  constructor(
    private readonly config: OjConfig,
    private readonly log: Logger,
  ) {
    this.origin = new URL(config.baseUrl).origin;
  }

  get timeoutMs(): number {
    return this.config.timeoutMs;
  }

  /** Requests `{baseUrl}{path}`; `path` is a literal absolute path with its query (S1.1). */
  async request(path: string, options: RequestOptions = {}): Promise<UpstreamResponse> {
    let method = options.method ?? "GET";
    let body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const started = performance.now();
    let url = new URL(`${this.config.baseUrl}${path}`);

    try {
      for (let redirects = 0; ; redirects++) {
        const response = await fetch(url, {
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
            throw new ProtocolError(ErrorCode.InternalError, `request failed: ${method} ${path}: more than ${MAX_REDIRECTS} redirects`);
          }
          url = followLocation(url, location, method, path);
          // Fetch semantics: 303 always, and 301/302 after a POST, continue as a body-less GET.
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          continue;
        }
        const { bytes, truncated } = await readCapped(response);
        const result: UpstreamResponse = {
          method,
          path,
          status: response.status,
          body: bytes,
          truncated,
          isJson: isJsonContentType(response.headers.get("content-type")),
        };
        this.log.debug("oj upstream response", {
          method,
          path,
          status: result.status,
          bytes: bytes.byteLength,
          truncated,
          ms: Math.round(performance.now() - started),
        });
        return result;
      }
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw new ProtocolError(ErrorCode.InternalError, `request failed: ${method} ${path}: ${describeFailure(error, timeout, this.config.timeoutMs)}`);
    }
  }

  /**
   * The token goes to the configured origin only: a redirect to another host must not carry it
   * (reqwest strips sensitive headers across hosts too).
   */
  private headersFor(url: URL, hasJsonBody: boolean): Headers {
    const headers = new Headers({ accept: "application/json, application/problem+json;q=0.9, */*;q=0.1" });
    if (hasJsonBody) headers.set("content-type", "application/json");
    if (this.config.token !== undefined && url.origin === this.origin) headers.set("authorization", `Bearer ${this.config.token}`);
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

function followLocation(current: URL, location: string, method: string, path: string): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new ProtocolError(ErrorCode.InternalError, `request failed: ${method} ${path}: the server redirected to an invalid URL`);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new ProtocolError(ErrorCode.InternalError, `request failed: ${method} ${path}: the server redirected to a ${next.protocol} URL`);
  }
  return next;
}

/** S2.2: read chunk by chunk and stop at the cap instead of buffering the whole body; keep what fits. */
export async function readCapped(response: Response, cap = MAX_BODY_BYTES): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const { bytes, overflowed } = await readAtMost(response.body, cap);
  return { bytes, truncated: overflowed };
}

function describeFailure(error: unknown, timeout: AbortSignal, timeoutMs: number): string {
  if (timeout.aborted) return `no complete answer within ${timeoutMs} ms (timed out)`;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return "the request was cancelled";
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

/** UTF-8 decoding for success bodies: invalid bytes are a decode failure, not replacement characters. */
export function decodeJsonBody(response: UpstreamResponse): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(response.body);
  } catch {
    throw new ProtocolError(ErrorCode.InternalError, `invalid response from ${response.method} ${response.path}: the body is not valid UTF-8`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const why = response.truncated ? `the body exceeds ${MAX_BODY_BYTES} bytes` : (error as Error).message;
    throw new ProtocolError(ErrorCode.InternalError, `invalid JSON from ${response.method} ${response.path}: ${why}`);
  }
}

/** Error bodies are only text for a message, so decoding replaces bad bytes instead of failing. */
export function bodyText(response: UpstreamResponse): string {
  return new TextDecoder("utf-8").decode(response.body);
}
