/**
 * SIGTERM and SIGINT end a stdio server gracefully (exit 0, "stdin closed; exiting") whenever they
 * come: while it serves, and while it still starts. A client that starts mcpkit and stops it at once
 * (a desktop client closing, a test harness) must not see it killed by the signal (exit 143).
 * The raw peer keeps stdin open throughout: only the signal can end the server.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startRawServer } from "../support/raw-stdio.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-stdio-signals-");

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`a ${signal} while serving: exit 0, after the server says stdin closed`, async () => {
    const server = startRawServer(["--toolsets", "boj"]);
    // Answered: the server serves, and its signal handlers are in place.
    await server.initialize();
    server.kill(signal);
    expect(await server.exited).toBe(0);
    expect(await server.stderrEnded()).toContain("stdin closed; exiting");
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
  const server = startRawServer(["--toolsets", "boj"], { BUN_OPTIONS: `--preload ${preload}` });
  // stdin stays open: if the signal were ignored rather than honoured, the server would never end.
  expect(await server.exited).toBe(0);
  const stderr = await server.stderrEnded();
  expect(stderr).toContain("serving MCP on stdio");
  expect(stderr).toContain("stdin closed; exiting");
});
