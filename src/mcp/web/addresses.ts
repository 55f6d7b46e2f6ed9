/**
 * Addresses as they reach an HTTP server (no MCP in them): the `--http` listen address, the Host header,
 * whether a name only reaches this machine, and which client a trusted proxy's `X-Forwarded-For` names.
 * Parsed strictly: `127.999.999.999` is no address,
 * and `127.0.0.1#evil` or `evil.com@127.0.0.1` are no Host header, however a URL parser would
 * read them.
 */
import { lazy } from "../../core/lazy.ts";

/**
 * node:net's isIP, loaded on first use and kept: every start-up imports this module (for the
 * option specs), only an HTTP server reads addresses, and node:net cost a stdio start-up ~0.3 ms
 * of CPU; a `require` per use would look it up again on every request that reads an address.
 */
const net = lazy(() => require("node:net") as typeof import("node:net"));

function isIP(name: string): number {
  return net.get().isIP(name);
}

/**
 * The eight 16-bit groups of an IPv6 address, `::` expanded and a dotted IPv4 tail read as the two
 * groups it stands for (`64:ff9b::192.0.2.1`, `::ffff:10.0.0.1`); undefined for anything else. The
 * one reader of IPv6 groups: the metadata fetch's address check and the rate limits' buckets use it.
 */
export function ipv6Groups(text: string): number[] | undefined {
  if (isIP(text) !== 6 || text.includes("%")) return undefined;
  const address = text.toLowerCase().replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_all, a, b, c, d) => {
    const [w, x, y, z] = [a, b, c, d].map(Number);
    return `${((w << 8) | x).toString(16)}:${((y << 8) | z).toString(16)}`;
  });
  const [head, tail] = address.split("::");
  const parse = (part: string | undefined) => (part ? part.split(":").map((group) => Number.parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : undefined;
}

/** The IPv4 address the last two of an IPv6 address's groups spell, dotted (for a mapped or translated address). */
export function ipv4Tail(groups: readonly number[]): string {
  const [high, low] = [groups[6], groups[7]];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Longest Host header we parse: a 253-character DNS name plus a port, with room to spare. */
export const MAX_HOST_HEADER_LENGTH = 270;

/** `8080`, `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:0`. The host defaults to 127.0.0.1. */
export function parseListenAddress(text: string): { host: string; port: number } | undefined {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:\s[\]]+):)?(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  const host = match[1] ? match[1].replace(/^\[|\]$/g, "") : "127.0.0.1";
  return { host, port };
}

/** Whether an address or name only reaches this machine: `localhost`, 127.0.0.0/8, `::1` (also IPv4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (name === "localhost") return true;
  switch (isIP(name)) {
    case 4:
      return name.startsWith("127.");
    case 6: {
      if (name.includes("%")) return false; // a zone id names an interface, not loopback
      // The URL parser gives the canonical compressed form: `0:0:…:1` → `::1`, `::ffff:127.0.0.1` → `::ffff:7f00:1`.
      const canonical = new URL(`http://[${name}]`).hostname;
      return canonical === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
    }
    default:
      return false;
  }
}

export function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "";
}

export interface HostHeader {
  /** Lower-cased, IPv6 in brackets: `example.com`, `127.0.0.1`, `[::1]`. */
  hostname: string;
  port?: number;
}

/**
 * A Host header (RFC 9110 §7.2: `uri-host [ ":" port ]`) or a sentence saying what is wrong with it.
 * Names are limited to letters, digits, `-`, `_` and `.` (what DNS and /etc/hosts hold); a name made
 * only of digits and dots must be a valid IPv4 address.
 */
export function parseHostHeader(value: string | null): HostHeader | string {
  // Every request of a client sends the same Host: the last answer is kept (it is frozen, and a
  // pure function of the text), so a request pays a string comparison instead of the regexes.
  if (value === lastHost.value && value !== null) return lastHost.parsed;
  const parsed = parseHost(value);
  if (value !== null) lastHost = { value, parsed: typeof parsed === "string" ? parsed : Object.freeze(parsed) };
  return parsed;
}

let lastHost: { value: string | null; parsed: Readonly<HostHeader> | string } = { value: null, parsed: "" };

