/**
 * A loopback port nobody listens on right now, for a process a test starts that must listen on a
 * port it is given (a fake upstream, a Prometheus exporter, PostgreSQL), or that a test needs
 * closed for a while (an upstream that is down).
 *
 * Chosen outside the kernel's ephemeral range, not by binding port 0: a port the kernel hands out
 * for port 0 is one it also hands out as the local port of outgoing connections, and with the
 * suite's files running in parallel, some other test's client connection took it between its
 * release here and the child's bind ("Failed to start server. Is port 46553 in use?"). No
 * connection or port-0 listener is ever given a port outside that range, so only another test
 * asking here can take it.
 */
import { readFileSync } from "node:fs";

/** Well-known and common service ports stay below this. */
const LOWEST = 20_000;
const HIGHEST = 65_535;
/** A gap narrower than this is too easily shared by parallel tests. */
const NARROWEST = 1_000;
const ATTEMPTS = 50;

/**
 * The ports to draw from, given the kernel's ephemeral range as
 * /proc/sys/net/ipv4/ip_local_port_range writes it ("32768\t60999"): the wider of the gaps below
 * and above it. Without the file, the IANA range most other systems use (49152–65535).
 */
export function portsOutsideEphemeral(rangeText: string | undefined): { from: number; to: number } {
  const [low, high] = (rangeText ?? "49152 65535").trim().split(/\s+/).map(Number);
  if (!Number.isInteger(low) || !Number.isInteger(high) || low > high) {
    throw new Error(`unreadable ephemeral port range ${JSON.stringify(rangeText)}`);
  }
  const below = { from: LOWEST, to: low - 1 };
  const above = { from: Math.max(LOWEST, high + 1), to: HIGHEST };
  const gap = below.to - below.from >= above.to - above.from ? below : above;
  if (gap.to - gap.from + 1 < NARROWEST) {
    throw new Error(`the ephemeral port range ${low}–${high} leaves no gap of ${NARROWEST} ports above ${LOWEST}`);
  }
  return gap;
}

function ephemeralRangeText(): string | undefined {
  try {
    return readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
  } catch {
    return undefined; // not Linux
  }
}

export function freeLoopbackPort(): number {
  const { from, to } = portsOutsideEphemeral(ephemeralRangeText());
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    try {
      const probe = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response() });
      probe.stop(true);
      return port;
    } catch {
      // Someone listens there: try another.
    }
  }
  throw new Error(`no free loopback port from ${from} to ${to} after ${ATTEMPTS} tries`);
}
