/**
 * What the README's Quick start tells a newcomer in a clone (issue 35), run as written: how to get an
 * `mcpkit` command (`bun link`; `bun run build` is the release tests' business), that `bun run`
 * echoes its command and `bun run --silent start` does not, and the fake BOJ started on a port of
 * one's choosing for trying the tools offline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { REPO_ROOT, runCli, runProcess, testEnv } from "../support/mcp.ts";
import { freeLoopbackPort } from "../support/ports.ts";

const quickStart = (() => {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  return readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Contents"));
})();

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "mcpkit-quick-start-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("Quick start", () => {
  test("bun run echoes its command on stderr; bun run --silent start prints mcpkit's output alone", async () => {
    expect(quickStart).toContain("`bun run --silent start tools` does not");
    const [loud, quiet] = await Promise.all([
      runProcess([process.execPath, "run", "start", "--version"], { cwd: REPO_ROOT }),
      runProcess([process.execPath, "run", "--silent", "start", "--version"], { cwd: REPO_ROOT }),
    ]);
    expect(loud.stderr).toContain("$ bun src/main.ts --version");
    expect(quiet).toEqual({ code: 0, stdout: `mcpkit ${packageJson.version}\n`, stderr: "" });
  });

  test("bun link gives an mcpkit command that runs the sources, and bun unlink takes it away", async () => {
    expect(quickStart).toMatch(/bun run build && \.\/dist\/mcpkit --version/);
    expect(quickStart).toMatch(/^bun link {2,}# .*~\/\.bun\/bin/m);
    // A throwaway Bun home: the link is made there, never in the user's.
    const env = testEnv({ BUN_INSTALL: join(scratch, "bun"), HOME: scratch });
    const link = await runProcess([process.execPath, "link"], { cwd: REPO_ROOT, env });
    expect(link.code).toBe(0);
    const linked = await runProcess([join(scratch, "bun", "bin", "mcpkit"), "--version"], { cwd: scratch, env });
    expect(linked).toMatchObject({ code: 0, stdout: `mcpkit ${packageJson.version}\n` });
    const unlink = await runProcess([process.execPath, "unlink"], { cwd: REPO_ROOT, env });
    expect(unlink.code).toBe(0);
    const gone = await runProcess(["sh", "-c", `test -e "${join(scratch, "bun", "bin", "mcpkit")}"`], { env });
    expect(gone.code).toBe(1);
  });

  test("the fake BOJ listens on the port it is given, and mcpkit's boj tools answer from it", async () => {
    expect(quickStart).toContain("`bun test/fixtures/boj/fake-boj.ts 8788`");
    expect(quickStart).toContain("`bun test/fixtures/oj/fake-craboj.ts 8787`");
    const port = freeLoopbackPort();
    const fake = Bun.spawn([process.execPath, "test/fixtures/boj/fake-boj.ts", String(port)], {
      cwd: REPO_ROOT,
      env: testEnv(),
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      const url = await listeningUrl(fake.stderr);
      expect(url).toBe(`http://127.0.0.1:${port}`);
      const call = await runCli(["call", "boj_get_metadata", '{"db":"CO"}', "--text", "--boj-base-url", url]);
      expect(call.code).toBe(0);
      expect(call.stdout).toContain("BOJ getMetadata db CO");
    } finally {
      fake.kill();
      await fake.exited;
    }
  });
});

/** The URL in the fake's "fake BOJ listening on URL" line (its readiness line). */
async function listeningUrl(stderr: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stderr) {
    text += decoder.decode(chunk, { stream: true });
    const match = /fake BOJ listening on (http:\/\/[\d.:]+)/.exec(text);
    if (match) return match[1];
  }
  throw new Error(`the fake BOJ exited without listening:\n${text}`);
}
