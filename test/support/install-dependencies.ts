/**
 * Preloaded by `bun test` (bunfig.toml): on a fresh clone, install the locked dependencies first,
 * so the README's quick start holds with Bun alone: `bun run start`, then `bun test`.
 *
 * The resolver has already seen "no node_modules" by the time a preload runs, so after installing
 * this re-runs the same `bun test` command in a new process and exits with its code.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
if (!existsSync(join(root, "node_modules/@modelcontextprotocol/sdk/package.json"))) {
  process.stderr.write("node_modules is missing: running 'bun install --frozen-lockfile' first\n");
  const inherit = { cwd: root, stdin: "inherit", stdout: "inherit", stderr: "inherit" } as const;
  const install = Bun.spawnSync([process.execPath, "install", "--frozen-lockfile"], inherit);
  if (install.exitCode !== 0)
    throw new Error("'bun install --frozen-lockfile' failed; run it by hand and look at its output");
  const rerun = Bun.spawnSync([process.execPath, ...originalArguments()], { ...inherit, cwd: process.cwd() });
  process.exit(rerun.exitCode ?? 1);
}

/** `test` and its flags as typed (a preload's process.argv holds only the test file). */
function originalArguments(): string[] {
  try {
    const words = readFileSync("/proc/self/cmdline", "utf8").split("\0").filter(Boolean);
    const at = words.indexOf("test");
    if (at !== -1) return words.slice(at);
  } catch {
    // not Linux: run the whole suite again
  }
  return ["test"];
}
