/**
 * A BOJ failure is logged truthfully and once (issue 35): the final line counts the attempts that
 * were made (`attempts=1` for an error that is not retried, where it said `attempt=1 of=3`), and
 * `mcpkit call` prints the failure once (with --text on stdout only; it was also a WARN on stderr).
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { runCli, startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

/** A series code BOJ does not know: a 400 (M181013E), which is not retried. */
const UNKNOWN_CODE = JSON.stringify({ db: "CO", codes: ["NOPE"] });
const bojArgs = (...extra: string[]) => bojTestArgs(fake.url, "--boj-retry-backoff-ms", "1", ...extra);

describe("the final failure's log line", () => {
  test("counts the attempts made: 1 for an error that is not retried, 3 after two retries", async () => {
    const server = await startStdioServer({ args: bojArgs() });
    try {
      await server.client.callTool({ name: "boj_get_data_code", arguments: JSON.parse(UNKNOWN_CODE) }).catch(() => {});
      const once = await server.stderrLine(/failed after 1 attempt:/);
      expect(once).toContain("attempts=1");
      expect(once).not.toMatch(/\bof=|\battempt=/);

      fake.enqueue({ kind: "status", status: 503 }, { kind: "status", status: 503 }, { kind: "status", status: 503 });
      await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } }).catch(() => {});
      const thrice = await server.stderrLine(/failed after 3 attempts:/);
      expect(thrice).toContain("attempts=3");
      expect(thrice).not.toMatch(/\bof=|\battempt=/);
      // The retries before it still say which attempt of how many failed.
      expect(server.stderr()).toMatch(/attempt 2 of 3 failed .* attempt=2 of=3/);
    } finally {
      await server.close();
    }
  });
});

describe("mcpkit call says a BOJ failure once", () => {
  test("--text: the error on stdout, nothing on stderr", async () => {
    const { code, stdout, stderr } = await runCli(["call", "boj_get_data_code", UNKNOWN_CODE, "--text", ...bojArgs()]);
    expect(code).toBe(1);
    expect(stdout).toContain("M181013E");
    expect(stderr).toBe("");
  });

  test("JSON: the error object on stdout and one line on stderr", async () => {
    const { code, stdout, stderr } = await runCli(["call", "boj_get_data_code", UNKNOWN_CODE, ...bojArgs()]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.data.message_id).toBe("M181013E");
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("M181013E");
  });

  test("retries are still shown as they happen, the final failure once", async () => {
    fake.enqueue({ kind: "status", status: 503 }, { kind: "status", status: 503 }, { kind: "status", status: 503 });
    const { code, stdout, stderr } = await runCli(["call", "boj_get_metadata", '{"db":"CO"}', "--text", ...bojArgs()]);
    expect(code).toBe(1);
    expect(stdout).toContain("M181091S");
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("attempt 1 of 3 failed");
    expect(lines[1]).toContain("attempt 2 of 3 failed");
  });
});
