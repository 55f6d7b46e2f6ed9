/**
 * The npm launcher (packaging/npm/mcpkit.js) run with node from a node_modules tree planted in a
 * temporary folder, with shell scripts in the binary's place: it runs only the platform package npm
 * installs beside it (hoisted sibling or nested), never one an ancestor node_modules offers; it
 * refuses a link and a file of another user; it gives a missing execute bit to the owner alone. The
 * real npm install of the release's packages is run in release.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type CliResult, REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const hasNode = hasSystemTool("node", "nodejs", "the npm launcher tests");
const LAUNCHER = join(REPO_ROOT, "packaging/npm/mcpkit.js");
const TARGET = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
const PLATFORM_BIN = join("@mcpkit", TARGET, "bin", "mcpkit");
const isRoot = process.getuid?.() === 0;
/** The uid of "nobody" on Linux and macOS: a user that is neither the one running the tests nor root. */
const OTHER_UID = 65534;

let work: string;
let count = 0;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "mcpkit-npm-launcher-"));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh folder with a project whose node_modules holds the launcher (no platform package yet). */
function plantProject(): { root: string; modules: string; launcher: string } {
  const root = join(work, `tree-${++count}`);
  const modules = join(root, "project", "node_modules");
  const launcher = join(modules, "mcpkit", "bin", "mcpkit.js");
  mkdirSync(dirname(launcher), { recursive: true });
  copyFileSync(LAUNCHER, launcher);
  writeFileSync(join(modules, "mcpkit", "package.json"), '{"name":"mcpkit","version":"0.0.0-test"}\n');
  return { root, modules, launcher };
}

