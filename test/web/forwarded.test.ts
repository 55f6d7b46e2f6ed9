/**
 * --trusted-proxies: which client a request came from when a proxy is in front (unit checks, no
 * sockets). Only a trusted peer's X-Forwarded-For is read, from the right, and nothing a client
 * could have written is ever returned for a trusted hop.
 */
import { describe, expect, test } from "bun:test";
import {
  MAX_FORWARDED_ENTRIES,
  clientAddressOf,
  parseAddressRange,
  trustedProxies,
} from "../../src/mcp/web/addresses.ts";

const LOOPBACK = trustedProxies(["127.0.0.1"]);
const CHAIN = trustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8", "::1"]);

describe("clientAddressOf", () => {
  test("an untrusted peer is the client, whatever its X-Forwarded-For says", () => {
    expect(clientAddressOf("198.51.100.9", "203.0.113.7", LOOPBACK)).toBe("198.51.100.9");
    expect(clientAddressOf("198.51.100.9", "127.0.0.1", LOOPBACK)).toBe("198.51.100.9");
  });

  test("without --trusted-proxies the peer is the client", () => {
    expect(clientAddressOf("127.0.0.1", "203.0.113.7", undefined)).toBe("127.0.0.1");
  });

  test("without the header, or without a peer (in process), nothing is read from it", () => {
    expect(clientAddressOf("127.0.0.1", null, LOOPBACK)).toBe("127.0.0.1");
    expect(clientAddressOf("127.0.0.1", "", LOOPBACK)).toBe("127.0.0.1");
    expect(clientAddressOf(undefined, "203.0.113.7", LOOPBACK)).toBeUndefined();
  });

  test("a trusted peer's client is the right-most entry: what a client put left of it is ignored", () => {
    expect(clientAddressOf("127.0.0.1", "203.0.113.7", LOOPBACK)).toBe("203.0.113.7");
    expect(clientAddressOf("127.0.0.1", "6.6.6.6, 1.1.1.1,203.0.113.7", LOOPBACK)).toBe("203.0.113.7");
    // A client naming a trusted address to pass for a proxy gains nothing: the proxy appends the real one.
    expect(clientAddressOf("127.0.0.1", "127.0.0.1, 203.0.113.7", LOOPBACK)).toBe("203.0.113.7");
  });

  test("several trusted hops are skipped, and repeated headers count as one comma list", () => {
    expect(clientAddressOf("127.0.0.1", "6.6.6.6, 203.0.113.7, 10.1.2.3 ,10.9.9.9", CHAIN)).toBe("203.0.113.7");
    const headers = new Headers([
      ["x-forwarded-for", "6.6.6.6, 203.0.113.8"],
      ["x-forwarded-for", "10.0.0.2"],
    ]);
    expect(clientAddressOf("127.0.0.1", headers.get("x-forwarded-for"), CHAIN)).toBe("203.0.113.8");
  });

  test("only trusted hops: the farthest one is the client", () => {
    expect(clientAddressOf("127.0.0.1", "10.0.0.5, 10.0.0.6", CHAIN)).toBe("10.0.0.5");
  });

  test.each([
    ["203.0.113.7, unknown, 10.0.0.2", "10.0.0.2"],
    ["203.0.113.7, 10.0.0.2, garbage", "127.0.0.1"],
    ["203.0.113.7:4444", "127.0.0.1"],
    ["[2001:db8::7]", "127.0.0.1"],
    ["fe80::1%eth0", "127.0.0.1"],
    ["203.0.113.7,", "127.0.0.1"],
    ["203.0.113.7, , 10.0.0.2", "10.0.0.2"],
    ["127.999.0.1", "127.0.0.1"],
    ["203.0.113.7 evil, 10.0.0.2", "10.0.0.2"],
  ])("a malformed entry ends the walk at the nearest trusted hop: %p → %s", (header, client) => {
    expect(clientAddressOf("127.0.0.1", header, CHAIN)).toBe(client);
  });

  test("a long malformed entry is never returned, nor any part of it", () => {
    expect(clientAddressOf("127.0.0.1", `203.0.113.7, ${"x".repeat(5000)}`, CHAIN)).toBe("127.0.0.1");
  });

  test("an IPv4-mapped IPv6 peer (a server bound to ::) matches IPv4 entries", () => {
    expect(clientAddressOf("::ffff:127.0.0.1", "203.0.113.7", LOOPBACK)).toBe("203.0.113.7");
    expect(clientAddressOf("::ffff:10.20.30.40", "203.0.113.7", CHAIN)).toBe("203.0.113.7");
    expect(clientAddressOf("::ffff:198.51.100.9", "203.0.113.7", CHAIN)).toBe("::ffff:198.51.100.9");
    expect(clientAddressOf("10.0.0.1", "::ffff:10.0.0.2, 203.0.113.7", CHAIN)).toBe("203.0.113.7");
  });

  test("CIDR ranges of both families", () => {
    expect(clientAddressOf("10.255.0.1", "203.0.113.7", CHAIN)).toBe("203.0.113.7");
    expect(clientAddressOf("11.0.0.1", "203.0.113.7", CHAIN)).toBe("11.0.0.1");
    expect(clientAddressOf("fd12:3456::5", "2001:db8::7", CHAIN)).toBe("2001:db8::7");
    expect(clientAddressOf("FD00::1", "2001:db8::7, fd99::2", CHAIN)).toBe("2001:db8::7");
    expect(clientAddressOf("fe80::1", "2001:db8::7", CHAIN)).toBe("fe80::1");
    expect(clientAddressOf("::1", "203.0.113.7", CHAIN)).toBe("203.0.113.7");
    expect(clientAddressOf("::2", "203.0.113.7", CHAIN)).toBe("::2");
  });

  test(`at most ${MAX_FORWARDED_ENTRIES} entries are read`, () => {
    const hops = (count: number) => Array.from({ length: count }, (_, index) => `10.0.${index >> 8}.${index & 255}`);
    // Within the bound: the client left of 31 trusted hops is found.
    expect(clientAddressOf("127.0.0.1", ["203.0.113.7", ...hops(31)].join(", "), CHAIN)).toBe("203.0.113.7");
    // Past it: the walk stops at the last trusted hop it read, never reading the rest.
    const long = ["203.0.113.7", ...hops(5000)];
    expect(clientAddressOf("127.0.0.1", long.join(", "), CHAIN)).toBe(long[long.length - MAX_FORWARDED_ENTRIES]);
  });
});

describe("parseAddressRange", () => {
  test.each([
    ["127.0.0.1", { address: "127.0.0.1", prefix: 32, family: "ipv4" }],
    [" 10.0.0.0/8 ", { address: "10.0.0.0", prefix: 8, family: "ipv4" }],
    ["0.0.0.0/0", { address: "0.0.0.0", prefix: 0, family: "ipv4" }],
    ["::1", { address: "::1", prefix: 128, family: "ipv6" }],
    ["2001:db8::/32", { address: "2001:db8::", prefix: 32, family: "ipv6" }],
    ["::ffff:10.0.0.0/104", { address: "::ffff:10.0.0.0", prefix: 104, family: "ipv6" }],
  ])("%p is accepted", (text, range) => expect(parseAddressRange(text)).toEqual(range as never));

  test.each([
    "10.0.0.0/33",
    "::/129",
    "10.0.0.0/08",
    "10.0.0.0/",
    "10.0.0.0/8/8",
    "nginx",
    "localhost",
    "10.0.0.1:80",
    "[::1]",
    "fe80::1%eth0",
    "127.1",
    "*",
    "",
  ])("%p is refused", (text) => expect(parseAddressRange(text)).toBeUndefined());
});
