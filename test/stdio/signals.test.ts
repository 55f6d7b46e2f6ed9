/**
 * SIGTERM and SIGINT end a stdio server gracefully (exit 0, "stdin closed; exiting") whenever they
 * come: while it serves, and while it still starts. A client that starts mcpkit and stops it at once
 * (a desktop client closing, a test harness) must not see it killed by the signal (exit 143).
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpkitCommand, testEnv } from "../support/mcp.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-stdio-signals-");

/** mcpkit on stdio with a stdin pipe that is never closed: only a signal can end it. */
function startStdio(env: Record<string, string> = {}) {
  const child = Bun.spawn([...mcpkitCommand(), "--toolsets", "boj"], {
    env: testEnv(env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  const stderrRead = (async () => {
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  /** Resolves once stderr holds `text` (or rejects when stderr ended without it). */
  const stderrHas = async (text: string) => {
    while (!stderr.includes(text)) {
      const ended = await Promise.race([stderrRead.then(() => true), Bun.sleep(5).then(() => false)]);
      if (ended && !stderr.includes(text)) throw new Error(`stderr ended without "${text}":\n${stderr}`);
    }
  };
  /** All of stderr, once the process has closed it. */
  const allStderr = async () => {
    await stderrRead;
    return stderr;
  };
  return { child, stderrHas, stderr: allStderr };
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`a ${signal} while serving: exit 0, after the server says stdin closed`, async () => {
    const server = startStdio();
    await server.stderrHas("serving MCP on stdio");
    server.child.kill(signal);
    expect(await server.child.exited).toBe(0);
    expect(await server.stderr()).toContain("stdin closed; exiting");
  });
}

test("a SIGTERM while the server starts is honoured once it serves: exit 0, not killed (143)", async () => {
  // The preload signals the process itself as the server first reads stdin, before it has said it
  // serves: where the handler was installed only once the server had started, the signal killed it.
  const preload = join(scratch(), "sigterm-on-first-read.ts");
  writeFileSync(
    preload,
    `const stream = Bun.stdin.stream.bind(Bun.stdin);
Bun.stdin.stream = () => {
  process.kill(process.pid, "SIGTERM");
  return stream();
};
`,
  );
  const server = startStdio({ BUN_OPTIONS: `--preload ${preload}` });
  // stdin stays open: if the signal were ignored rather than honoured, the server would never end.
  expect(await server.child.exited).toBe(0);
  const stderr = await server.stderr();
  expect(stderr).toContain("serving MCP on stdio");
  expect(stderr).toContain("stdin closed; exiting");
});
