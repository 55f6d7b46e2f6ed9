/**
 * Preloaded by `bun test` (bunfig.toml): runs the files in parallel, two worker processes per core,
 * slowest first (test/support/timings.json), and gives every test that sets no
 * timeout of its own bunfig.toml's `[test] timeout`. Bun 1.4.4 reads none of these settings from
 * bunfig.toml (tests got its default 5000 ms in every mode), so a plain `bun test` re-runs itself as
 * `bun test --parallel=<2 x cores> --timings=test/support/timings.json --timeout=<bunfig's>` with the same
 * arguments, and exits with that run's code. That run's processes are a compiled binary of these
 * sources (test-binary.ts), unless MCPKIT_BIN is set (`MCPKIT_BIN=` runs `bun src/main.ts`).
 *
 * It does not re-run when the command already says --parallel (`bun test --parallel=1` runs
 * the files one after another, against the sources unless MCPKIT_BIN says otherwise), in a worker (--test-worker), with --watch or --coverage, or where
 * /proc/self/cmdline is missing (not Linux). The files share nothing, so the results are the same.
 * There, unless the command says --timeout, bunfig's timeout is set for each file as it loads:
 * --parallel isolates every file, and Bun runs a preload again for each.
 */
import { setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative, sep } from "node:path";

const TIMINGS = join(import.meta.dir, "timings.json");
/**
 * Most files spend their time waiting on the processes and servers they start, so one worker per
 * core left the cores half idle: on 2 cores, 151 s of CPU in 132 s with 2 workers, 141 s in 72 s
 * with 4 (the same tree, load 1-5 from other work).
 */
const WORKERS_PER_CORE = 2;

/**
 * `test` and its flags as typed (a preload's process.argv holds only the test file); undefined off
 * Linux. `pid` is "self", or a worker's parent: the `bun test --parallel` that was typed.
 */
function typedArguments(pid: string | number = "self"): string[] | undefined {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    const at = words.indexOf("test");
    return at === -1 ? undefined : words.slice(at);
  } catch {
    return undefined;
  }
}

/** `[test] timeout` of the bunfig.toml that `bun test` read (the working directory's), in ms. */
function configuredTimeout(): number | undefined {
  try {
    const config = Bun.TOML.parse(readFileSync("bunfig.toml", "utf8")) as { test?: { timeout?: unknown } };
    const timeout = config.test?.timeout;
    return typeof timeout === "number" && timeout > 0 ? timeout : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The environment with MCPKIT_BIN set to this run's link to a binary of these sources
 * (test-binary.ts says why), or as given; one line says which mcpkit the tests run. `after` runs
 * once the tests have: it removes the link, and repeats why the sources ran, if they did.
 */
async function withTestBinary(): Promise<{ env: Record<string, string | undefined>; after: () => void }> {
  const given = process.env.MCPKIT_BIN;
  if (given !== undefined) {
    say(given ? `${given} (MCPKIT_BIN)` : "bun src/main.ts (MCPKIT_BIN is empty)");
    return { env: process.env, after() {} };
  }
  const started = performance.now();
  // Imported here: every worker loads this file for every test file, and needs none of it.
  const { testBinary } = await import("./test-binary.ts");
  const binary = await testBinary(join(import.meta.dir, "../..")).catch((error: unknown) => ({
    path: undefined,
    built: false,
    reason: error instanceof Error ? error.message : String(error),
    release() {},
  }));
  const { path, built, reason } = binary;
  if (!path) {
    const why = `bun src/main.ts (no compiled binary: ${reason})`;
    say(why);
    return { env: process.env, after: () => say(why) };
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const shown = path.startsWith(`${process.cwd()}${sep}`) ? relative(process.cwd(), path) : path;
  say(
    `${shown} (${built ? `built from the sources in ${seconds} s` : "sources unchanged"}; MCPKIT_BIN= bun test runs the sources)`,
  );
  return { env: { ...process.env, MCPKIT_BIN: path }, after: () => binary.release() };
}

function say(what: string): void {
  process.stderr.write(`mcpkit under test: ${what}\n`);
}

const given = (args: string[] | undefined, flag: string) =>
  args?.some((arg) => arg === flag || arg.startsWith(`${flag}=`)) ?? false;

const args = typedArguments();
// A worker is always handed --timeout (5000 when none was typed), so whether one was typed is read
// from the command that started it.
const typed = given(args, "--test-worker") ? typedArguments(process.ppid) : args;
const timeout = configuredTimeout();
const timeoutTyped = given(typed, "--timeout");
const timeoutFlag = timeout === undefined || timeoutTyped ? [] : [`--timeout=${timeout}`];
const serialOnPurpose = ["--parallel", "--test-worker", "--watch", "--coverage"].some((flag) => given(args, flag));
if (args && !serialOnPurpose) {
  const timings = given(args, "--timings") ? [] : [`--timings=${TIMINGS}`];
  const inherit = { stdin: "inherit", stdout: "inherit", stderr: "inherit" } as const;
  const workers = `--parallel=${WORKERS_PER_CORE * availableParallelism()}`;
  const { env, after } = await withTestBinary();
  const run = Bun.spawnSync([process.execPath, ...args, workers, ...timings, ...timeoutFlag], { ...inherit, env });
  after();
  process.exit(run.exitCode ?? 1);
} else if (timeout !== undefined && !timeoutTyped) {
  setDefaultTimeout(timeout);
}
