/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25):
 * a `client_id` that is an https URL names a JSON document describing the client.
 *
 * Fetching a URL an anonymous caller chose is a server-side request forgery lever, so: https
 * only, no redirects, at most 5 KB, 10 s for the address lookup and the fetch together, and the
 * host's addresses are checked after DNS resolution — loopback, private, link-local and other
 * special ranges are refused unless a test switch allows them. The fetch then connects to an address
 * that was checked, not to whatever a second lookup of the name would answer: a resolver answering
 * a public address to the check and 127.0.0.1 or 169.254.169.254 to the fetch (DNS rebinding) would
 * otherwise reach them. The certificate is still verified against the host name (TLS `serverName`),
 * and `Host` names it, so pinning changes where the request goes and nothing the server sees.
 * Anonymous callers also choose how much of this work starts: at most CIMD_MAX_IN_FLIGHT resolutions
 * run at once, server-wide, and concurrent ones of one client_id share one.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import * as v from "valibot";
import { OAuthFailure } from "./errors.ts";
import { redirectUriProblem } from "./redirect-uri.ts";
import type { RegisteredClient } from "./store.ts";
import { readBodyAtMost } from "../../core/read-at-most.ts";
import { ipv4Tail, ipv6Groups } from "../web/addresses.ts";

export const CIMD_MAX_BYTES = 5 * 1024;
export const CIMD_TIMEOUT_MS = 10_000;
/**
 * Metadata documents being resolved (address lookup and fetch) at once, server-wide. Every
 * /authorize naming a client_id URL not in the cache starts one, and the per-address rate limit
 * does not bound many addresses together; beyond this a sign-in is told to try again rather than
 * queued. Far more than legitimate sign-ins need: one fetch serves every concurrent sign-in of a
 * client, and a document's max-age keeps it cached.
 */
export const CIMD_MAX_IN_FLIGHT = 16;
/** What Retry-After says when every slot is taken: a document usually answers within a second, at worst CIMD_TIMEOUT_MS. */
const BUSY_RETRY_AFTER_SECONDS = 5;
const MAX_CACHE_SECONDS = 86_400;
const MAX_CACHE_ENTRIES = 1000;

/** Why a client metadata document cannot be used: the reason is shown on the /authorize page. */
const refused = (reason: string) => new OAuthFailure("invalid_client", reason);

/** Not the document's fault: the sign-in may be tried again in a moment, so it is a 503, not an unknown application. */
const busy = () =>
  new OAuthFailure(
    "temporarily_unavailable",
    `This server is fetching too many applications' metadata at once; wait ${BUSY_RETRY_AFTER_SECONDS} seconds and try again.`,
    {
      status: 503,
      headers: { "retry-after": String(BUSY_RETRY_AFTER_SECONDS) },
      page: "Temporarily unavailable",
    },
  );

/**
 * The IANA special-purpose address registries (IPv4 and IPv6), less nothing: every range that is
 * not globally reachable, or is documentation, benchmarking, multicast or reserved. IPv4-mapped
 * (`::ffff:a.b.c.d`) and SIIT (`::ffff:0:a.b.c.d`) addresses are judged by the IPv4 address they
 * carry, however written; the other IPv6 ranges that carry one (NAT64, 6to4, Teredo, the
 * deprecated compatible `::a.b.c.d`) are refused whole (issue 18 G10).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3], // multicast 224/4, reserved 240/4 and broadcast
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 23], // IETF protocol assignments, Teredo 2001::/32 among them
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed by some)
  ["ff00::", 8], // multicast
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

/** Whether an address is one a metadata fetch must never reach (checked without connecting). */
export function isForbiddenAddress(address: string): boolean {
  // A zone id (`%eth0`) scopes an address to one of this host's links: never a public address.
  if (address.includes("%")) return true;
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address);
  if (embedded && blocked.check(embedded, "ipv4")) return true;
  return blocked.check(address, "ipv6");
}

/** The IPv4 address an IPv4-mapped or SIIT-translated IPv6 address carries, dotted or in hex. */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups || groups.slice(0, 4).some((group) => group !== 0)) return undefined;
  const mapped = groups[4] === 0 && groups[5] === 0xffff;
  const translated = groups[4] === 0xffff && groups[5] === 0;
  if (!mapped && !translated) return undefined;
  return ipv4Tail(groups);
}

/** Whether a client_id is meant as a metadata document URL (https with a path). */
export function isCimdClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

