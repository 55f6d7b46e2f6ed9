/**
 * `Retry-After` (RFC 9110 §10.2.3) from an upstream's 429 or 503: how long it asked callers to
 * stay away, read as either form the header allows, and said in words a model can act on.
 */

/** The wait asked for, in milliseconds from `now`; undefined when there is no header or it is unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  const text = value?.trim() ?? "";
  if (/^\d+$/.test(text)) return Math.min(Number(text), 10 ** 9) * 1000; // delay-seconds
  if (text === "") return undefined;
  const at = Date.parse(text); // HTTP-date
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whole seconds, never rounding a wait down to less than was asked. */
export function retryAfterSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/** "BOJ asked to retry after 3600 s (about 1 h) (Retry-After)": what an upstream asked, for errors and logs. */
export function askedToRetry(upstream: string, seconds: number): string {
  return `${upstream} asked to retry after ${describeWait(seconds)} (Retry-After)`;
}

/** "3600 s (about 1 h)", "90 s (about 2 min)", "5 s". */
export function describeWait(seconds: number): string {
  if (seconds >= 3600) return `${seconds} s (about ${Math.round(seconds / 3600)} h)`;
  if (seconds >= 90) return `${seconds} s (about ${Math.round(seconds / 60)} min)`;
  return `${seconds} s`;
}
