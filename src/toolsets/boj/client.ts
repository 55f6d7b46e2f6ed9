/**
 * The HTTP side of the boj toolset: one GET per attempt with Bun's fetch, a timeout per attempt,
 * gzip, a capped streaming read of the body, the process-wide spacing between requests, and the
 * retry policy of seed 000 §5 (transport errors and API 500/503 only, `backoff * 2^n`,
 * `retry_max` retries). The caller's AbortSignal stops the request and any wait.
 */
import type { Logger } from "../../core/log.ts";
import { BojError, decodeError, isRetryable, transportError } from "./errors.ts";
import type { RawBody } from "./decode/body.ts";
import { awaitTurn } from "./pacer.ts";
import { sleep } from "./sleep.ts";
import { type BojRequest, requestPath } from "./validation.ts";
import { readAtMost } from "../../core/read-at-most.ts";

export interface BojClientConfig {
  baseUrl: string;
  timeoutMs: number;
  retryMax: number;
  retryBackoffMs: number;
  minIntervalMs: number;
  maxBodyBytes: number;
  userAgent: string;
}

export class BojClient {
  private readonly origin: string;

  constructor(
    private readonly config: BojClientConfig,
    private readonly log: Logger,
  ) {
    this.origin = new URL(config.baseUrl).origin;
  }

  /**
   * Sends `request` and hands the body to `decode`, retrying as the seed allows. `decode` runs
   * inside the loop because only the decoded STATUS says whether BOJ failed with 500/503.
   */
  async send<T>(request: BojRequest, signal: AbortSignal, decode: (body: RawBody) => T): Promise<T> {
    const url = `${this.config.baseUrl}${requestPath(request)}`;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await sleep(this.config.retryBackoffMs * 2 ** (attempt - 1), signal);
      await awaitTurn(this.origin, this.config.minIntervalMs, signal);
      try {
        const body = await this.fetchOnce(url, signal);
        return decode(body);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof BojError)) throw error;
        const retry = isRetryable(error) && attempt < this.config.retryMax;
        this.log[retry ? "warn" : "debug"]("BOJ request failed", {
          endpoint: request.endpoint,
          attempt: attempt + 1,
          error_type: error.type,
          status: error.details.status,
          retry,
        });
        if (!retry) {
          error.details.attempts = attempt + 1;
          throw error;
        }
      }
    }
  }

  private async fetchOnce(url: string, callerSignal: AbortSignal): Promise<RawBody> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const signal = AbortSignal.any([callerSignal, timeout]);
    const timedOut = () =>
      transportError(`BOJ did not answer within ${this.config.timeoutMs} ms (--boj-timeout-ms).`);
    let response: Response;
    try {
      response = await fetch(url, {
        signal,
        headers: { "Accept-Encoding": "gzip", Accept: "application/json, text/csv;q=0.9, */*;q=0.1", "User-Agent": this.config.userAgent },
      });
    } catch (error) {
      if (callerSignal.aborted) throw callerSignal.reason;
      if (timeout.aborted) throw timedOut();
      throw transportError(`could not reach ${this.origin}: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.log.debug("BOJ response", { url, status: response.status });
    try {
      const bytes = await readCapped(response, this.config.maxBodyBytes, signal);
      return { bytes, httpStatus: response.status, contentType: response.headers.get("content-type") ?? "" };
    } catch (error) {
      if (error instanceof BojError) throw error;
      if (callerSignal.aborted) throw callerSignal.reason;
      if (timeout.aborted) throw timedOut();
      const message = error instanceof Error ? error.message : String(error);
      if (/zlib|gzip|decompress|inflate/i.test(message)) throw decodeError(`the gzip body could not be inflated: ${message}`);
      throw transportError(`the connection failed while reading the body: ${message}`);
    }
  }
}

/**
 * Reads the whole (already inflated) body, refusing to hold more than `maxBytes`: a runaway or
 * hostile body becomes a DECODE_ERROR instead of exhausting memory.
 */
export async function readCapped(response: Response, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const tooBig = (size: string) =>
    decodeError(`the response body is ${size}, over the ${maxBytes}-byte cap (--boj-max-body-bytes); narrow the request (fewer codes or a shorter period).`);
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
