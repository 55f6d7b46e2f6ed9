/**
 * A loopback port nobody listens on right now, for a process a test starts that must listen on a
 * port it is given (a fake upstream, a Prometheus exporter, PostgreSQL).
 *
 * Chosen below the kernel's ephemeral range, not by binding port 0: a port the kernel hands out
 * for port 0 is one it also hands out as the local port of outgoing connections, and with the
 * suite's files running in parallel, some other test's client connection took it between its
 * release here and the child's bind ("Failed to start server. Is port 46553 in use?"). No
 * connection is ever given a port below that range, so only another listener can take it.
 */
import { readFileSync } from "node:fs";

/** Lowest port of the range above which the kernel picks ephemeral ports (RFC 6335's 49152 where unknown). */
export function ephemeralPortsFrom(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const port = Number(low);
    if (Number.isInteger(port) && port > 1024) return port;
  } catch {
    // Not Linux: the IANA range most other systems use.
  }
  return 49152;
}

/** Where the ports come from: above the well-known and common service ports, below the ephemeral range. */
const LOWEST = 20_000;
const ATTEMPTS = 50;

export function freeLoopbackPort(): number {
  const highest = Math.max(LOWEST + 1_000, ephemeralPortsFrom() - 1);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    try {
      const probe = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response() });
      probe.stop(true);
      return port;
    } catch {
      // Someone listens there: try another.
    }
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${highest} after ${ATTEMPTS} tries`);
}
