/**
 * A reader that stops early is no error (issue 35; PRODUCT.md "a reader that closes the pipe early
 * is no error"): `mcpkit call … | head -c 100`, `mcpkit tools | head -1` and the like exit with the
 * code they would have had (0 when answered) and say nothing about the pipe on stderr. They used
 * to print `mcpkit: unexpected error: EPIPE: broken pipe, write` and exit 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeBoj, startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { REPO_ROOT, mcpkitCommand, testEnv } from "../support/mcp.ts";

let dir: string;
let boj: FakeBoj;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-pipe-"));
  boj = startFakeBoj();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await boj.stop();
});

/**
 * Runs mcpkit with stdout on a pipe whose reader has already gone: every write fails with EPIPE,
 * whatever the output's size and however fast the machine (no race with a reader's exit).
 */
async function runIntoClosedPipe(args: string[]): Promise<{ code: number; stderr: string }> {
  const fifo = join(dir, `out-${crypto.randomUUID()}`);
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  closeSync(reader);
  const child = Bun.spawn([...mcpkitCommand(), ...args], {
    cwd: REPO_ROOT,
    env: testEnv({ BOJ_BASE_URL: boj.url }),
    stdin: "ignore",
    stdout: writer,
    stderr: "pipe",
  });
  closeSync(writer);
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  return { code, stderr };
}

describe.skipIf(process.platform === "win32")("stdout closed by its reader", () => {
  for (const args of [
    ["tools"],
    ["--help"],
    ["--version"],
    ["version"],
    ["call", "boj_list_databases"],
    ["call", "boj_list_databases", "--text"],
    ["call", "boj_get_data_code", "--help"],
  ]) {
    test(`mcpkit ${args.join(" ")} exits 0 and says nothing`, async () => {
      expect(await runIntoClosedPipe(args)).toEqual({ code: 0, stderr: "" });
    });
  }

  test("a call keeps its own exit code: arguments the tool refuses are still 2, with the error on stderr", async () => {
    const { code, stderr } = await runIntoClosedPipe(["call", "boj_get_data_code", '{"db":"FM08"}']);
    expect(code).toBe(2);
    expect(stderr).toContain('missing required argument "codes"');
    expect(stderr).not.toContain("EPIPE");
  });

  test("`mcpkit call … | head -c 100` on a 2 MB result: head gets its 100 bytes, mcpkit exits 0 in silence", async () => {
    const call = [
      ...mcpkitCommand(),
      "call",
      "boj_get_data_layer",
      '{"db":"FM08","frequency":"D","layers":["*"]}',
      "--max-output-bytes",
      "10000000",
    ];
    // The result is far larger than a pipe holds, so mcpkit is still writing when head leaves.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's PIPESTATUS, not a template
    const shell = Bun.spawn(["bash", "-c", '"$@" | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}"', "bash", ...call], {
      cwd: REPO_ROOT,
      env: testEnv({ BOJ_BASE_URL: boj.url }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [status, stderr] = await Promise.all([
      new Response(shell.stdout).text(),
      new Response(shell.stderr).text(),
      shell.exited,
    ]);
    expect({ status: status.trim(), stderr }).toEqual({ status: "0", stderr: "" });
  });
});