function parseHost(value: string | null): HostHeader | string {
  if (value === null || value === "") return "the request has no Host header";
  if (value.length > MAX_HOST_HEADER_LENGTH)
    return `the Host header is longer than ${MAX_HOST_HEADER_LENGTH} characters`;
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return "the Host header must be a host name or IP address, optionally followed by :PORT";
  const [, host, portText] = match;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && port > 65535) return "the Host header's port must be between 0 and 65535";
  if (host.startsWith("[")) {
    const inner = host.slice(1, -1);
    if (isIP(inner) !== 6 || inner.includes("%"))
      return "the Host header's bracketed part must be an IPv6 address, like [::1]";
    return { hostname: new URL(`http://${host}`).hostname, port };
  }
  if (!/^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?$/.test(host) || host.includes("..")) {
    return "the Host header's name may hold only letters, digits, '-', '_' and '.'";
  }
  if (/^[0-9.]+$/.test(host) && isIP(host) !== 4)
    return "the Host header's address is not a valid IPv4 address (four numbers from 0 to 255)";
  return { hostname: host.toLowerCase(), port };
}

/** An IP address, or a CIDR range of them, as `--trusted-proxies` lists them. */
export interface AddressRange {
  address: string;
  /** Leading bits that must match: 32 (IPv4) or 128 (IPv6) for one address. */
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** `127.0.0.1`, `10.0.0.0/8`, `::1`, `2001:db8::/32`; undefined for anything else (a name, a port, `/33`). */
export function parseAddressRange(text: string): AddressRange | undefined {
  const match = /^([^/\s]+)(?:\/(0|[1-9]\d{0,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, address, prefixText] = match;
  const family = ipFamily(address);
  if (!family) return undefined;
  const bits = family === "ipv4" ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  return prefix <= bits ? { address, prefix, family } : undefined;
}

/**
 * The family of an IP address written alone. A zone id (`fe80::1%eth0`) is refused: it names an
 * interface of the host that wrote it, which means nothing here.
 */
function ipFamily(text: string): "ipv4" | "ipv6" | undefined {
  switch (isIP(text)) {
    case 4:
      return "ipv4";
    case 6:
      return text.includes("%") ? undefined : "ipv6";
    default:
      return undefined;
  }
}

/** The proxies whose `X-Forwarded-For` is believed (`--trusted-proxies`). */
export interface TrustedProxies {
  /** Whether `address` is one of them; IPv4-mapped IPv6 (`::ffff:10.0.0.1`) matches IPv4 entries. */
  includes(address: string): boolean;
}

/** The proxies `entries` name (each checked by `parseAddressRange` when the options were read). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  // BlockList matches IPv4-mapped IPv6 addresses against IPv4 ranges and back, so a server bound
  // to `::` (which sees `::ffff:127.0.0.1`) trusts the same proxies as one bound to 0.0.0.0.
  const ranges = new (net.get().BlockList)();
  for (const entry of entries) {
    const range = parseAddressRange(entry);
    if (!range) throw new Error(`not an IP address or CIDR range: ${JSON.stringify(entry)}`);
    ranges.addSubnet(range.address, range.prefix, range.family);
  }
  return {
    includes(address) {
      const family = ipFamily(address);
      return family !== undefined && ranges.check(address, family);
    },
  };
}

/**
 * Most `X-Forwarded-For` entries read, from the right. Each proxy in the chain adds one, and no
 * real chain is a dozen deep; without a bound a client could send thousands of entries that look
 * like trusted hops and have every request walk them all.
 */
export const MAX_FORWARDED_ENTRIES = 32;

/**
 * The address a request came from: the socket's `peer`, or, when the peer is a trusted proxy, the
 * address `forwardedFor` (X-Forwarded-For, all its values joined with commas) names. Read from the
 * right, since each proxy appends the address it saw and only the entries added by trusted proxies
 * can be believed: trusted hops are skipped and the first untrusted address is the client; anything
 * left of it is whatever the client chose to send. An entry that is no IP address (`unknown`, a
 * port, garbage) ends the walk at the nearest trusted hop, so a forged value is never returned.
 */
export function clientAddressOf(
  peer: string | undefined,
  forwardedFor: string | null,
  trusted: TrustedProxies | undefined,
): string | undefined {
  if (peer === undefined || !forwardedFor || !trusted?.includes(peer)) return peer;
  let nearestTrusted = peer;
  // Walked with lastIndexOf rather than split, so a long header costs only the entries read.
  let end = forwardedFor.length;
  for (let read = 0; read < MAX_FORWARDED_ENTRIES && end >= 0; read++) {
    const comma = forwardedFor.lastIndexOf(",", end - 1);
    const entry = forwardedFor.slice(comma + 1, end).trim();
    if (ipFamily(entry) === undefined) return nearestTrusted;
    if (!trusted.includes(entry)) return entry;
    nearestTrusted = entry;
    end = comma;
  }
  return nearestTrusted;
}
