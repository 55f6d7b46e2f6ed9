/**
 * The ports tests hand to a process that must listen on a port it is given
 * (test/support/ports.ts). One came from binding port 0, an ephemeral port, and a parallel test's
 * outgoing connection took it before the child bound it: the quick-start test failed with "Failed
 * to start server. Is port 46553 in use?". Ports now come from outside the ephemeral range.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { freeLoopbackPort, portsOutsideEphemeral } from "../support/ports.ts";

describe("the ports outside the ephemeral range", () => {
  test("Linux's default range leaves the ports below it", () => {
    expect(portsOutsideEphemeral("32768\t60999\n")).toEqual({ from: 20_000, to: 32_767 });
  });

  test("a range that starts low leaves the ports above it", () => {
    expect(portsOutsideEphemeral("10000 49151")).toEqual({ from: 49_152, to: 65_535 });
    expect(portsOutsideEphemeral("20500 60000")).toEqual({ from: 60_001, to: 65_535 });
  });

  test("without the file (not Linux), the IANA range: the ports below it", () => {
    expect(portsOutsideEphemeral(undefined)).toEqual({ from: 20_000, to: 49_151 });
  });

  test("a range that leaves no room, or cannot be read, is an error rather than a racy port", () => {
    expect(() => portsOutsideEphemeral("1024 65535")).toThrow(/leaves no gap/);
    expect(() => portsOutsideEphemeral("many ports")).toThrow(/unreadable/);
  });
});

test("a port handed out lies outside this machine's ephemeral range, and a server listens on it at once", () => {
  let range = "49152 65535";
  try {
    range = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
  } catch {
    // not Linux: the IANA range, as the helper assumes
  }
  const [low, high] = range.trim().split(/\s+/).map(Number);
  for (let i = 0; i < 20; i++) {
    const port = freeLoopbackPort();
    expect(port < low || port > high).toBe(true);
  }
  const port = freeLoopbackPort();
  const server = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("ok") });
  try {
    expect(server.port).toBe(port);
  } finally {
    server.stop(true);
  }
});
