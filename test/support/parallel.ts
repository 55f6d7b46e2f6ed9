/**
 * Preloaded by `bun test` (bunfig.toml): runs the files in parallel, one worker process per core,
 * slowest first (test/support/timings.json), as `.ci/run` does. Bun 1.4.4 reads no such setting
 * from bunfig.toml, so a plain `bun test` re-runs itself as `bun test --parallel
 * --timings=test/support/timings.json` with the same arguments, and exits with that run's code.
 *
 * It does not when the command already says --parallel (.ci/run; `bun test --parallel=1` runs the
 * files one after another), in a worker (--test-worker), with --watch or --coverage, or where
 * /proc/self/cmdline is missing (not Linux). The files share nothing, so the results are the same.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const TIMINGS = join(import.meta.dir, "timings.json");

/** `test` and its flags as typed (a preload's process.argv holds only the test file); undefined off Linux. */
function typedArguments(): string[] | undefined {
  try {
    const words = readFileSync("/proc/self/cmdline", "utf8").split("\0").filter(Boolean);
    const at = words.indexOf("test");
    return at === -1 ? undefined : words.slice(at);
  } catch {
    return undefined;
  }
}

const args = typedArguments();
const serialOnPurpose = (arg: string) =>
  ["--parallel", "--test-worker", "--watch", "--coverage"].some((flag) => arg === flag || arg.startsWith(`${flag}=`));
if (args && !args.some(serialOnPurpose)) {
  const timings = args.some((arg) => arg.startsWith("--timings")) ? [] : [`--timings=${TIMINGS}`];
  const inherit = { stdin: "inherit", stdout: "inherit", stderr: "inherit" } as const;
  const run = Bun.spawnSync([process.execPath, ...args, "--parallel", ...timings], inherit);
  process.exit(run.exitCode ?? 1);
}
