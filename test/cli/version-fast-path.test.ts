/**
 * `mcpkit --version` is answered before the command line and the MCP stack load (src/main.ts), so
 * that probing the binary costs no more than the runtime's own start (scripts/bench/version.ts).
 * These tests hold the output to what the full parser printed, and fail if the fast path stops
 * being taken: a preloaded Bun plugin reports on stderr every load of src/cli/run.ts, and the
 * preload reports every use of `process.stdout` (a Node stream whose first use cost 3–4 ms of
 * CPU, as much again as the runtime's start; the fast path writes with Bun's own writer).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { REPO_ROOT, testEnv } from "../support/mcp.ts";

const MAIN = resolve(REPO_ROOT, "src/main.ts");
const MARKER = "loaded-cli-run";
const STDOUT_MARKER = "used-process-stdout";

function runWithWatch(args: string[]): { stdout: string; stderr: string; code: number } {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-version-"));
  try {
    const preload = join(dir, "watch.ts");
    writeFileSync(
      preload,
      `import { plugin } from "bun";
import { readFileSync } from "node:fs";
plugin({
  name: "watch-cli-run",
  setup(build) {
    build.onLoad({ filter: /[\\\\/]cli[\\\\/]run\\.ts$/ }, (args) => {
      process.stderr.write("${MARKER}\\n");
      return { contents: readFileSync(args.path, "utf8"), loader: "ts" };
    });
  },
});
const stdout = Object.getOwnPropertyDescriptor(process, "stdout");
Object.defineProperty(process, "stdout", {
  configurable: true,
  enumerable: true,
  get() {
    Bun.write(Bun.stderr, "${STDOUT_MARKER}\\n");
    return stdout?.get ? stdout.get.call(process) : stdout?.value;
  },
});
`,
    );
    const result = Bun.spawnSync([process.execPath, "--preload", preload, MAIN, ...args], {
      env: testEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), code: result.exitCode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("--version fast path", () => {
  for (const flag of ["--version", "-V", "-v"]) {
    test(`${flag} prints mcpkit <version> without loading the command line`, () => {
      const result = runWithWatch([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`mcpkit ${packageJson.version}\n`);
      expect(result.stderr).not.toContain(MARKER);
      expect(result.stderr).not.toContain(STDOUT_MARKER);
    });
  }

  test("other arguments still go through the full command line (the watch sees it load)", () => {
    const result = runWithWatch(["--version", "--no-such-option"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(MARKER);
    expect(result.stderr).toContain("unknown option --no-such-option");
  });

  test("--version with another valid option prints the same line through the parser", () => {
    const result = runWithWatch(["--version", "--toolsets", "fs"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`mcpkit ${packageJson.version}\n`);
    expect(result.stderr).toContain(MARKER);
  });
});
