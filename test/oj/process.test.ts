/**
 * What the `oj` toolset looks like from outside the process: start-up validation (docs/contracts/oj.md §2),
 * initialize and tools/list (contract §1), logging (§2.2, §7), and `mcpkit call`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import packageJson from "../../package.json" with { type: "json" };
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { runCli, startStdioServer } from "../support/mcp.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { isJsonRpcLine, startRawServer } from "../support/raw-stdio.ts";

const TOKEN = crypto.randomUUID();
const OJ_TOOLS = [
  "find_similar_problems",
  "get_daily_challenge",
  "get_platform_status",
  "get_problem",
  "resolve_problem",
];
let fake: FakeCraboj;

beforeAll(() => {
  fake = startFakeCraboj({ tokens: [TOKEN] });
});
afterAll(async () => {
  await fake?.stop();
});

describe("rule S1.1: --oj-base-url at start-up", () => {
  const rejected = [
    "https://example.com/api/v1",
    "https://example.com?foo=1",
    "ftp://example.com",
    "not a url",
    "https://example.com#x",
    "https://user:pw@example.com",
  ];
  const accepted = ["https://example.com", "https://example.com/", "http://127.0.0.1:8080/"];

  test("rule S1.1's rejections stop start-up with one stderr line and a non-zero exit", async () => {
    const results = await Promise.all(rejected.map((url) => runCli(["tools", "--oj-base-url", url])));
    for (const [i, result] of results.entries()) {
      expect(result.code, rejected[i]).not.toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr.trimEnd().split("\n"), rejected[i]).toHaveLength(1);
      expect(result.stderr).toContain("--oj-base-url");
    }
  });

  test("rule S1.1's acceptances start (with or without the trailing slash), also from OJ_BASE_URL", async () => {
    const results = await Promise.all([
      ...accepted.map((url) => runCli(["tools", "--toolsets", "oj", "--oj-base-url", url])),
      runCli(["tools", "--toolsets", "oj"], { env: { OJ_BASE_URL: "https://example.com/" } }),
    ]);
    for (const result of results) {
      expect(result.code).toBe(0);
      // Tool lines first, then one "name: off, why" line per toolset that is off.
      const tools = result.stdout
        .trim()
        .split("\n")
        .filter((line) => !/^\w+: off,/.test(line));
      expect(tools.map((line) => line.split(/\s+/)[0]).sort()).toEqual(OJ_TOOLS);
    }
  });

  test("for any origin-or-not URL: the process accepts exactly the origins", async () => {
    const parts = fc.record({
      scheme: fc.constantFrom("http", "https", "ftp"),
      port: fc.constantFrom("", ":8080"),
      path: fc.constantFrom("", "/", "/api"),
      query: fc.constantFrom("", "?a=1"),
    });
    await fc.assert(
      fc.asyncProperty(parts, async (p) => {
        const result = await runCli([
          "tools",
          "--toolsets",
          "oj",
          "--oj-base-url",
          `${p.scheme}://example.com${p.port}${p.path}${p.query}`,
        ]);
        const valid = p.scheme !== "ftp" && (p.path === "" || p.path === "/") && p.query === "";
        expect(result.code === 0).toBe(valid);
      }),
      { numRuns: 6 },
    );
  });

  test("a URL carrying credentials is refused without printing them", async () => {
    const result = await runCli(["tools", "--oj-base-url", "https://alice:s3cret-pw@example.com/"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--oj-base-url");
    expect(result.stderr).toContain("***@example.com");
    expect(result.stderr).not.toContain("s3cret-pw");
    expect(result.stderr).not.toContain("alice");
  });

  test("a rejected URL stops the stdio server before any MCP traffic", async () => {
    const raw = startRawServer(["--oj-base-url", "https://example.com/api/v1"]);
    const code = await raw.exited;
    expect(code).not.toBe(0);
    expect(raw.lines().filter((line) => line !== "")).toEqual([]);
  });

  test("--toolsets oj without a base URL names the missing flag; by default oj stays off", async () => {
    const named = await runCli(["tools", "--toolsets", "oj"]);
    expect(named.code).not.toBe(0);
    expect(named.stderr).toContain("--oj-base-url URL (or OJ_BASE_URL)");
    const byDefault = await runCli(["tools"]);
    expect(byDefault.stdout).not.toContain("get_problem");
  });

  test("a bad --oj-timeout-ms is a start-up error naming the flag", async () => {
    const result = await runCli(["tools", "--oj-base-url", "https://example.com", "--oj-timeout-ms", "60000"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--oj-timeout-ms");
  });
});

describe("initialize and tools/list (contract §1)", () => {
  test("mcpkit identity, tools and logging capabilities only, exactly the 5 read-only tools with schemas", async () => {
    const server = await startStdioServer({ args: ["--toolsets", "oj", "--oj-base-url", fake.url] });
    try {
      expect(server.client.getServerVersion()).toMatchObject({ name: "mcpkit", version: packageJson.version });
      const capabilities = server.client.getServerCapabilities() ?? {};
      expect(capabilities.tools).toEqual({ listChanged: false });
      expect(capabilities.resources).toBeUndefined();
      expect(capabilities.prompts).toBeUndefined();
      // mcpkit sends upstream errors and retries as notifications/message (contract §7).
      expect(capabilities.logging).toEqual({});
      expect(Object.keys(capabilities).sort()).toEqual(["logging", "tools"]);

      const { tools } = await server.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(OJ_TOOLS);
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint).toBe(true);
        expect(tool.annotations?.destructiveHint).toBe(false);
        expect(tool.outputSchema?.type).toBe("object");
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.description?.length).toBeGreaterThan(40);
        // A model sees only the schema: every argument says what it is.
        for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
          expect(
            (property as { description?: string }).description?.length ?? 0,
            `${tool.name}.${name}`,
          ).toBeGreaterThan(20);
        }
      }
      // The daily tool takes a date; similar search has no required field and limit defaults to 10 (contract §4).
      const daily = tools.find((t) => t.name === "get_daily_challenge");
      expect(Object.keys(daily?.inputSchema.properties ?? {}).sort()).toEqual(["date", "domain"]);
      const similar = tools.find((t) => t.name === "find_similar_problems");
      expect(similar?.inputSchema.required ?? []).toEqual([]);
      expect(
        (similar?.inputSchema.properties as Record<string, { default?: unknown }> | undefined)?.limit.default,
      ).toBe(10);
    } finally {
      await server.close();
    }
  });

  test("--version prints mcpkit <version>", async () => {
    const result = await runCli(["--version"]);
    expect(result.stdout.trim()).toBe(`mcpkit ${packageJson.version}`);
  });
});

describe("logging (contract §7)", () => {
  const exercise = async (args: string[], env: Record<string, string>) => {
    const server = await startStdioServer({ args, env });
    try {
      await server.client.callTool({ name: "get_problem", arguments: { source: "leetcode", id: "1" } });
      await server.client.callTool({ name: "get_problem", arguments: { source: "leetcode", id: "404404" } });
      await server.client.callTool({ name: "get_platform_status", arguments: {} });
      await server.client.callTool({ name: "get_problem", arguments: { source: "leetcode", id: "big-error" } });
      await server.client
        .callTool({ name: "get_problem", arguments: { source: "leetcode", id: "bad-json" } })
        .catch(() => {});
      await server.client.callTool({ name: "get_problem", arguments: { source: "leetcode", id: "" } });
      // An upstream that echoes the Authorization header, in an error and in an undecodable body.
      await server.client.callTool({ name: "get_problem", arguments: { source: "leetcode", id: "echo-auth-401" } });
      await server.client
        .callTool({ name: "get_problem", arguments: { source: "leetcode", id: "echo-auth-json" } })
        .catch(() => {});
    } finally {
      await server.close();
    }
    return server.stderr();
  };

  test("the token never appears in stderr at trace level; its presence is logged", async () => {
    const stderr = await exercise(["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN], {
      RUST_LOG: "trace",
    });
    expect(stderr).toContain("token: configured");
    expect(stderr).toContain(`base_url=${JSON.stringify(fake.url)}`);
    expect(stderr).not.toContain(TOKEN);
    // The 1 MiB read cap seen from outside: the 2 MiB body was read up to the cap and no further.
    expect(stderr).toMatch(/path="\/api\/v1\/problems\/leetcode\/big-error" status=500 bytes=1048576 truncated=true/);

    const viaEnv = await exercise(["--toolsets", "oj"], { LOG_LEVEL: "trace", OJ_BASE_URL: fake.url, OJ_TOKEN: TOKEN });
    expect(viaEnv).not.toContain(TOKEN);
    const cli = await runCli([
      "call",
      "get_platform_status",
      "--oj-base-url",
      fake.url,
      "--oj-token",
      TOKEN,
      "--log-level",
      "trace",
    ]);
    expect(cli.code).toBe(0);
    expect(cli.stdout + cli.stderr).not.toContain(TOKEN);
  });

  test("without a token: 'token: not configured'", async () => {
    const server = await startStdioServer({ args: ["--toolsets", "oj", "--oj-base-url", fake.url] });
    await server.close();
    expect(server.stderr()).toContain("token: not configured");
    expect(server.stderr()).toContain("timeout_ms=30000"); // contract §2: the default request timeout
    expect(server.stderr()).not.toContain("token: configured");
  });

  test("RUST_LOG=off or --log-level off: nothing on stderr", async () => {
    const args = ["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN];
    const [viaEnv, viaFlag] = await Promise.all([
      exercise(args, { RUST_LOG: "off" }),
      exercise([...args, "--log-level", "off"], { RUST_LOG: "trace" }),
    ]);
    expect(viaEnv).toBe("");
    expect(viaFlag).toBe("");
  });

  test("stdout carries JSON-RPC messages only, even at trace level and on errors", async () => {
    // The timeout's error on a server of its own (300 ms): under that clock, a loaded machine's
    // ordinary answers could come back "timed out" too. The rest have the default 30 s.
    const flags = ["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN];
    const raw = startRawServer(flags, { RUST_LOG: "trace" });
    const hasty = startRawServer([...flags, "--oj-timeout-ms", "300"], { RUST_LOG: "trace" });
    try {
      await Promise.all([raw.initialize(), hasty.initialize()]);
      const calls: [string, Record<string, unknown>][] = [
        ["get_problem", { source: "leetcode", id: "1" }],
        ["get_problem", { source: "leetcode", id: "html-error" }],
        ["get_problem", { source: "leetcode", id: "bad-utf8" }],
        ["find_similar_problems", { query: "ab" }],
        ["get_daily_challenge", { date: "2020-04-02" }],
      ];
      for (const [id, [name, args]] of calls.entries()) {
        raw.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
      }
      const hang = { name: "get_problem", arguments: { source: "leetcode", id: "hang" } };
      hasty.send({ jsonrpc: "2.0", id: 0, method: "tools/call", params: hang });
      const replies = await Promise.all(calls.map((_, id) => raw.response(id)));
      expect(replies.map((r) => ("error" in r ? (r.error as { code: number }).code : "result"))).toEqual([
        "result",
        "result",
        -32603,
        "result",
        "result",
      ]);
      const timedOut = (await hasty.response(0)).error as { code: number; message: string };
      expect(timedOut.code).toBe(-32603);
      expect(timedOut.message).toContain("timed out");
      for (const server of [raw, hasty]) {
        const lines = server.lines().filter((line) => line !== "");
        expect(lines.length).toBeGreaterThanOrEqual(server === raw ? 6 : 2);
        for (const line of lines) expect(isJsonRpcLine(line)).toBe(true);
        expect(server.stderr()).toContain("TRACE");
      }
    } finally {
      for (const server of [raw, hasty]) server.closeStdin();
      await Promise.all([raw.exited, hasty.exited]);
    }
  });
});

describe("host settings never change the output (contract §6)", () => {
  test("TZ far from UTC and a German locale: com's daily date is still the UTC date; counts still use ASCII commas", async () => {
    const env = { TZ: "Pacific/Kiritimati", LC_ALL: "de_DE.UTF-8", LANG: "de_DE.UTF-8", LC_NUMERIC: "de_DE.UTF-8" };
    const before = fake.requests.length;
    const utcBefore = new Date().toISOString().slice(0, 10);
    const [daily, status] = await Promise.all([
      runCli(["call", "get_daily_challenge", "{}", "--oj-base-url", fake.url, "--oj-token", TOKEN], { env }),
      runCli(["call", "get_platform_status", "--oj-base-url", fake.url, "--oj-token", TOKEN], { env }),
    ]);
    const utcAfter = new Date().toISOString().slice(0, 10);
    expect(daily.code).toBe(0);
    const dailyTarget = fake.requests.slice(before).find((r) => r.target.startsWith("/api/v1/daily"))?.target;
    expect([`/api/v1/daily?domain=com&date=${utcBefore}`, `/api/v1/daily?domain=com&date=${utcAfter}`]).toContain(
      dailyTarget as string,
    );
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).content[0].text).toContain("| codeforces | 12,984 | 106 | 127 |");
  });
});

describe("mcpkit call", () => {
  test("exit 0 on success; 1 on isError and on an upstream network failure (-32603), which is no usage error (issue 19)", async () => {
    // Outside the ephemeral range, so no other test's server is given it meanwhile (ports.ts).
    const port = freeLoopbackPort();
    const unreachable = `http://127.0.0.1:${port}`;
    const [ok, isError, protocol, timeout] = await Promise.all([
      runCli(["call", "resolve_problem", '{"query":"cf1A"}', "--oj-base-url", fake.url, "--oj-token", TOKEN]),
      runCli([
        "call",
        "get_problem",
        '{"source":"leetcode","id":"404404"}',
        "--oj-base-url",
        fake.url,
        "--oj-token",
        TOKEN,
      ]),
      runCli([
        "call",
        "get_problem",
        '{"source":"leetcode","id":"1"}',
        "--oj-base-url",
        unreachable,
        "--oj-token",
        TOKEN,
      ]),
      runCli([
        "call",
        "get_problem",
        '{"source":"leetcode","id":"hang"}',
        "--oj-base-url",
        fake.url,
        "--oj-token",
        TOKEN,
        "--oj-timeout-ms",
        "400",
      ]),
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).content[0].text).toStartWith("# Theatre Square");
    expect(isError.code).toBe(1);
    expect(JSON.parse(isError.stdout).content[0].text).toBe("[404] Not Found: problem not found");
    expect(protocol.code).toBe(1);
    expect(protocol.stdout + protocol.stderr).toContain("-32603");
    // The host, the cause and the flag to check; never the token.
    expect(JSON.parse(protocol.stdout).error.message).toBe(
      `cannot reach the craboj server at 127.0.0.1:${port} (connection refused) for GET /api/v1/problems/leetcode/1: check --oj-base-url (OJ_BASE_URL) and that the server is running`,
    );
    expect(protocol.stdout + protocol.stderr).not.toContain(TOKEN);
    expect(timeout.code).toBe(1);
    expect(JSON.parse(timeout.stdout).error.message).toContain(
      "(timed out) for GET /api/v1/problems/leetcode/hang: check --oj-base-url (OJ_BASE_URL), or raise --oj-timeout-ms (OJ_TIMEOUT_MS)",
    );
  });
});
