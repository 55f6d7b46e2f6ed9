/**
 * Fixed-window counters for the authorization server's anonymous routes (per instance, good
 * enough for a limit). Two separate bounds (issue 18 G4):
 * - `admit`: per client address, counted for every request, junk included, so one address cannot
 *   flood; IPv6 addresses count per /64, since one host usually holds a whole /64;
 * - `commit`: server-wide, counted only by a valid request just before it writes a row, so it
 *   bounds what the store takes per minute, and junk from many addresses never uses it up.
 */
export interface RateLimiter {
  /** Seconds the address must wait, else 0 (and the request is counted). */
  admit(address: string): number;
  /** Seconds until the store takes another row, else 0 (and the row is counted). */
  commit(): number;
}

const MAX_KEYS = 10_000;
const WINDOW_MS = 60_000;

interface Window {
  start: number;
  count: number;
}

export function createRateLimiter(
  perAddressPerMinute: number,
  rowsPerMinute: number,
  now: () => number = Date.now,
): RateLimiter {
  const perAddress = new Map<string, Window>();
  const rows: Window = { start: 0, count: 0 };
  const take = (window: Window, limit: number, at: number): number => {
    if (at - window.start >= WINDOW_MS) {
      window.start = at;
      window.count = 0;
    }
    if (window.count >= limit) return Math.ceil((window.start + WINDOW_MS - at) / 1000);
    window.count++;
    return 0;
  };
  return {
    admit(address) {
      const at = now();
      const key = addressBucket(address);
      let window = perAddress.get(key);
      if (!window) {
        // Many addresses must not grow the table without bound.
        if (perAddress.size >= MAX_KEYS) forgetExpired(perAddress, at);
        if (perAddress.size >= MAX_KEYS) perAddress.clear();
        window = { start: at, count: 0 };
        perAddress.set(key, window);
      }
      return take(window, perAddressPerMinute, at);
    },
    commit: () => take(rows, rowsPerMinute, now()),
  };
}

/** The key an address is counted under: IPv4 as it is (also when IPv4-mapped), IPv6 by its /64. */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(":")) return address;
  const [head, tail] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}

function forgetExpired(windows: Map<string, Window>, at: number): void {
  for (const [key, window] of windows) if (at - window.start >= WINDOW_MS) windows.delete(key);
}
