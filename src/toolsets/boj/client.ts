/**
 * The HTTP side of the boj toolset: one GET per attempt with Bun's fetch, a timeout per attempt,
 * gzip, a capped streaming read of the body, the process-wide spacing between requests, and the
 * retry policy of docs/contracts/boj.md "Retries" (transport errors and API 500/503 only,
 * `backoff * 2^n`, `retry_max` retries). The caller's AbortSignal stops the request and any wait.
 * Retries, pacing waits and final upstream failures are told to the user's client through
 * `notify` (MCP logging), which also mirrors them to the stderr log.
 */
import { logToStderr } from "../../core/client-log.ts";
import type { Logger } from "../../core/log.ts";
import { readAtMost } from "../../core/read-at-most.ts";
import { spanEvent, telemetryOn, upstreamFetch } from "../../core/telemetry/index.ts";
import { stripControl } from "../../core/text.ts";
import type { ClientLogLevel } from "../../core/tool.ts";
import type { RawBody } from "./decode/body.ts";
import { BASE_URL_HINT, BojError, decodeError, isRetryable, transportError } from "./errors.ts";
import { isNameNotFound, networkFailure } from "../../core/network-failure.ts";
import { type Pacer, awaitTurn } from "./pacer.ts";
import { askedToRetry, parseRetryAfter, retryAfterSeconds } from "../../core/retry-after.ts";
import { sleep } from "./sleep.ts";
import { type BojRequest, requestPath } from "./validation.ts";

/** What the client tells the user while it works: ToolContext.notify with the logger name bound. */
export type BojNotify = (level: ClientLogLevel, message: string, data?: Record<string, unknown>) => void;

/**
 * The longest `Retry-After` a retry waits out (unless a backoff step is longer still): a tool call
 * may wait a few seconds for BOJ, but a longer wait is better decided by the caller, to whom the
 * error says how long BOJ asked for. Retrying sooner than asked is what BOJ's terms forbid.
 */
const MAX_RETRY_AFTER_WAIT_MS = 5_000;

/** Redirects within the configured origin followed per attempt (a path moved); more is a loop. */
const MAX_REDIRECTS = 3;

/** Waits shorter than this are not worth a message. */
const PACING_NOTICE_MS = 50;

export interface BojClientConfig {
  baseUrl: string;
  timeoutMs: number;
  retryMax: number;
  retryBackoffMs: number;
  minIntervalMs: number;
  /** The byte cap of a body (--boj-max-body-bytes); of a metadata body when maxDataBodyBytes is set. */
  maxBodyBytes: number;
  /** The byte cap of a data page's body (getDataCode, getDataLayer); maxBodyBytes when unset. */
  maxDataBodyBytes?: number;
  userAgent: string;
}

export class BojClient {
  private readonly origin: string;

  constructor(
    private readonly config: BojClientConfig,
    private readonly log: Logger,
    /** The spacing between requests: this process's, or the fleet's with --boj-shared-state. */
    private readonly pace: Pacer = awaitTurn,
    /** The wait between attempts; tests pass one that records the backoff instead of waiting it out. */
    private readonly wait: (ms: number, signal: AbortSignal) => Promise<void> = sleep,
    /** The time an HTTP-date `Retry-After` is measured from; tests pass a fixed one. */
    private readonly now: () => number = Date.now,
  ) {
    this.origin = new URL(config.baseUrl).origin;
  }