const documentSchema = v.looseObject({
  client_id: v.string(),
  client_name: v.optional(v.pipe(v.string(), v.maxLength(200))),
  client_uri: v.optional(v.string()),
  logo_uri: v.optional(v.string()),
  redirect_uris: v.pipe(v.array(v.string()), v.minLength(1), v.maxLength(20)),
  token_endpoint_auth_method: v.optional(v.string()),
  grant_types: v.optional(v.array(v.string())),
  response_types: v.optional(v.array(v.string())),
  scope: v.optional(v.string()),
});

export interface CimdFetcher {
  resolve(clientId: string): Promise<RegisteredClient>;
}

export interface CimdOptions {
  allowPrivate: boolean;
  ownOrigin: string;
  /** The host's addresses (node:dns, every family, by default); injectable so tests need no DNS. */
  lookupHost?: (host: string) => Promise<string[]>;
  /** A signal that aborts when one resolution's time is up (CIMD_TIMEOUT_MS by default); injectable so tests need no clock. */
  deadline?: () => AbortSignal;
  /**
   * PEM certificates to trust instead of the system's roots, so a test's document server on
   * loopback can have a certificate for a made-up name; production passes none. Verification of
   * the chain and the host name stays on either way.
   */
  trustedCertificates?: string;
}

const systemLookup = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const timeoutSeconds = CIMD_TIMEOUT_MS / 1000;

export function createCimdFetcher(options: CimdOptions): CimdFetcher {
  const cache = new Map<string, { until: number; client: RegisteredClient }>();
  const inFlight = new Map<string, Promise<RegisteredClient>>();
  let slotsTaken = 0;
  const lookupHost = options.lookupHost ?? systemLookup;
  // One deadline for lookup, fetch and body together: the person at the browser waits for all of
  // them, so the worst case stays CIMD_TIMEOUT_MS rather than a lookup's timeout plus the fetch's.
  const deadline = options.deadline ?? (() => AbortSignal.timeout(CIMD_TIMEOUT_MS));

  const remember = (clientId: string, client: RegisteredClient, maxAge: number) => {
    if (maxAge <= 0) return;
    if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(clientId, { until: Date.now() + maxAge * 1000, client });
  };

  /**
   * One lookup, fetch and check under one deadline. `settled` waits for the lookup too: a lookup
   * the deadline gave up on cannot be cancelled and still holds a resolver thread until the system
   * resolver gives up on its own, so its slot is not free before that.
   */
  const start = (clientId: string, url: URL) => {
    const signal = deadline();
    // Looked up even under the test switch, which skips only the check: the fetch connects to what
    // the lookup answered, so tests go the way production does.
    const addresses = addressesOf(url, lookupHost);
    const answer = (async () => {
      const late = () => refused(`the client_id host ${url.hostname} did not resolve within ${timeoutSeconds} s.`);
      const found = await beforeDeadline(addresses, signal, late);
      checkAddresses(url, found, options.allowPrivate);
      const { body, maxAge } = await fetchDocument(url, found, signal, options.trustedCertificates);
      const client = parseDocument(clientId, body, options.ownOrigin);
      remember(clientId, client, maxAge);
      return client;
    })();
    return { answer, settled: Promise.allSettled([answer, addresses]) };
  };

  return {
    async resolve(clientId) {
      const hit = cache.get(clientId);
      if (hit && hit.until > Date.now()) return hit.client;
      const url = parseClientIdUrl(clientId, options);
      // Sign-ins of one client at the same moment wait for one fetch rather than each starting one.
      const shared = inFlight.get(clientId);
      if (shared) return shared;
      // Taken before anything is started (no await above), so the cap holds however many arrive at once.
      if (slotsTaken >= CIMD_MAX_IN_FLIGHT) throw busy();
      slotsTaken++;
      const { answer, settled } = start(clientId, url);
      inFlight.set(clientId, answer);
      const forget = () => inFlight.delete(clientId);
      answer.then(forget, forget);
      void settled.then(() => slotsTaken--);
      return answer;
    },
  };
}

/** The client_id as a URL a metadata document may be fetched from, or the reason it may not (no network). */
function parseClientIdUrl(clientId: string, options: { allowPrivate: boolean; ownOrigin: string }): URL {
  if (!URL.canParse(clientId)) throw refused("the client_id is not a valid URL.");
  const url = new URL(clientId);
  if (url.protocol !== "https:" && !(options.allowPrivate && url.protocol === "http:"))
    throw refused("a client_id URL must use https.");
  if (url.pathname === "/" || url.hash || url.username || url.password) {
    throw refused("a client_id URL must have a path and no fragment or credentials.");
  }
  if (url.href !== clientId)
    throw refused("a client_id URL must be in normalised form (lower-case scheme and host, no default port).");
  if (url.origin === options.ownOrigin) throw refused("a client_id URL must not point at this server.");
  return url;
}

