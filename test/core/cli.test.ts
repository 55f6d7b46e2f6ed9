/** The command line through the real process: flags, environment, exit codes, one-line errors. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { readFileSync } from "node:fs";
import { coreOptions } from "../../src/cli/options.ts";
import { httpOptions } from "../../src/mcp/http-options.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { REPO_ROOT, runCli } from "../support/mcp.ts";

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
    for (const option of [...coreOptions, ...toolsetModules.flatMap((m) => m.options), ...httpOptions]) {
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
    const { code } = await runCli(["--log-level", "warn", "--toolsets", "fs", "--root", root, "tools"], { env: { LOG_LEVEL: "loud" } });
    expect(code).toBe(0);
  });
});

describe("mcpkit tools and mcpkit call", () => {
  test("tools lists name and title, one per line", async () => {
    const { code, stdout } = await runCli(["tools", "--toolsets", "fs", "--root", root]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^fs\.search_by_time\s+\S.*\n$/);
  });

  test("call prints the result as JSON and exits 0", async () => {
    const { code, stdout } = await runCli(["call", "fs.search_by_time", '{"timeField":"modified"}', "--toolsets", "fs", "--root", root]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(["a.txt"]);
  });

  test("call reads the arguments from stdin with '-'", async () => {
    const { code, stdout } = await runCli(["call", "fs.search_by_time", "-", "--toolsets", "fs", "--root", root], {
      stdin: '{"timeField":"modified","limit":1}',
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).structuredContent.stats.returned).toBe(1);
  });

  test("an isError result exits 1", async () => {
    const args = '{"timeField":"modified","from":"2025-12-16T00:00:00Z","to":"2025-12-01T00:00:00Z"}';
    const { code, stdout } = await runCli(["call", "fs.search_by_time", args, "--toolsets", "fs", "--root", root]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).isError).toBe(true);
  });

  test("an unknown tool or unparsable JSON exits 2", async () => {
    const unknown = await runCli(["call", "nope", "{}", "--toolsets", "fs", "--root", root]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "nope"');
    const broken = await runCli(["call", "fs.search_by_time", "{oops", "--toolsets", "fs", "--root", root]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("do not parse");
  });
});