  /**
   * Sends `request` and hands the body to `decode`, retrying as the contract allows. `decode`
   * runs inside the loop because only the decoded STATUS says whether BOJ failed with 500/503.
   */
  async send<T>(
    request: BojRequest,
    signal: AbortSignal,
    decode: (body: RawBody) => T,
    notify?: BojNotify,
  ): Promise<T> {
    const tell: BojNotify = notify ?? ((level, message, data) => logToStderr(this.log, level, "boj", message, data));
    const url = `${this.config.baseUrl}${requestPath(request)}`;
    const attempts = this.config.retryMax + 1;
    for (let attempt = 1; ; attempt++) {
      await this.pace(this.origin, this.config.minIntervalMs, signal, (ms) => {
        if (telemetryOn()) spanEvent("mcpkit.boj.pacing_wait", { "mcpkit.wait_ms": ms });
        if (ms >= PACING_NOTICE_MS) {
          tell(
            "info",
            `waiting ${ms} ms before calling BOJ ${request.endpoint}: requests to BOJ are spaced by --boj-min-interval-ms (${this.config.minIntervalMs} ms)`,
            { endpoint: request.endpoint, wait_ms: ms },
          );
        }
      });
      let retryAfterMs: number | undefined;
      try {
        const answer = await this.fetchOnce(url, signal, this.bodyCap(request));
        retryAfterMs = answer.retryAfterMs;
        return decode(answer.body);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof BojError)) throw error;
        if (retryAfterMs !== undefined) error.details.retry_after_s = retryAfterSeconds(retryAfterMs);
        const reason = describeFailure(error);
        const backoffMs = this.config.retryBackoffMs * 2 ** (attempt - 1);
        // BOJ asked for a longer pause than this call should sit through: give up now and say so.
        const waitTooLong = retryAfterMs !== undefined && retryAfterMs > this.longestRetryAfterWaitMs();
        if (!isRetryable(error) || attempt >= attempts || waitTooLong) {
          error.details.attempts = attempt;
          if (error.type !== "VALIDATION_ERROR") {
            // BOJ refusing the arguments (4xx) is the caller's to fix, not a fault of the service.
            const clientSide = error.type === "API_ERROR" && (error.details.status ?? 500) < 500;
            tell(
              clientSide ? "notice" : "error",
              `BOJ ${request.endpoint} failed after ${attempt} attempt${attempt > 1 ? "s" : ""}: ${reason}${retryAfterNote(error)}`,
              // How many were made, not the most allowed: an error that is not retried stops at 1.
              { ...failureFields(request, error), attempts: attempt },
            );
          }
          throw error;
        }
        // Never sooner than BOJ asked (Retry-After), never sooner than the backoff.
        const waitMs = Math.max(backoffMs, retryAfterMs ?? 0);
        const asked = waitMs > backoffMs ? " (as BOJ asked in Retry-After)" : "";
        tell(
          "warning",
          `BOJ ${request.endpoint} attempt ${attempt} of ${attempts} failed (${reason}); retrying in ${waitMs} ms${asked}`,
          { ...failureFields(request, error), attempt, of: attempts, wait_ms: waitMs },
        );
        await this.wait(waitMs, signal);
      }
    }
  }

  /** MAX_RETRY_AFTER_WAIT_MS, or the longest backoff step when the configuration makes that longer. */
  private longestRetryAfterWaitMs(): number {
    return Math.max(MAX_RETRY_AFTER_WAIT_MS, this.config.retryBackoffMs * 2 ** Math.max(0, this.config.retryMax - 1));
  }

  /** How large a body may be, and what helps when one is larger. */
  private bodyCap(request: BojRequest): BodyCap {
    const data = request.endpoint !== "getMetadata";
    const bytes = (data ? this.config.maxDataBodyBytes : undefined) ?? this.config.maxBodyBytes;
    return data
      ? { bytes, advice: "narrow the request (fewer codes or a shorter period)" }
      : {
          bytes,
          // query, frequency and limit filter the catalogue after it arrived: none makes the body smaller.
          advice:
            "a database's catalogue comes whole, whatever query or limit asks, so only a larger cap reads it: ask the user to raise --boj-max-body-bytes",
        };
  }

  private async fetchOnce(
    url: string,
    callerSignal: AbortSignal,
    cap: BodyCap,
  ): Promise<{ body: RawBody; retryAfterMs: number | undefined }> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const signal = AbortSignal.any([callerSignal, timeout]);
    const timedOut = () => transportError(`BOJ did not answer within ${this.config.timeoutMs} ms (--boj-timeout-ms).`);
    let response: Response;
    let current = new URL(url);
    for (let redirects = 0; ; redirects++) {
      try {
        // Redirects are read here, not followed by fetch: one to another host would be asked in
        // BOJ's name, its answer taken for BOJ's data, and its failures blamed on BOJ's host.
        response = await upstreamFetch(current, {
          signal,
          redirect: "manual",
          headers: {
            "Accept-Encoding": "gzip",
            Accept: "application/json, text/csv;q=0.9, */*;q=0.1",
            "User-Agent": this.config.userAgent,
          },
        });
      } catch (error) {
        if (callerSignal.aborted) throw callerSignal.reason;
        if (timeout.aborted) throw timedOut();
        const code = String((error as { code?: unknown } | null)?.code ?? "");
        const [why, hint] = networkFailure(code, BASE_URL_HINT);
        const failure = transportError(`cannot reach BOJ at ${current.host} (${why}): ${hint}.`);
        // A name that does not resolve will not resolve on a retry either (issue 19).
        if (isNameNotFound(code)) failure.final = true;
        throw failure;
      }
      if (response.status < 300 || response.status > 399) break;
      await response.body?.cancel().catch(() => {});
      current = this.redirectTarget(current, response, redirects);
    }
    this.log.debug("BOJ response", { url, status: response.status });
    try {
      const bytes = await readWholeBodyOrRefuse(response, cap, signal);
      return {
        body: { bytes, httpStatus: response.status, contentType: response.headers.get("content-type") ?? "" },
        retryAfterMs: parseRetryAfter(response.headers.get("retry-after"), this.now()),
      };
    } catch (error) {
      if (error instanceof BojError) throw error;
      if (callerSignal.aborted) throw callerSignal.reason;
      if (timeout.aborted) throw timedOut();
      const message = error instanceof Error ? error.message : String(error);
      if (/zlib|gzip|decompress|inflate/i.test(message))
        throw decodeError(`the gzip body could not be inflated: ${message}`);
      throw transportError(`the connection failed while reading the body: ${message}`);
    }
  }

  /**
   * Where a 3xx answer leads, when it may be followed: only within the configured origin, at most
   * MAX_REDIRECTS times. Anything else is a final TRANSPORT_ERROR naming where it led.
   */
  private redirectTarget(from: URL, response: Response, redirects: number): URL {
    const refuse = (what: string) => {
      const failure = transportError(`BOJ at ${from.host} answered HTTP ${response.status}, ${what}`);
      failure.final = true; // the same request gets the same redirect
      return failure;
    };
    const location = response.headers.get("location");
    let target: URL | undefined;
    try {
      target = location === null ? undefined : new URL(location, from);
    } catch {
      target = undefined;
    }
    if (target === undefined) {
      throw refuse(`a redirect without a usable Location, which is not BOJ's API: ${BASE_URL_HINT}.`);
    }
    if (target.origin !== this.origin) {
      const web = target.protocol === "http:" || target.protocol === "https:";
      throw refuse(
        web
          ? `a redirect to another host, ${target.host} (${target.origin}), which is not followed: its answer would be taken for BOJ's. Check --boj-base-url (BOJ_BASE_URL): if BOJ has moved to ${target.origin}, set it to that.`
          : `a redirect to a ${target.protocol} URL, which is not followed: ${BASE_URL_HINT}.`,
      );
    }
    if (redirects >= MAX_REDIRECTS) {
      throw refuse(
        `a redirect again after ${MAX_REDIRECTS} redirects within ${this.origin} (a loop): ${BASE_URL_HINT}.`,
      );
    }
    return target;
  }
}

