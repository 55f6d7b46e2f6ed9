/**
 * A bounded cache of decoded BOJ answers (docs/contracts/boj.md "Cache"). BOJ asks for no
 * high-frequency access and a model often repeats a call (the discovery prompts read a database's
 * metadata again and again), so a repeated request is answered from memory: no pacing slot, no
 * network, no decoding. Keys are the exact upstream request (endpoint, every parameter, format,
 * language); tool-side filters and paging are applied after, so every offset of one metadata
 * listing shares one entry. Errors are never stored. `include_raw` reads the same entry.
 *
 * `AnswerCache` is the seam for a shared store (several instances on one database would share
 * answers and BOJ's rate); `MemoryAnswerCache` is the in-process one.
 */

export interface CachedAnswer {
  output: unknown;
  /** The decoded upstream body, for `include_raw`; computed only when asked for. */
  raw(): string;
  /** Date.now() when BOJ answered. */
  storedAt: number;
}

export interface AnswerCache {
  /** The live entry for `key`, or undefined (absent or expired). */
  get(key: string): CachedAnswer | undefined | Promise<CachedAnswer | undefined>;
  /** Stores a successful answer for `ttlMs`; `bytes` is its approximate size in memory. */
  set(key: string, answer: CachedAnswer, bytes: number, ttlMs: number): void | Promise<void>;
}

interface Slot {
  answer: CachedAnswer;
  bytes: number;
  expiresAt: number;
}

/**
 * Least-recently-used eviction under a byte budget. A Map keeps insertion order, so re-inserting
 * on each hit makes its first key the least recently used one.
 */
export class MemoryAnswerCache implements AnswerCache {
  private readonly slots = new Map<string, Slot>();
  private used = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): { entries: number; bytes: number } {
    return { entries: this.slots.size, bytes: this.used };
  }

  get(key: string): CachedAnswer | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    this.slots.delete(key);
    if (slot.expiresAt <= this.now()) {
      this.used -= slot.bytes;
      return undefined;
    }
    this.slots.set(key, slot);
    return slot.answer;
  }

  set(key: string, answer: CachedAnswer, bytes: number, ttlMs: number): void {
    this.remove(key);
    // An answer larger than the whole budget would only evict everything else and then itself.
    if (ttlMs <= 0 || bytes > this.maxBytes) return;
    this.slots.set(key, { answer, bytes, expiresAt: this.now() + ttlMs });
    this.used += bytes;
    for (const [oldest, slot] of this.slots) {
      if (this.used <= this.maxBytes) break;
      this.slots.delete(oldest);
      this.used -= slot.bytes;
    }
  }

  private remove(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.used -= slot.bytes;
  }
}

/**
 * The memory a decoded answer holds, roughly: JavaScript strings at two bytes a character, a
 * fixed cost per object, and the body kept for `include_raw`. Exactness does not matter; the
 * bound has to grow with what is stored, so a flood of large pages cannot exceed it.
 */
export function approximateBytes(output: unknown, bodyBytes: number): number {
  return 2 * bodyBytes + sizeOf(output);
}

function sizeOf(value: unknown): number {
  if (value === null || value === undefined) return 8;
  if (typeof value === "string") return 16 + 2 * value.length;
  if (typeof value !== "object") return 8;
  let total = 32;
  if (Array.isArray(value)) {
    for (const item of value) total += 8 + sizeOf(item);
    return total;
  }
  for (const key in value) total += 8 + sizeOf((value as Record<string, unknown>)[key]);
  return total;
}
