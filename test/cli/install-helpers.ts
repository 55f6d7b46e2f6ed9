/** Running `mcpkit install` / `uninstall` for real, in a throwaway HOME that afterAll removes. */
import path from "node:path";
import { mcpkitCommand, REPO_ROOT } from "../support/mcp.ts";
import { scratchDirs } from "../support/scratch.ts";

// Under MCPKIT_BIN the compiled binary runs, and it writes itself with no script argument; from
// source it writes bun with this checkout's bunfig, no .env loading, and the entry script.
export const SELF = mcpkitCommand();
export const [COMMAND, ...SCRIPT] = SELF;
export const PREFIX =
  SCRIPT.length === 0 ? [] : [`--config=${path.join(REPO_ROOT, "bunfig.toml")}`, "--no-env-file", ...SCRIPT];

/** A new, empty HOME for one test; every one is removed when the test file's tests end. */
export const tempHome = scratchDirs("mcpkit-install-");

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
