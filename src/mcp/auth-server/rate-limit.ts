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
  const perAddress = new Map<string, Window>();
  const total: Window = { start: 0, count: 0 };
  const take = (window: Window, limit: number, now: number): number => {
    if (now - window.start >= 60_000) {
      window.start = now;
      window.count = 0;
    }
    if (window.count >= limit) return Math.ceil((window.start + 60_000 - now) / 1000);
    window.count++;
    return 0;
  };
  return {
    take(key) {
      const now = Date.now();
      let window = perAddress.get(key);
      if (!window) {
        // Many addresses (IPv6) must not grow the table without bound; forgetting them never resets `total`.
        if (perAddress.size >= MAX_KEYS) forgetExpired(perAddress, now);
        if (perAddress.size >= MAX_KEYS) perAddress.clear();
        window = { start: now, count: 0 };
        perAddress.set(key, window);
      }
      return take(window, perKeyPerMinute, now) || take(total, totalPerMinute, now);
    },
  };
}

interface Window {
  start: number;
  count: number;
}

function forgetExpired(windows: Map<string, Window>, now: number): void {
  for (const [key, window] of windows) if (now - window.start >= 60_000) windows.delete(key);
}