/** "API_ERROR 503 M181091S: …", with the upstream text stripped of control characters. */
function describeFailure(error: BojError): string {
  const status = error.details.status === undefined ? "" : ` ${error.details.status}`;
  const id = error.details.message_id ? ` ${error.details.message_id}` : "";
  return `${error.type}${status}${id}: ${stripControl(error.message)}`;
}

/** "; BOJ asked to retry after 3600 s (about 1 h)" when it sent Retry-After. */
function retryAfterNote(error: BojError): string {
  const seconds = error.details.retry_after_s;
  return seconds === undefined ? "" : `; ${askedToRetry("BOJ", seconds)}`;
}

/** Log fields with no `undefined` in them (a log line must never read `status=undefined`). */
function failureFields(request: BojRequest, error: BojError): Record<string, unknown> {
  const fields: Record<string, unknown> = { endpoint: request.endpoint, error_type: error.type };
  if (error.details.status !== undefined) fields.status = error.details.status;
  if (error.details.message_id) fields.message_id = error.details.message_id;
  if (error.details.retry_after_s !== undefined) fields.retry_after_s = error.details.retry_after_s;
  return fields;
}

/**
 * Reads the whole (already inflated) body, or refuses it once it passes `maxBytes`: a runaway or
 * hostile body becomes a DECODE_ERROR instead of exhausting memory. (Unlike oj's reader, nothing
 * is truncated: half a BOJ page would decode to wrong data.)
 */
/** The most bytes of a body read, and what to do about a larger one. */
export interface BodyCap {
  bytes: number;
  advice: string;
}

export async function readWholeBodyOrRefuse(
  response: Response,
  { bytes: maxBytes, advice }: BodyCap,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const tooBig = (size: string) =>
    decodeError(`the response body is ${size}, over the ${maxBytes}-byte cap (--boj-max-body-bytes); ${advice}.`);
  const declared = Number(response.headers.get("content-length"));
  // Content-Length counts compressed bytes when the body is gzipped, so it only rules out identity bodies.
  if (!response.headers.get("content-encoding") && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooBig(`${declared} bytes`);
  }
  const { bytes, overflowed } = await readAtMost(response.body, maxBytes, signal);
  if (overflowed) throw tooBig(`more than ${maxBytes} bytes`);
  return bytes;
}
