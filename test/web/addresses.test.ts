/** Strict address parsing (issue 10 F7): unit checks, no sockets. */
import { describe, expect, test } from "bun:test";
import {
  ipv4Tail,
  ipv6Groups,
  isLoopbackHost,
  parseHostHeader,
  parseListenAddress,
} from "../../src/mcp/web/addresses.ts";

describe("isLoopbackHost", () => {
  test.each([
    "localhost",
    "LOCALHOST",
    "127.0.0.1",
    "127.1.2.3",
    "127.255.255.255",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
    "[::ffff:7f00:1]",
  ])("%s is loopback", (host) => expect(isLoopbackHost(host)).toBe(true));
  test.each([
    "127.999.999.999",
    "127.1",
    "0127.0.0.1",
    "127.0.0.01",
    "128.0.0.1",
    "0.0.0.0",
    "::",
    "::2",
    "fe80::1%lo",
    "::ffff:10.0.0.1",
    "localhost.evil.com",
    "127.0.0.1.evil.com",
    "evil.com@127.0.0.1",
    "127.0.0.1#evil",
    "",
  ])("%s is not loopback", (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe("parseHostHeader", () => {
  test.each([
    ["127.0.0.1:8080", "127.0.0.1", 8080],
    ["LocalHost", "localhost", undefined],
    ["[::1]:80", "[::1]", 80],
    ["[0:0:0:0:0:0:0:1]", "[::1]", undefined],
    ["mcp.example.com", "mcp.example.com", undefined],
    ["my_host.internal:1", "my_host.internal", 1],
  ])("%s → %s port %s", (header, hostname, port) => {
    expect(parseHostHeader(header)).toEqual({ hostname, port });
  });

  test.each([
    null,
    "",
    "127.0.0.1#evil",
    "evil.com@127.0.0.1",
    "127.0.0.1/x",
    "127.999.999.999",
    "a b",
    "127.0.0.1:99999",
    "127.0.0.1:80:80",
    "[::1",
    "[fe80::1%eth0]",
    "[127.0.0.1]",
    "x..y",
    ".x",
    "x".repeat(300),
    "h\u0001st",
    "127.0.0.1:",
  ])("%p is refused with a sentence", (header) => {
    const result = parseHostHeader(header as string | null);
    expect(typeof result).toBe("string");
    expect(result as string).toMatch(/Host header/);
  });

  test("a repeated Host is answered from the last parse (issue 21), and a changed one is parsed afresh", () => {
    const first = parseHostHeader("127.0.0.1:8080");
    // The same object again: the regexes did not run (the fast path is taken).
    expect(parseHostHeader("127.0.0.1:8080")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(parseHostHeader("127.0.0.1#evil")).toMatch(/Host header/);
    expect(parseHostHeader("127.0.0.1#evil")).toMatch(/Host header/);
    expect(parseHostHeader("LocalHost:1")).toEqual({ hostname: "localhost", port: 1 });
    expect(parseHostHeader(null)).toMatch(/no Host header/);
    expect(parseHostHeader("127.0.0.1:8080")).toEqual({ hostname: "127.0.0.1", port: 8080 });
  });
});

test("parseListenAddress keeps its forms", () => {
  expect(parseListenAddress("8080")).toEqual({ host: "127.0.0.1", port: 8080 });
  expect(parseListenAddress("[::1]:0")).toEqual({ host: "::1", port: 0 });
  expect(parseListenAddress("localhost:99999")).toBeUndefined();
});

describe("ipv6Groups: the one reader of IPv6 groups (CIMD's address check, the rate limits' buckets)", () => {
  test.each([
    ["2001:db8::1", [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]],
    ["2001:DB8:0001:0002:0:0:0:9", [0x2001, 0xdb8, 1, 2, 0, 0, 0, 9]],
    ["::", [0, 0, 0, 0, 0, 0, 0, 0]],
    ["::ffff:192.0.2.1", [0, 0, 0, 0, 0, 0xffff, 0xc000, 0x201]],
    // A dotted tail is two groups: the `::` stands for one group here, not two.
    ["1:2::3:4:5:1.2.3.4", [1, 2, 0, 3, 4, 5, 0x102, 0x304]],
    ["64:ff9b::10.0.0.1", [0x64, 0xff9b, 0, 0, 0, 0, 0xa00, 1]],
    ["1:2:3:4:5:6:1.2.3.4", [1, 2, 3, 4, 5, 6, 0x102, 0x304]],
  ])("%s", (text, groups) => expect(ipv6Groups(text)).toEqual(groups));

  test.each(["192.0.2.1", "not:an:address", "1::2::3", "fe80::1%eth0", "", "12345::1", "::1.2.3"])(
    "%s is no IPv6 address",
    (text) => expect(ipv6Groups(text)).toBeUndefined(),
  );

  test("ipv4Tail spells the last two groups as a dotted IPv4 address", () => {
    expect(ipv4Tail([0, 0, 0, 0, 0, 0xffff, 0xc000, 0x201])).toBe("192.0.2.1");
  });
});
