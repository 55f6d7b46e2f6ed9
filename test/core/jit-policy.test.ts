/**
 * A release binary starts with JavaScriptCore's tier-up thresholds scaled (src/core/jit-policy.ts:
 * the code of a start runs once, and compiling it cost more than interpreting it), and compiles as
 * usual from the first tool call, and once an HTTP server listens. These tests fail if the binary
 * stops being built with the scale, if a start restores the normal pace before it has answered its
 * handshake, or if the first tool call (stdio, `mcpkit call`) or a listening HTTP server does not
 * restore it. A preload, passed in BUN_OPTIONS so that it reaches the compiled binary as well as
 * the sources, reports every `Bun.unsafe.setJITPolicy` call on stderr.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../../scripts/release/compile.ts";
import { STARTUP_JIT_POLICY } from "../../src/core/jit-policy.ts";
import { startHttpServer } from "../http/support.ts";
import { runCli, startStdioServer } from "../support/mcp.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-jit-policy-");

/** BUN_OPTIONS that preload a reporter of every JIT policy change ("jit-policy N" on stderr). */
function reportingPolicyChanges(): Record<string, string> {
  const preload = join(scratch(), "report-jit-policy.ts");
  writeFileSync(
    preload,
    `const setJITPolicy = Bun.unsafe.setJITPolicy;
Bun.unsafe.setJITPolicy = (scale) => {
  Bun.write(Bun.stderr, "jit-policy " + scale + "\\n");
  setJITPolicy(scale);
};
`,
  );
  return { BUN_OPTIONS: `--preload ${preload}` };
}

const restorations = (stderr: string) => stderr.match(/^jit-policy 1$/gm)?.length ?? 0;

describe("the JIT's pace", () => {
  test("a release binary starts with its tier-up thresholds scaled", () => {
    expect(STARTUP_JIT_POLICY).toBeGreaterThan(1);
    expect(COMPILE_FLAGS).toContain(`--compile-jit-policy=${STARTUP_JIT_POLICY}`);
  });

  test("stdio: the handshake and tools/list run at the start-up pace; the first tool call restores the normal one, once", async () => {
    const server = await startStdioServer({ args: ["--toolsets", "boj"], env: reportingPolicyChanges() });
    try {
      const { tools } = await server.client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(restorations(server.stderr())).toBe(0);

      await server.client.callTool({ name: "boj_list_databases", arguments: {} });
      expect(await server.stderrLine(/^jit-policy 1$/)).toBe("jit-policy 1");
      await server.client.callTool({ name: "boj_list_databases", arguments: {} });
      expect(restorations(server.stderr())).toBe(1);
      expect(server.stderr()).not.toMatch(/^jit-policy (?!1$)/m);
    } finally {
      await server.close();
    }
  });

  test("mcpkit call: the normal pace is back before the tool runs", async () => {
    const result = await runCli(["call", "boj_list_databases"], { env: reportingPolicyChanges() });
    expect(result.code).toBe(0);
    expect(restorations(result.stderr)).toBe(1);
  });

  test("an HTTP server compiles at the normal pace once it listens", async () => {
    const server = await startHttpServer(["--toolsets", "boj"], { env: reportingPolicyChanges() });
    // Read once it has exited, when all it wrote has arrived: no tool was called, only listening restored it.
    expect(await server.stop()).toBe(0);
    expect(restorations(server.stderr())).toBe(1);
  });
});
