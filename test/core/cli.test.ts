/** The command line through the real process: flags, environment, exit codes, one-line errors. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { readFileSync } from "node:fs";
import { coreOptions } from "../../src/cli/options.ts";
import type { OptionSpec } from "../../src/core/options.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { REPO_ROOT, mcpkitCommand, runCli, runProcess, testEnv } from "../support/mcp.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-cli-"));
  writeFileSync(join(root, "a.txt"), "a");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const oneLine = (text: string) => text.trim().split("\n").length === 1;

describe("--version and --help", () => {
  test("--version prints 'mcpkit <package.json version>'", async () => {
    const { code, stdout } = await runCli(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toBe(`mcpkit ${packageJson.version}\n`);
  });

  test("--help names every flag and environment variable of every toolset", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    for (const option of toolsetModules.flatMap((m) => m.options)) {
      expect(stdout).toContain(`--${option.name}`);
      if (option.env) expect(stdout).toContain(option.env);
    }
    expect(stdout).toContain("--toolsets");
    expect(stdout).toContain("mcpkit call TOOL [JSON]");
  });

  test("--help and README.md name every option and its environment variable", async () => {
    const { stdout } = await runCli(["--help"]);
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const declared: readonly OptionSpec[] = [
      ...coreOptions,
      ...toolsetModules.flatMap((m) => m.options),
      ...httpOptions,
    ];
    for (const option of declared) {
      expect(stdout).toContain(`--${option.name}`);
      expect(readme).toContain(`--${option.name}`);
      if (option.env) {
        expect(stdout).toContain(option.env);
        expect(readme).toContain(option.env);
      }
    }
  });
});

describe("bad command lines exit 2 with one clear line on stderr and nothing on stdout", () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["unknown flag", ["--bogus-flag"], {}, /unknown option --bogus-flag/],
    ["unknown command", ["serve-please"], {}, /unknown command "serve-please"/],
    ["bad log level", ["--log-level", "loud", "tools"], {}, /--log-level \(LOG_LEVEL\).*loud/],
    ["bad log level from the environment", ["tools"], { LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    ["unknown toolset", ["--toolsets", "boj,nope", "tools"], {}, /unknown toolset "nope"/],
    ["oj named without its base URL", ["--toolsets", "oj", "tools"], {}, /--oj-base-url/],
    ["flag without its value", ["--toolsets"], {}, /--toolsets needs a value/],
    ["mistyped flag gets a suggestion", ["--rot", "x", "tools"], {}, /unknown option --rot; did you mean --root\?/],
    // A switch given a value was "option -h, needs a value (e.g. -h, VALUE)"; a group was "unknown option -".
    ["--help given a value", ["--help=1"], {}, /^mcpkit: --help takes no value; drop '=1'\n$/],
    [
      "--text given a value",
      ["call", "boj_get_data_code", "--text=1"],
      {},
      /^mcpkit: --text takes no value; drop '=1'\n$/,
    ],
    ["-h given a value", ["-h=1"], {}, /^mcpkit: -h takes no value; drop '=1'\n$/],
    [
      "a group of letters with one that is no switch",
      ["-hv"],
      {},
      /^mcpkit: unknown option 'v' in -hv; the switches that group are -h and -V \(-v only alone\); run 'mcpkit --help' for the options\n$/,
    ],
    // A single-dash typo of an option that takes a token: the value after '=' is never repeated (second review).
    [
      "a single-dash typo of --oj-token",
      ["-oj-token=s3cr3tTOKENvalue"],
      {},
      /^mcpkit: unknown option 'o' in -oj-token; the switches that group are -h and -V \(-v only alone\); run 'mcpkit --help' for the options\n$/,
    ],
    [
      "mistyped toolset gets a suggestion",
      ["--toolsets", "bjo", "tools"],
      {},
      /unknown toolset "bjo".*did you mean "boj"\?/,
    ],
    [
      "mistyped tool gets a suggestion",
      ["call", "boj_get_datacode", "--toolsets", "boj"],
      {},
      /unknown tool "boj_get_datacode"; did you mean "boj_get_data_code"\?/,
    ],
    [
      "a root that does not exist",
      ["--root", "/nonexistent/mcpkit-root", "tools"],
      {},
      /--root.*\/nonexistent\/mcpkit-root/,
    ],
    [
      "call TOOL --help for an unknown tool",
      ["call", "nope", "--help", "--toolsets", "boj"],
      {},
      /unknown tool "nope"/,
    ],
  ];
  for (const [name, args, env, pattern] of cases) {
    test(name, async () => {
      const { code, stdout, stderr } = await runCli(args, { env });
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(oneLine(stderr)).toBe(true);
      expect(stderr).toMatch(pattern);
    });
  }

  test("a flag beats its environment variable", async () => {
    const { code } = await runCli(["--log-level", "warn", "--toolsets", "fs", "--root", root, "tools"], {
      env: { LOG_LEVEL: "loud" },
    });
    expect(code).toBe(0);
  });
});

describe("start-up failures are one line and exit 2, never a stack or bundle source", () => {
  test("a port already in use names the cause and the fix", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
    try {
      const { code, stdout, stderr } = await runCli(["--http", `127.0.0.1:${holder.port}`, "--toolsets", "boj"], {
        timeoutMs: 30_000,
      });
      expect(code).toBe(2);
      expect(stdout).toBe("");
      const lines = stderr
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("mcpkit:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/already in use.*--http HOST:PORT/);
      expect(stderr).not.toMatch(/\bat .*:\d+:\d+|function |=>/);
    } finally {
      holder.stop(true);
    }
  });

  test("a bad --auth oauth flag is refused before anything listens (issue 24): the flag is named, not a busy port", async () => {
    // The port is taken: a server that bound before reading its oauth flags would report the port instead.
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
    try {
      const { code, stderr } = await runCli(
        ["--http", `127.0.0.1:${holder.port}`, "--toolsets", "boj", "--auth", "oauth", "--github-client-id", "x"],
        { timeoutMs: 30_000 },
      );
      expect(code).toBe(2);
      expect(stderr).toContain("--github-client-id needs --github-client-secret");
      expect(stderr).not.toContain("already in use");
    } finally {
      holder.stop(true);
    }
  });
});

describe("mcpkit tools and mcpkit call", () => {
  test("tools also lists the toolsets that are off and why", async () => {
    const { code, stdout } = await runCli(["tools", "--root", root]);
    expect(code).toBe(0);
    expect(stdout).toContain("boj_get_data_code");
    expect(stdout).toMatch(/^oj: off, needs --oj-base-url URL \(or OJ_BASE_URL\)$/m);
    const named = await runCli(["tools", "--toolsets", "boj"]);
    expect(named.stdout).toMatch(/^fs: off, not named in --toolsets \(MCPKIT_TOOLSETS\)$/m);
  });

  test("a server says nothing at start-up about a toolset a --toolsets list leaves out, and keeps the hint without one", async () => {
    // stdin closed at once: the server logs its start-up, serves nothing and exits, so stderr is whole.
    const [listed, narrowed, unlisted] = await Promise.all([
      runCli(["--toolsets", "fs,boj", "--root", root], { stdin: "" }),
      runCli(["--toolsets", "boj", "--root", root], { stdin: "" }),
      runCli(["--root", root], { stdin: "" }),
    ]);
    for (const run of [listed, narrowed, unlisted]) {
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("serving MCP on stdio");
    }
    expect(listed.stderr).not.toContain("oj: off");
    expect(narrowed.stderr).not.toMatch(/(oj|fs): off/);
    expect(unlisted.stderr).toContain("oj: off, needs --oj-base-url URL (or OJ_BASE_URL)");
    // Asked for by name later, a left-out toolset's tool says both things that turn it on.
    const call = await runCli(["call", "get_problem", "{}", "--toolsets", "fs,boj", "--root", root]);
    expect(call.code).toBe(2);
    expect(call.stderr).toContain(
      "start with --oj-base-url URL (or OJ_BASE_URL) and add oj to --toolsets (MCPKIT_TOOLSETS)",
    );
  });

  test("call TOOL --help prints the description and every argument with type, default and allowed values", async () => {
    const { code, stdout, stderr } = await runCli([
      "call",
      "fs_search_by_time",
      "--help",
      "--toolsets",
      "fs",
      "--root",
      root,
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^fs_search_by_time \(also fs\.search_by_time\): /);
    expect(stdout).toContain("Arguments (one JSON object):");
    expect(stdout).toMatch(/timeField \(string, required, one of "modified", "created"\)/);
    expect(stdout).toMatch(/limit \(integer, default 100, min 1, max 1000\)/);
    expect(stdout).toContain("Example: mcpkit call fs_search_by_time");
  });

  test("call --text prints only the text content; JSON stays the default", async () => {
    const text = await runCli(["call", "boj_get_message_catalog", "--text", "--toolsets", "boj"]);
    expect(text.code).toBe(0);
    expect(text.stdout.trimStart().startsWith('{"content"')).toBe(false);
    expect(text.stdout.length).toBeGreaterThan(0);
    const json = await runCli(["call", "boj_get_message_catalog", "--toolsets", "boj"]);
    const parsed = JSON.parse(json.stdout) as { content: { type: string; text: string }[] };
    expect(text.stdout).toBe(
      `${parsed.content
        .map((block) => block.text)
        .join("\n\n")
        .replace(/\n?$/, "\n")}`,
    );
  });

  test("tools lists name and title, one per line", async () => {
    const { code, stdout } = await runCli(["tools", "--toolsets", "fs", "--root", root]);
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^fs_search_by_time\s+\S/);
    expect(stdout).toMatch(/^boj: off, not named in --toolsets/m);
  });

  test("call prints the result as JSON and exits 0", async () => {
    const { code, stdout } = await runCli([
      "call",
      "fs_search_by_time",
      '{"timeField":"modified"}',
      "--toolsets",
      "fs",
      "--root",
      root,
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(["a.txt"]);
  });

  test("call reads the arguments from stdin with '-'", async () => {
    const { code, stdout } = await runCli(["call", "fs_search_by_time", "-", "--toolsets", "fs", "--root", root], {
      stdin: '{"timeField":"modified","limit":1}',
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).structuredContent.stats.returned).toBe(1);
  });

  test("an isError result from the upstream exits 1", async () => {
    const craboj = startFakeCraboj();
    try {
      const { code, stdout } = await runCli([
        "call",
        "get_problem",
        '{"source":"leetcode","id":"404404"}',
        "--toolsets",
        "oj",
        "--oj-base-url",
        craboj.url,
      ]);
      expect(code).toBe(1);
      expect(JSON.parse(stdout).isError).toBe(true);
    } finally {
      await craboj.stop();
    }
  });

  test("an unknown tool or unparsable JSON exits 2", async () => {
    const unknown = await runCli(["call", "nope", "{}", "--toolsets", "fs", "--root", root]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "nope"');
    const broken = await runCli(["call", "fs_search_by_time", "{oops", "--toolsets", "fs", "--root", root]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("do not parse");
  });
});

describe("what a newcomer meets (issue 19 §2)", () => {
  test("help, -h, -V and -v behave as people expect", async () => {
    const [help, short, upper, lower] = await Promise.all([
      runCli(["help"]),
      runCli(["-h"]),
      runCli(["-V"]),
      runCli(["-v"]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("mcpkit call TOOL [JSON]");
    expect(short.stdout).toBe(help.stdout);
    expect(upper.stdout).toBe(`mcpkit ${packageJson.version}\n`);
    expect(lower.stdout).toBe(upper.stdout);
    expect(help.stdout).toContain("Exit codes of 'call': 0 success; 1 the tool or its upstream failed");
  });

  test("a tool of a toolset that is off says which toolset and how to turn it on; its --help works anyway", async () => {
    const call = await runCli(["call", "get_problem", '{"source":"leetcode","id":"1"}']);
    expect(call.code).toBe(2);
    expect(call.stdout).toBe("");
    expect(call.stderr.trim()).toBe(
      "mcpkit: get_problem belongs to the oj toolset, which is off: start with --oj-base-url URL (or OJ_BASE_URL)",
    );
    const help = await runCli(["call", "get_problem", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("get_problem: ");
    expect(help.stdout).toContain("source (");
    expect(help.stdout).toContain("The oj toolset is off here: start with --oj-base-url URL (or OJ_BASE_URL).");
  });

  test("exit codes tell usage (2) from a failed tool or upstream (1); --text prints the error", async () => {
    const badJson = await runCli(["call", "fs_search_by_time", "{nope", "--root", root]);
    expect(badJson.code).toBe(2);
    const badArguments = await runCli(["call", "fs_search_by_time", '{"timeField":"bogus"}', "--root", root, "--text"]);
    expect(badArguments.code).toBe(2);
    expect(badArguments.stdout).toContain('"timeField": must be "modified" or "created"');
    const badFlag = await runCli(["call", "boj_list_databases", "--no-such-flag"]);
    expect(badFlag.code).toBe(2);
    // Nothing listens on 127.0.0.1:9: the upstream failed, not the call.
    const upstream = await runCli(
      ["call", "boj_get_metadata", '{"db":"CO"}', "--boj-retry-backoff-ms", "1", "--boj-retry-max", "1", "--text"],
      { env: { BOJ_BASE_URL: "http://127.0.0.1:9" } },
    );
    expect(upstream.code).toBe(1);
    expect(upstream.stdout).toContain(
      "cannot reach BOJ at 127.0.0.1:9 (connection refused): check --boj-base-url (BOJ_BASE_URL)",
    );
    // Refused is retried (a name that does not resolve is not); the failure itself is said once, on stdout.
    expect(upstream.stdout).toContain("(2 attempts)");
    expect(upstream.stderr).toContain("attempt 1 of 2 failed");
    expect(upstream.stderr).not.toContain("failed after");
  });

  test("~ and ~/… in --root and MCPKIT_ROOTS mean the home directory", async () => {
    const home = mkdtempSync(join(tmpdir(), "mcpkit-home-"));
    try {
      mkdirSync(join(home, "notes"));
      writeFileSync(join(home, "notes", "todo.md"), "x");
      const args = ["call", "fs_search_by_time", '{"timeField":"modified"}'];
      const byFlag = await runCli([...args, "--root", "~/notes"], { env: { HOME: home, USERPROFILE: home } });
      const byEnv = await runCli(args, { env: { HOME: home, USERPROFILE: home, MCPKIT_ROOTS: "~/notes" } });
      for (const run of [byFlag, byEnv]) {
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout).structuredContent.matches.map((m: { path: string }) => m.path)).toEqual([
          "todo.md",
        ]);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a port in use names the address and port; --http 0 says where it listens at any --log-level", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
    try {
      const busy = await runCli(["--http", `127.0.0.1:${holder.port}`]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toContain(`mcpkit: 127.0.0.1:${holder.port} is already in use by another program`);
    } finally {
      holder.stop(true);
    }
    // As the issue types it (a bare port 0), with the level from the flag or from LOG_LEVEL.
    for (const [args, env] of [
      [["--log-level", "off"], {}],
      [[], { LOG_LEVEL: "warn" }],
      [["--log-level", "error"], {}],
    ] as const) {
      const child = Bun.spawn([...mcpkitCommand(), "--http", "0", ...args], {
        env: testEnv(env),
        stdout: "pipe",
        stderr: "pipe",
      });
      try {
        const reader = child.stderr.getReader();
        let text = "";
        while (!/listening on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(text)) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        expect(text).toMatch(/^mcpkit: listening on http:\/\/127\.0\.0\.1:\d+\/mcp\n/);
      } finally {
        child.kill();
        await child.exited;
      }
    }
  });

  test("call TOOL --help works for every tool of every toolset without any configuration", async () => {
    const everything = await runCli(["tools", "--oj-base-url", "http://127.0.0.1:9", "--root", root]);
    const names = everything.stdout
      .split("\n")
      .filter((line) => /^\w+\s{2}/.test(line))
      .map((line) => line.split(/\s+/)[0]);
    // One tool of each toolset at least: all three are on in this listing.
    for (const name of ["boj_get_data_code", "get_problem", "fs_search_by_time"]) expect(names).toContain(name);
    const runs = await Promise.all(names.map((name) => runCli(["call", name, "--help"])));
    for (const [index, run] of runs.entries()) {
      expect({ tool: names[index], code: run.code, stderr: run.stderr }).toEqual({
        tool: names[index],
        code: 0,
        stderr: "",
      });
      expect(run.stdout).toStartWith(`${names[index]}`);
      expect(run.stdout).toContain("Arguments (one JSON object):");
    }
  });
});

describe("what a newcomer meets, part two (issue 19 §2)", () => {
  test("run by hand in a terminal, the stdio server says what it waits for; under a client it does not", async () => {
    const hint = "stdin is a terminal: mcpkit now waits for an MCP client's JSON-RPC messages";
    const underClient = await runCli(["--toolsets", "boj"]); // stdin is not a terminal; it closes at once
    expect(underClient.code).toBe(0);
    expect(underClient.stderr).not.toContain(hint);
    const script = Bun.which("script");
    if (!script) {
      console.warn("skipped: needs script(1) for a terminal (Debian package bsdutils)");
      return;
    }
    // script(1) gives mcpkit a terminal as stdin; its own stdin is empty, so that terminal ends at once.
    const command = [...mcpkitCommand(), "--toolsets", "boj"].map((part) => `'${part}'`).join(" ");
    const byHand = await runProcess([script, "-qfec", command, "/dev/null"], { env: testEnv() });
    expect(byHand.stdout).toContain(hint);
  });

  test("'call --help' and 'help call' explain call; 'help TOOL' is 'call TOOL --help'; 'version' prints the version", async () => {
    const [callHelp, helpCall, helpTool, toolHelp, version, typo] = await Promise.all([
      runCli(["call", "--help"]),
      runCli(["help", "call"]),
      runCli(["help", "boj_get_metadata"]),
      runCli(["call", "boj_get_metadata", "--help"]),
      runCli(["version"]),
      runCli(["verison"]),
    ]);
    expect(callHelp.code).toBe(0);
    expect(callHelp.stdout).toStartWith("Usage: mcpkit call TOOL [JSON] [options]\n");
    expect(callHelp.stdout).toContain("Exit codes of 'call'");
    expect(helpCall.stdout).toBe(callHelp.stdout);
    expect(helpTool.code).toBe(0);
    expect(helpTool.stdout).toStartWith("boj_get_metadata: ");
    expect(helpTool.stdout).toBe(toolHelp.stdout);
    expect(version.stdout).toBe(`mcpkit ${packageJson.version}\n`);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`unknown command "verison"; did you mean 'version'?`);
  });

  test("'help TOOL' of an off toolset explains it; a mistyped one gets a suggestion", async () => {
    const off = await runCli(["help", "get_daily_challenge"]);
    expect(off.code).toBe(0);
    expect(off.stdout).toContain("The oj toolset is off here: start with --oj-base-url URL (or OJ_BASE_URL).");
    const typo = await runCli(["help", "get_problm"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown tool "get_problm"; did you mean "get_problem"?');
  });

  test("a toolset that is off stays silent in the log: no placeholder configuration is reported", async () => {
    const secret = "oj-secret-token-1234567890";
    for (const args of [
      ["call", "boj_list_databases", "--log-level", "trace"],
      ["call", "get_problem", "--help", "--log-level", "trace"],
      ["call", "get_problem", "{}", "--log-level", "trace"],
    ]) {
      const run = await runCli(args, { env: { OJ_TOKEN: secret } });
      expect(run.stderr).not.toContain("craboj server");
      expect(run.stderr).not.toContain("127.0.0.1:9");
      expect(run.stderr).not.toContain(secret);
    }
  });

  test("arguments wrong in meaning are a usage error (2), like arguments the schema refuses", async () => {
    const cases = [
      '{"timeField":"modified","from":"2025-12-16T00:00:00Z","to":"2025-12-01T00:00:00Z"}',
      '{"timeField":"modified","path":"../.."}',
      '{"timeField":"modified","path":"no-such-dir"}',
      '{"timeField":"modified","root":"/"}',
      '{"timeField":"modified","cursor":"not-a-cursor"}',
    ];
    for (const args of cases) {
      const run = await runCli(["call", "fs_search_by_time", args, "--root", root, "--text"]);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stdout.length).toBeGreaterThan(20);
    }
    const craboj = startFakeCraboj();
    try {
      const oj = ["--toolsets", "oj", "--oj-base-url", craboj.url, "--text"];
      const daily = await runCli(["call", "get_daily_challenge", '{"date":"2025-02-30"}', ...oj]);
      expect(daily.code).toBe(2);
      expect(daily.stdout).toContain('"date": invalid calendar date');
      const similar = await runCli(["call", "find_similar_problems", "{}", ...oj]);
      expect(similar.code).toBe(2);
      expect(similar.stdout).toContain("either 'query' or both 'source' and 'id'");
      expect(craboj.requests).toHaveLength(0);
    } finally {
      await craboj.stop();
    }
  });

  test("a BOJ host name that does not resolve is named with --boj-base-url and tried once", async () => {
    // The reserved .invalid TLD never resolves (RFC 6761), so nothing leaves the machine.
    const run = await runCli([
      "call",
      "boj_get_metadata",
      '{"db":"CO"}',
      "--boj-base-url",
      "http://mcpkit-test.invalid",
      "--boj-retry-backoff-ms",
      "1",
    ]);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout);
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ error_type: "TRANSPORT_ERROR", attempts: 1 });
    expect(error.message).toContain(
      "cannot reach BOJ at mcpkit-test.invalid (host name not found): check --boj-base-url (BOJ_BASE_URL)",
    );
    // Said once: the JSON on stdout and one error line on stderr, no retry.
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("host name not found");
    expect(run.stderr).not.toContain("retrying");
  });

  test("a BOJ database code BOJ does not know gets BOJ's M181005E with 'did you mean' as one sentence (issue 36)", async () => {
    // Codes fail open: the call goes to BOJ (here the fake), whose M181005E gains the closest code.
    const { startFakeBoj } = await import("../fixtures/boj/fake-boj.ts");
    const boj = startFakeBoj();
    try {
      const args = ["--boj-base-url", boj.url, "--boj-min-interval-ms", "0", "--text"];
      const run = await runCli(["call", "boj_get_metadata", '{"db":"FM8"}', ...args]);
      expect(run.code).toBe(1); // an upstream error, as for BOJ's other 400s
      expect(run.stdout.trim()).toBe(
        'The BOJ API answered 400 M181005E: DB名が正しくありません。 (BOJ has no database "FM8"; did you mean "FM08"? Call boj_list_databases for the codes, or boj_search_series to find a series in any database)',
      );
      expect(boj.requests.map((request) => request.query.get("db"))).toEqual(["FM8"]);
    } finally {
      await boj.stop();
    }
  });
});
