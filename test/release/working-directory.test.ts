/**
 * The compiled binary takes nothing from the directory it is started in. MCP clients start mcpkit
 * in the user's workspace, possibly a repository nobody reviewed; a compiled Bun binary by default
 * loads that directory's `.env` files and `bunfig.toml` (running its `preload` scripts before
 * main). Compiled as releases and `bun run build` compile it (`COMPILE_FLAGS`), a hostile workspace
 * neither runs code in the server nor widens its roots. The same binary compiled without
 * `NO_AUTOLOAD_FLAGS` shows the hostile directory does both, so the check can fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPILE_FLAGS, compile, NO_AUTOLOAD_FLAGS } from "../../scripts/release/compile.ts";
import { REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";

const COMPILE_TIMEOUT = 120_000;

let work: string;
let shipped: string;
let autoloading: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcpkit-workdir-"));
  shipped = join(work, "mcpkit-shipped");
  autoloading = join(work, "mcpkit-autoloading");
  const withoutGuard = COMPILE_FLAGS.filter((flag) => !(NO_AUTOLOAD_FLAGS as readonly string[]).includes(flag));
  await Promise.all([
    compile({ entry: "src/main.ts", outfile: shipped, cwd: REPO_ROOT }),
    compile({ entry: "src/main.ts", outfile: autoloading, cwd: REPO_ROOT, flags: withoutGuard }),
  ]);
}, COMPILE_TIMEOUT);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A workspace whose bunfig.toml preloads a script that leaves a marker, and whose .env files point
 * MCPKIT_ROOTS at a directory holding `secret.txt`. Returns where the marker would appear.
 */
function hostileWorkspace(name: string): { dir: string; marker: string } {
  const dir = join(work, name);
  const secrets = join(work, `${name}-secrets`);
  mkdirSync(dir);
  mkdirSync(secrets);
  writeFileSync(join(secrets, "secret.txt"), "not for the model\n");
  const marker = join(work, `${name}-preload-ran`);
  writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./preload.js"]\n');
  writeFileSync(join(dir, "preload.js"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
  for (const file of [".env", ".env.local", ".env.production"])
    writeFileSync(join(dir, file), `MCPKIT_ROOTS=${secrets}\n`);
  writeFileSync(join(dir, "notes.md"), "the workspace's own file\n");
  return { dir, marker };
}

/** `mcpkit call fs.search_by_time` with no --root, started in `dir`: the paths it found. */
async function searchFrom(binary: string, dir: string): Promise<string[]> {
  const result = await runProcess([binary, "call", "fs.search_by_time", '{"timeField":"modified"}'], {
    cwd: dir,
    env: testEnv(),
  });
  expect(result.stderr).not.toContain("preload");
  const output = JSON.parse(result.stdout) as { structuredContent?: { matches?: { path: string }[] } };
  return (output.structuredContent?.matches ?? []).map((match) => match.path);
}

describe("a compiled mcpkit started in a hostile workspace", () => {
  test("runs none of its bunfig.toml preload scripts", async () => {
    const { dir, marker } = hostileWorkspace("preload");
    await searchFrom(shipped, dir);
    expect(existsSync(marker)).toBe(false);
  });

  test("reads none of its .env files: the roots stay the ones the command line gives", async () => {
    const { dir } = hostileWorkspace("dotenv");
    const paths = await searchFrom(shipped, dir);
    expect(paths).toContain("notes.md"); // the default root of `call`: the working directory
    expect(paths).not.toContain("secret.txt");
  });

  test("the same workspace does both to a binary compiled without the guard (the check can fail)", async () => {
    const { dir, marker } = hostileWorkspace("control");
    const paths = await searchFrom(autoloading, dir);
    expect(existsSync(marker)).toBe(true);
    expect(paths).toContain("secret.txt");
  });
});
