/**
 * Where the data tools get BOJ's answers: from the cache when the exact request was answered
 * recently, otherwise from BOJ through the client (pacing, retries), storing the decoded answer.
 * A hit takes no pacing slot and makes no request. Only successes reach the cache: a failure
 * throws before `set`.
 */
import { countEvent, telemetryOn } from "../../core/telemetry/index.ts";
import type { ToolContext } from "../../core/tool.ts";
import { type AnswerCache, approximateBytes } from "./cache.ts";
import type { BojClient } from "./client.ts";
import type { Decoded, RawBody } from "./decode/index.ts";
import type { Cached } from "./schemas.ts";
import { cacheLookups } from "./telemetry.ts";
import { type BojRequest, requestPath } from "./validation.ts";

/** How long an answer stays fresh, per kind: BOJ refreshes data daily around 08:50 JST, metadata daily. */
export interface CacheTtl {
  dataMs: number;
  metadataMs: number;
}

export interface Answer<T> {
  output: T;
  raw(): string;
  /** Set when the answer came from the cache. */
  cached?: Cached;
}

export class BojAnswers {
  constructor(
    private readonly client: BojClient,
    private readonly cache: AnswerCache | undefined,
    private readonly ttl: CacheTtl,
    private readonly now: () => number = Date.now,
  ) {}

  async fetch<T>(
    request: BojRequest,
    context: Pick<ToolContext, "signal" | "notify">,
    decode: (body: RawBody) => Decoded<T>,
    /** Whether a new answer is stored (default true; the series catalogue keeps its own copy, search/index.ts). */
    store = true,
  ): Promise<Answer<T>> {
    const key = requestPath(request);
    const ttlMs = request.endpoint === "getMetadata" ? this.ttl.metadataMs : this.ttl.dataMs;
    const hit = this.cache && ttlMs > 0 ? await this.cache.get(key) : undefined;
    if (this.cache && ttlMs > 0 && telemetryOn()) {
      countEvent(cacheLookups, { "mcpkit.cache.result": hit ? "hit" : "miss" });
    }
    if (hit) {
      const ageMs = Math.max(0, this.now() - hit.storedAt);
      return {
        output: hit.output as T,
        raw: hit.raw,
        cached: { age_seconds: Math.round(ageMs / 100) / 10, fetched_at: new Date(hit.storedAt).toISOString() },
      };
    }
    let bodyBytes = 0;
    const decoded = await this.client.send(
      request,
      context.signal,
      (body) => {
        bodyBytes = body.bytes.length;
        return decode(body);
      },
      (level, message, data) => context.notify(level, "boj", message, data),
    );
    if (this.cache && ttlMs > 0 && store) {
      await this.cache.set(
        key,
        { output: decoded.output, raw: decoded.raw, storedAt: this.now() },
        approximateBytes(decoded.output, bodyBytes),
        ttlMs,
      );
    }
    return { output: decoded.output, raw: decoded.raw };
  }
}
