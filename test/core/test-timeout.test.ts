/**
 * bunfig.toml's `[test] timeout` reaches every test without its own, however `bun test` is typed.
 * Bun 1.4.4 applies it in no mode (a test got 5000 ms, and the oj tests through the real process
 * failed on a busy machine); test/support/parallel.ts passes it on. Checked on a scratch project
 * whose bunfig says 300 ms and whose tests wait for an event that never comes: each must fail
 * "after 300ms", which takes no longer on a slow machine than on a fast one.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PRELOAD = join(import.meta.dir, "../support/parallel.ts");
const project = mkdtempSync(join(tmpdir(), "mcpkit-test-timeout-"));
writeFileSync(join(project, "bunfig.toml"), `[test]\ntimeout = 300\npreload = [${JSON.stringify(PRELOAD)}]\n`);
// Two files: a worker runs several, and a setting made once per process would reach the first only.
for (const name of ["first", "second"]) {
  writeFileSync(
    join(project, `${name}.test.ts`),
    `import { test } from "bun:test";\ntest("waits", () => new Promise(() => {}));\n`,
  );
}
afterAll(() => rmSync(project, { recursive: true, force: true }));

/**
 * The scratch runs' environment: without GITHUB_ACTIONS, under which Bun also writes each failure as
 * a "::error …timed out after 300ms::" annotation, so every timeout would be counted twice in CI.
 */
const { GITHUB_ACTIONS: _annotations, ...plainOutputEnv } = process.env;

/** How many tests of `bun test <flags>` in the scratch project timed out after how many ms. */
async function timeoutsOf(flags: string[]): Promise<Record<string, number>> {
  const run = Bun.spawn([process.execPath, "test", ...flags], {
    cwd: project,
    env: plainOutputEnv,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
  expect(await run.exited).toBe(1);
  const counts: Record<string, number> = {};
  for (const [, ms] of `${out}${err}`.matchAll(/timed out after (\d+)ms/g)) counts[ms] = (counts[ms] ?? 0) + 1;
  return counts;
}

describe("every test without its own timeout gets bunfig.toml's", () => {
  test("the project's is generous", () => {
    const config = Bun.TOML.parse(readFileSync(join(import.meta.dir, "../../bunfig.toml"), "utf8")) as {
      test: { timeout: number };
    };
    expect(config.test.timeout).toBeGreaterThanOrEqual(30_000);
  });

  // "" is a plain `bun test` (it re-runs itself in parallel), "--parallel" is .ci/run's command.
  test.concurrent.each([[""], ["--parallel"], ["--parallel=1"]])("bun test %s", async (flags) => {
    expect(await timeoutsOf(flags ? [flags] : [])).toEqual({ "300": 2 });
  });

  test.concurrent.each([["--timeout=700"], ["--parallel --timeout=700"]])(
    "bun test %s: the command's own wins",
    async (flags) => {
      expect(await timeoutsOf(flags.split(" "))).toEqual({ "700": 2 });
    },
  );
});
