/** Running `mcpkit install` / `uninstall` for real, in a throwaway HOME that afterAll removes. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "bun:test";
import { mcpkitCommand, REPO_ROOT } from "../support/mcp.ts";

// Under MCPKIT_BIN the compiled binary runs, and it writes itself with no script argument; from
// source it writes bun with this checkout's bunfig, no .env loading, and the entry script.
export const SELF = mcpkitCommand();
export const [COMMAND, ...SCRIPT] = SELF;
export const PREFIX =
  SCRIPT.length === 0 ? [] : [`--config=${path.join(REPO_ROOT, "bunfig.toml")}`, "--no-env-file", ...SCRIPT];

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

export function tempHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpkit-install-"));
  homes.push(home);
  return home;
}

export function cli(home: string, ...args: string[]) {
  return run(home, [...SELF, ...args]);
}

/** Runs `argv` with HOME at `home`, in `cwd` (default: `home`), and PATH as given (default: the tests' own). */
export async function run(home: string, argv: string[], searchPath = process.env.PATH, cwd = home) {
  const proc = Bun.spawn(argv, {
    env: { PATH: searchPath, HOME: home },
    cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}
