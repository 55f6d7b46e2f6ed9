/**
 * Fixed-window counters for the authorization server's anonymous routes (per instance, good
 * enough for a limit). Two separate bounds (issue 18 G4):
 * - `admit`: per client address, counted for every request, junk included, so one address cannot
 *   flood; IPv6 addresses count per /64, since one host usually holds a whole /64;
 * - `commit`: server-wide, counted only by a valid request just before it writes a row, so it
 *   bounds what the store takes per minute, and junk from many addresses never uses it up.
 *
 * Memory is bounded, yet no caller can reset a counter by filling the table: a live window is
 * never dropped. Forgetting live windows, as the table once did when full (it cleared itself), let
 * anyone with 10,000 IPv6 /64s (one /48 holds 65,536) reset every counter, its own included, once a
 * minute; forgetting only the oldest lets the same caller reset its own. Refusing every newcomer
 * instead would let that caller lock out everyone else. So while the address windows are full of
 * live ones, a newcomer is counted by its network (IPv6 /48, IPv4 /24): a flood from one network
 * then limits newcomers from that network only. Should the network windows fill up too, the
 * remaining newcomers share one window until windows expire. A caller thus gets at most its own
 * window plus its network's plus the shared one in a minute, never a fresh start.
 */
import { ipv4Tail, ipv6Groups } from "../web/addresses.ts";

export interface RateLimiter {
  /** Seconds the address must wait, else 0 (and the request is counted). */
  admit(address: string): number;
  /** Seconds until the store takes another row, else 0 (and the row is counted). */
  commit(): number;
  /** Per-address and per-network windows held now (bounded: see the limits below). */
  windowsHeld(): number;
}

/** Most per-address windows held at once. */
export const ADDRESS_WINDOWS_MAX = 10_000;
/** Most per-network windows held at once (used only while the address windows are full). */
export const NETWORK_WINDOWS_MAX = 10_000;
const WINDOW_MS = 60_000;

interface Window {
  start: number;
  count: number;
}

const expired = (window: Window, at: number): boolean => at - window.start >= WINDOW_MS;

/**
 * Windows by key, held in the order they started (a Map keeps insertion order, and a window that
 * starts anew is inserted anew), so the expired ones are always at the front and room is made in
 * O(1) amortised: each window is dropped at most once, and the first live one ends the search.
 */
class WindowTable {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.windows.size;
  }

  /** The key's live window, new if it has none; undefined when every window held is live and there is no room. */
  windowFor(key: string, at: number): Window | undefined {
    const current = this.windows.get(key);
    if (current && !expired(current, at)) return current;
    if (current) this.windows.delete(key);
    else if (this.windows.size >= this.capacity) this.dropExpired(at);
    if (this.windows.size >= this.capacity) return undefined;
    const fresh: Window = { start: at, count: 0 };
    this.windows.set(key, fresh);
    return fresh;
  }

  private dropExpired(at: number): void {
    for (const [key, window] of this.windows) {
      if (!expired(window, at)) return;
      this.windows.delete(key);
    }
  }
}

export function createRateLimiter(
  perAddressPerMinute: number,
  rowsPerMinute: number,
  now: () => number = Date.now,
): RateLimiter {
  const addresses = new WindowTable(ADDRESS_WINDOWS_MAX);
  const networks = new WindowTable(NETWORK_WINDOWS_MAX);
  const sharedByTheRest: Window = { start: 0, count: 0 };
  const rows: Window = { start: 0, count: 0 };
  const take = (window: Window, limit: number, at: number): number => {
    if (expired(window, at)) {
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
      const window =
        addresses.windowFor(addressBucket(address), at) ??
        networks.windowFor(networkBucket(address), at) ??
        sharedByTheRest;
      return take(window, perAddressPerMinute, at);
    },
    commit: () => take(rows, rowsPerMinute, now()),
    windowsHeld: () => addresses.size + networks.size,
  };
}

/**
 * The key an address is counted under: IPv4 as it is (also when IPv4-mapped), IPv6 by its /64,
 * however it is written (`2001:db8::1:2:3:4`, `2001:DB8:0::102:304`, a dotted tail); anything
 * else (a browser's nonce) as it is.
 */
export function addressBucket(address: string): string {
  const ipv4 = mappedIPv4(address);
  if (ipv4) return ipv4;
  const groups = ipv6Groups(address);
  return groups ? `${hexGroups(groups, 4)}::/64` : address;
}

/**
 * The key a newcomer is counted under while the address windows are full: its IPv6 /48 (what one
 * site is usually given) or IPv4 /24. Keys that are not addresses (a browser's nonce) have no
 * network, so they share one key.
 */
export function networkBucket(address: string): string {
  const ipv4 = mappedIPv4(address) ?? (/^\d+\.\d+\.\d+\.\d+$/.test(address) ? address : undefined);
  if (ipv4) return `${ipv4.slice(0, ipv4.lastIndexOf("."))}.0/24`;
  const groups = ipv6Groups(address);
  return groups ? `${hexGroups(groups, 3)}::/48` : "not an address";
}

/** The first `count` groups, in their shortest hex form. */
function hexGroups(groups: readonly number[], count: number): string {
  return groups
    .slice(0, count)
    .map((group) => group.toString(16))
    .join(":");
}

/** The IPv4 address an IPv4-mapped IPv6 address carries (`::ffff:192.0.2.1`, `::ffff:c000:201`), dotted. */
function mappedIPv4(address: string): string | undefined {
  const groups = address.includes(":") ? ipv6Groups(address) : undefined;
  if (!groups || groups.slice(0, 5).some((group) => group !== 0) || groups[5] !== 0xffff) return undefined;
  return ipv4Tail(groups);
}
