/**
 * `--boj-shared-state sqlite:PATH` in a folder other users can write: the red team's reproduction.
 * A database with mcpkit's schema and a cached answer, planted in /tmp by another user, was opened
 * as mcpkit's own and its answer served "from mcpkit's cache". Now the start stops, naming the
 * path, why and the fix, and BOJ is asked nothing. (The other user's files themselves, links and
 * companions: test/core/private-sqlite-file.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { runCli } from "../support/mcp.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-boj-shared-file-");
const fake = startFakeBoj();
afterAll(() => fake.stop());

const call = (state: string) =>
  runCli([
    "call",
    "boj_get_metadata",
    '{"db":"CO"}',
    ...["--boj-base-url", fake.url, "--boj-min-interval-ms", "0", "--boj-shared-state", state],
  ]);

describe("--boj-shared-state sqlite:PATH in a folder others can write", () => {
  test("a database planted there with a cached answer is not served: the start stops with one line, BOJ is asked nothing", async () => {
    // The planter's database: mcpkit's schema and a cached answer, made where they may write.
    const theirs = scratch();
    const made = await call(`sqlite:${join(theirs, "boj.db")}`);
    expect(made.code, made.stderr).toBe(0);
    // Moved into a folder everyone can write, sticky as /tmp is.
    const shared = scratch();
    chmodSync(shared, 0o1777);
    for (const name of readdirSync(theirs)) renameSync(join(theirs, name), join(shared, name));
    fake.reset();

    const path = join(shared, "boj.db");
    const { code, stdout, stderr } = await call(`sqlite:${path}`);
    expect(stdout).not.toContain("answered from mcpkit's cache");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trim()).toBe(
      `mcpkit: cannot use the SQLite file ${path}: the folder ${shared} is writable by other users (mode 01777): they could plant a link at the database's name; pass --boj-shared-state (BOJ_SHARED_STATE) a sqlite: path in a folder of your own that only you can write.`,
    );
    expect(fake.requests).toHaveLength(0);
  });
});