/** A shell script standing in for the binary: says WHO ran with which arguments, exits 7. */
function plantScript(file: string, who: string, mode = 0o755): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\necho "${who} ran: $*"\nexit 7\n`);
  chmodSync(file, mode);
  return file;
}

function launch(launcher: string): Promise<CliResult> {
  return runProcess(["node", launcher, "--version"], { env: testEnv(), timeoutMs: 60_000 });
}

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe.if(hasNode && process.platform !== "win32")("npm launcher", () => {
  test("runs the platform package npm hoisted beside it, passing arguments and the exit code on", async () => {
    const { modules, launcher } = plantProject();
    plantScript(join(modules, PLATFORM_BIN), "sibling");
    const result = await launch(launcher);
    expect(result.stdout).toBe("sibling ran: --version\n");
    expect(result.code).toBe(7);
  });

  test("prefers the copy nested in its own node_modules, where npm puts a second version", async () => {
    const { modules, launcher } = plantProject();
    plantScript(join(modules, PLATFORM_BIN), "sibling");
    plantScript(join(modules, "mcpkit", "node_modules", PLATFORM_BIN), "nested");
    const result = await launch(launcher);
    expect(result.stdout).toBe("nested ran: --version\n");
  });

  test("a copy nested under another package runs the platform package npm hoisted to the project's node_modules", async () => {
    // npm 11 lays it out so for an app needing mcpkit@1 (no platform package) and foo, which needs
    // mcpkit@2: mcpkit@2 nests in foo/node_modules, its platform package goes to the top, where nothing conflicts.
    const { root, modules } = plantProject();
    const nested = join(modules, "foo", "node_modules", "mcpkit", "bin", "mcpkit.js");
    mkdirSync(dirname(nested), { recursive: true });
    copyFileSync(LAUNCHER, nested);
    plantScript(join(modules, PLATFORM_BIN), "hoisted");
    // Above the project's own node_modules is still no place npm installs to.
    plantScript(join(root, "node_modules", PLATFORM_BIN), "ancestor");
    const result = await launch(nested);
    expect(result.stdout).toBe("hoisted ran: --version\n");
    expect(result.code).toBe(7);
  });

  test("a nested copy stops at the project's node_modules: no platform package above it runs", async () => {
    const { root, modules } = plantProject();
    const nested = join(modules, "@scope", "foo", "node_modules", "mcpkit", "bin", "mcpkit.js");
    mkdirSync(dirname(nested), { recursive: true });
    copyFileSync(LAUNCHER, nested);
    plantScript(join(root, "node_modules", PLATFORM_BIN), "ancestor");
    const result = await launch(nested);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
    // Every folder of the project's tree was looked in, a scoped package's too, and none above it.
    expect(result.stderr).toContain(join(modules, "@scope", "foo", "node_modules", "@mcpkit"));
    expect(result.stderr).toContain(join(modules, "@mcpkit"));
    expect(result.stderr).not.toContain(join(root, "node_modules", "@mcpkit"));
  });

  test.if(isRoot)("a nested copy does not climb into a node_modules of another user", async () => {
    const { modules } = plantProject();
    const nested = join(modules, "foo", "node_modules", "mcpkit", "bin", "mcpkit.js");
    mkdirSync(dirname(nested), { recursive: true });
    copyFileSync(LAUNCHER, nested);
    plantScript(join(modules, PLATFORM_BIN), "hoisted");
    chownSync(modules, OTHER_UID, OTHER_UID);
    const result = await launch(nested);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
  });

  test("never runs a platform package an ancestor node_modules offers, and says how to reinstall", async () => {
    const { root, launcher } = plantProject();
    plantScript(join(root, "node_modules", PLATFORM_BIN), "ancestor");
    const result = await launch(launcher);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the optional dependency @mcpkit/${TARGET} is not installed`);
    expect(result.stderr).toContain("--include=optional");
    expect(result.stderr).not.toContain(join(root, "node_modules", "@mcpkit"));
  });

  test("refuses a link in the binary's place and leaves the linked private file's mode alone", async () => {
    const { root, modules, launcher } = plantProject();
    const secret = plantScript(join(root, "private", "secret"), "secret", 0o600);
    mkdirSync(dirname(join(modules, PLATFORM_BIN)), { recursive: true });
    symlinkSync(secret, join(modules, PLATFORM_BIN));
    const result = await launch(launcher);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("it is a symbolic link");
    expect(modeOf(secret)).toBe(0o600);
  });

  test("gives a binary without its execute bit that bit for its owner only", async () => {
    const { modules, launcher } = plantProject();
    const binary = plantScript(join(modules, PLATFORM_BIN), "unpacked", 0o644);
    const result = await launch(launcher);
    expect(result.stdout).toBe("unpacked ran: --version\n");
    expect(modeOf(binary)).toBe(0o744);
  });

  // Deterministic, no race: a preload wraps child_process.spawn and swaps a link to another file into the binary's
  // place just before the launcher starts it, after every check has passed. What starts must be the file checked.
  test.if(process.platform === "linux")(
    "starts the file it checked, not one swapped into its place after the checks",
    async () => {
      const { root, modules, launcher } = plantProject();
      const binary = plantScript(join(modules, PLATFORM_BIN), "checked");
      const swapped = plantScript(join(root, "elsewhere", "swapped"), "swapped");
      const preload = join(root, "swap-before-spawn.cjs");
      writeFileSync(
        preload,
        `const cp = require("node:child_process"), fs = require("node:fs");
const spawn = cp.spawn;
cp.spawn = (...args) => {
  fs.symlinkSync(${JSON.stringify(swapped)}, ${JSON.stringify(`${binary}.link`)});
  fs.renameSync(${JSON.stringify(`${binary}.link`)}, ${JSON.stringify(binary)});
  return spawn(...args);
};
`,
      );
      const result = await runProcess(["node", "--require", preload, launcher, "--version"], {
        env: testEnv(),
        timeoutMs: 60_000,
      });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe("checked ran: --version\n");
      expect(result.code).toBe(7);
    },
  );

  test("refuses a directory in the binary's place", async () => {
    const { modules, launcher } = plantProject();
    mkdirSync(join(modules, PLATFORM_BIN), { recursive: true });
    const result = await launch(launcher);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("it is not a regular file");
  });

  if (!isRoot) console.error("SKIPPED the npm launcher's other-owner case: creating a file of another user needs root");
  test.if(isRoot)("refuses a binary owned by another user", async () => {
    const { modules, launcher } = plantProject();
    const binary = plantScript(join(modules, PLATFORM_BIN), "stranger");
    chownSync(binary, OTHER_UID, OTHER_UID);
    const result = await launch(launcher);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`it belongs to uid ${OTHER_UID}`);
  });
});