/** The addresses the client_id's host stands for; none when it does not resolve. */
function addressesOf(url: URL, lookupHost: (host: string) => Promise<string[]>): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return isIP(host) ? Promise.resolve([host]) : lookupHost(host).catch(() => []);
}

function checkAddresses(url: URL, addresses: string[], allowPrivate: boolean): void {
  if (addresses.length === 0) throw refused(`the client_id host ${url.hostname} does not resolve.`);
  if (!allowPrivate && addresses.some(isForbiddenAddress)) {
    throw refused(
      `the client_id host ${url.hostname} resolves to a private, loopback or reserved address; metadata documents must be on the public internet.`,
    );
  }
}

/** `work`'s outcome, or `late()` once `signal` aborts first; the work itself runs on (a lookup cannot be cancelled). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal, late: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(late());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(late());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const fetchFailed = (signal: AbortSignal) =>
  refused(
    `the client metadata document could not be fetched (${signal.aborted ? `no answer within ${timeoutSeconds} s` : "connection failed"}).`,
  );

/**
 * The document's URL answered from one of `addresses`, every one of them checked, tried in the
 * lookup's order: a host whose first address cannot be reached (an AAAA record on a network
 * without IPv6) is still reached through the next, as a fetch resolving the name itself would.
 */
async function fetchPinned(url: URL, addresses: string[], signal: AbortSignal, ca?: string): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // An address in the URL is both what is connected to and what the certificate must name.
  const tls = isIP(host) ? { ca } : { serverName: host, ca };
  for (const address of addresses) {
    const pinned = new URL(url);
    pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
    try {
      return await fetch(pinned, {
        redirect: "manual",
        signal,
        headers: { accept: "application/json", host: url.host },
        tls,
      });
    } catch {
      if (signal.aborted) break;
    }
  }
  throw fetchFailed(signal);
}

async function fetchDocument(
  url: URL,
  addresses: string[],
  signal: AbortSignal,
  ca?: string,
): Promise<{ body: string; maxAge: number }> {
  const response = await fetchPinned(url, addresses, signal, ca);
  if (response.status >= 300 && response.status < 400) {
    void response.body?.cancel();
    throw refused(
      "the client metadata document URL redirects; redirects are not followed, serve the document at the client_id URL itself.",
    );
  }
  if (response.status !== 200) {
    void response.body?.cancel();
    throw refused(`the client metadata document URL answered HTTP ${response.status}.`);
  }
  const body = await readLimited(response, CIMD_MAX_BYTES, signal);
  return { body, maxAge: cacheSeconds(response.headers.get("cache-control")) };
}

async function readLimited(response: Response, maxBytes: number, signal: AbortSignal): Promise<string> {
  // A body that trickles in is held to the same deadline: it would otherwise keep its slot.
  const bytes = await readBodyAtMost(response, maxBytes, signal).catch(() => {
    throw fetchFailed(signal);
  });
  if (!bytes) throw refused(`the client metadata document is larger than ${maxBytes} bytes.`);
  return new TextDecoder().decode(bytes);
}

function parseDocument(clientId: string, body: string, ownOrigin: string): RegisteredClient {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw refused("the client metadata document is not JSON.");
  }
  const parsed = v.safeParse(documentSchema, json);
  if (!parsed.success)
    throw refused("the client metadata document needs client_id and redirect_uris (1 to 20 strings).");
  const document = parsed.output;
  if (document.client_id !== clientId)
    throw refused("the client metadata document's client_id is not the URL it was fetched from.");
  if (document.token_endpoint_auth_method && document.token_endpoint_auth_method !== "none") {
    throw refused(
      'this server only serves public clients: the document\'s token_endpoint_auth_method must be "none" or absent.',
    );
  }
  for (const uri of document.redirect_uris) {
    const problem = redirectUriProblem(uri, ownOrigin);
    if (problem) throw refused(`the client metadata document lists a redirect URI this server refuses: ${problem}`);
  }
  return {
    client_id: clientId,
    client_name: document.client_name,
    client_uri: document.client_uri,
    redirect_uris: document.redirect_uris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: document.scope,
  };
}

/** Seconds from `Cache-Control: max-age`, 0 for `no-store`/`no-cache`/absent. */
function cacheSeconds(header: string | null): number {
  if (!header || /\b(no-store|no-cache|private)\b/i.test(header)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(header);
  return match ? Math.min(Number(match[1]), MAX_CACHE_SECONDS) : 0;
}
