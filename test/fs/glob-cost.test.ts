/**
 * Issue 18 G1: a glob's cost is bounded before it is matched. Extglob groups that can match a name
 * in many ways ("?(x|xx)" × 21), repeated groups with alternatives ("+(x|xx)") and wildcards
 * multiplied by brace expansions are refused with a message naming 'glob'; everything accepted
 * matches a 255-byte name in milliseconds, so the walk's time slices, the time budget and
 * cancellation keep working and the event loop is never frozen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileGlob } from "../../src/toolsets/fs/glob.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  initializeBody,
  startHttpServer,
} from "../http/support.ts";
import { REPO_ROOT, runProcess } from "../support/mcp.ts";

const ISSUE_PATTERNS = {
  "21 optional groups of one or two characters": `${"?([a-z0-9.-]|[a-z0-9.-][a-z0-9.-])".repeat(21)}Z`,
  "22 @(…|) groups": `${"@([a-z0-9.-]|[a-z0-9.-][a-z0-9.-]|)".repeat(22)}Z`,
  "a repeated group with overlapping alternatives": "+(x|xx)Z",
  "three wildcards times 999 brace expansions": "*x*x*x{1..999}Z",
};

describe("patterns that could backtrack are refused before matching (G1)", () => {
  for (const [what, pattern] of Object.entries(ISSUE_PATTERNS)) {
    test(what, () => {
      const result = compileGlob(pattern);
      expect(typeof result).toBe("string");
      expect(result as string).toStartWith("'glob' ");
      expect(result as string).toMatch(/limit|exponential|seconds/);
    });
  }

  test("ordinary extglobs still compile: disjoint repeats, a few alternatives, classes", () => {
    for (const pattern of [
      "+(a|b).md",
      "*(ab|cd)",
      "+([0-9]).log",
      "@(a|b|c)-?(x).txt",
      "**/!(*.test).ts",
      "*.@(md|txt)",
    ]) {
      expect({ pattern, ok: typeof compileGlob(pattern) !== "string" }).toEqual({ pattern, ok: true });
    }
  });

  test("fuzz: every accepted random pattern up to the length limit matches a long name in milliseconds", async () => {
    // A child process: a matcher that backtracks exponentially is killed at the timeout, a failure.
    const run = await runProcess([process.execPath, join(REPO_ROOT, "test/fs/fixtures/glob-fuzz.ts"), "400", "18"], {
      timeoutMs: 30_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { accepted: number; worstMs: number; worstPattern: string };
    expect(report.accepted).toBeGreaterThan(100);
    // CPU time, which a loaded machine does not stretch as it does the wall clock (4–8 ms at worst
    // on a quiet one); a matcher that backtracks exponentially takes seconds.
    expect(report.worstMs, report.worstPattern).toBeLessThan(50);
  }, 40_000);
});

describe('patterns whose cost comes from their ranges, segments and "**" (red-team pass, stop 47)', () => {
  test("a brace range of anything but numbers or single letters is refused: the braces library would expand it", () => {
    // "{!..~}" is 94 characters: three of them took 5.2 s and 1.1 GB before a walk began.
    for (const pattern of ["{!..~}{!..~}{!..~}", "{+1..+999}", "{0x1..0x3e7}", "{1e0..999}", "{ 1..999}"]) {
      const result = compileGlob(pattern);
      expect({ pattern, result }).toEqual({ pattern, result: expect.stringContaining("may form a range") });
    }
    for (const pattern of ["{1..20}.log", "{a..z}*", "{01..10}", "file.{md,txt}", "{-5..5}", "{1..9..2}"])
      expect({ pattern, ok: typeof compileGlob(pattern) !== "string" }).toEqual({ pattern, ok: true });
  });

  test('wildcards that split names across segments, and "**" beyond three, are refused', () => {
    // On 60-byte names "*a*a*/*a*a*/*a*a*/zz" took 103 s a match; "**/*a*/**/*a*/**/*a*/zz" 0.8 s.
    for (const pattern of [
      "*a*a*/*a*a*/*a*a*/zz",
      "**/*a*/**/*a*/**/*a*/zz",
      "*a*a*/*a*a*/zz",
      "**/a/**/a/**/a/**/a/zz",
    ]) {
      const result = compileGlob(pattern, 64);
      expect({ pattern, refused: typeof result === "string" && result.startsWith("'glob' ") }).toEqual({
        pattern,
        refused: true,
      });
    }
    for (const pattern of ["**/node_modules/**/*.js", "**/*test*/**/*.ts", "src/**/*.test.ts", "**/a*/**/b*/**/*.js"])
      expect({ pattern, ok: typeof compileGlob(pattern, 64) !== "string" }).toEqual({ pattern, ok: true });
  });

  test('a search that may go deeper than 64 levels allows one "**", and says how to allow more', () => {
    expect(typeof compileGlob("**/src/**/*.ts", 64)).not.toBe("string");
    const deep = compileGlob("**/src/**/*.ts", 1000);
    expect(deep).toContain('has 2 "**" segments; the limit is 1 when the search may go deeper than 64 levels');
    expect(deep).toContain("set 'maxDepth' to 64 or less");
    expect(typeof compileGlob("**/*.ts", 4096)).not.toBe("string");
  });

  test("every accepted pattern of up to three segments matches deep paths in milliseconds", async () => {
    // A child process: a match that backtracks for seconds is killed at the timeout, a failure.
    const run = await runProcess([process.execPath, join(REPO_ROOT, "test/fs/fixtures/glob-shapes.ts")], {
      timeoutMs: 30_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      accepted: number;
      refused: number;
      worstMs: number;
      worstPattern: string;
    };
    expect(report.accepted).toBeGreaterThan(200);
    // CPU time (up to 8 ms here at worst); the shapes this refuses took from 25 ms to 103 s.
    expect(report.worstMs, report.worstPattern).toBeLessThan(50);
  }, 40_000);
});

describe("through mcpkit --http (G1)", () => {
  let tree: string;
  let server: HttpServerProcess;
  beforeAll(async () => {
    tree = mkdtempSync(join(tmpdir(), "mcpkit-fs-glob-cost-"));
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(tree, `d${d}`));
      for (let f = 0; f < 20; f++) writeFileSync(join(tree, `d${d}`, `${"x".repeat(200)}${f}.txt`), "");
    }
    server = await startHttpServer(["--toolsets", "fs", "--root", tree, "--stateless"]);
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(tree, { recursive: true, force: true });
  });

  test("the issue's patterns answer isError naming 'glob' while /healthz keeps answering", async () => {
    await fetch(server.url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() }).then((r) => r.text());
    for (const glob of Object.values(ISSUE_PATTERNS)) {
      const call = fetch(server.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "fs_search_by_time", arguments: { timeField: "modified", glob } },
        }),
      }).then((response) => response.text());
      const health = await fetch(`${server.base}/healthz`);
      expect(health.status).toBe(200);
      const body = await call;
      expect(body).toContain('"isError":true');
      expect(body).toContain("'glob' ");
    }
  });
});
