/**
 * Fixed-window counters for dynamic registration: per client address, and in total, so a flood
 * from many addresses cannot fill the store either. Per instance (good enough for a limit).
 */
export interface RateLimiter {
  /** Seconds to wait when over the limit, else 0 (and the attempt is counted). */
  take(key: string): number;
}

const MAX_KEYS = 10_000;

export function createRateLimiter(perKeyPerMinute: number, totalPerMinute: number): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const count = (key: string, limit: number, now: number): number => {
    let window = windows.get(key);
    if (!window || now - window.start >= 60_000) {
      if (!window && windows.size >= MAX_KEYS) windows.clear();
      window = { start: now, count: 0 };
      windows.set(key, window);
    }
    if (window.count >= limit) return Math.ceil((window.start + 60_000 - now) / 1000);
    window.count++;
    return 0;
  };
  return {
    take(key) {
      const now = Date.now();
      return count(`addr:${key}`, perKeyPerMinute, now) || count("total", totalPerMinute, now);
    },
  };
}
