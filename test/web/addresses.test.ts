/** Strict address parsing (issue 10 F7): unit checks, no sockets. */
import { describe, expect, test } from "bun:test";
import { isLoopbackHost, parseHostHeader, parseListenAddress } from "../../src/mcp/web/addresses.ts";

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
