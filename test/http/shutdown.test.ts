/**
 * Graceful shutdown on SIGTERM: the listener closes at once, calls in flight finish (up to a
 * grace period), then sessions close and the process exits 0; also for a SIGTERM sent during start-up.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../modern/support.ts";
import { mcpkitCommand, runProcess, testEnv } from "../support/mcp.ts";
import { scratchDirs } from "../support/scratch.ts";
import { connectClient, startHttpServer } from "./support.ts";

const FIXTURE = join(import.meta.dir, "fixtures/probe-server.ts");
const scratch = scratchDirs("mcpkit-shutdown-");

test("SIGTERM lets a call in flight finish, refuses new connections, then exits 0", async () => {
  const server = await startHttpServer([], { entry: FIXTURE });
  const { client } = await connectClient(server.url);
  const call = client.callTool({ name: "probe_sleep", arguments: { ms: 1200 } });
  await until(() => server.stderr().includes("probe_sleep started (1200 ms)"), "the call to start");
  server.kill("SIGTERM");
  // The listener is closed in the same step as this line is logged.
  await until(() => server.stderr().includes("shutting down"), "the shutdown to begin");
  const refused = await fetch(`${server.base}/healthz`).then(
    (response) => response.status,
    () => "refused",
  );
  expect([503, "refused"]).toContain(refused);
  const result = await call;
  expect(result.content).toEqual([{ type: "text", text: "slept 1200 ms" }]);
  expect(await server.exited).toBe(0);
  expect(server.stderr()).toContain("stopped");
});

test("a call longer than the grace period is cancelled and the process still exits promptly", async () => {
  const server = await startHttpServer([], { entry: FIXTURE, env: { GRACE_MS: "300" } });
  const { client } = await connectClient(server.url);
  // The call would end after the test's own timeout: only the grace period can end it in time.
  const call = client.callTool({ name: "probe_sleep", arguments: { ms: 60_000 } }).then(
    () => "answered",
    (error: Error) => error.message,
  );
  await until(() => server.stderr().includes("probe_sleep started (60000 ms)"), "the call to start");
  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  expect(await call).toContain("shutting down");
  expect(server.stderr()).toContain("grace period over");
});

test("a call the client cancelled neither keeps its session alive nor holds up shutdown", async () => {
  // A grace period longer than the test may run: the exit must not wait for it.
  const server = await startHttpServer([], { entry: FIXTURE, env: { GRACE_MS: "60000", IDLE_MS: "1000" } });
  const { client } = await connectClient(server.url);
  const aborter = new AbortController();
  const call = client
    .callTool({ name: "probe_sleep", arguments: { ms: 60_000 } }, undefined, { signal: aborter.signal })
    .then(
      () => "answered",
      (error: Error) => error.message,
    );
  await until(() => server.stderr().includes("probe_sleep started (60000 ms)"), "the call to start");
  aborter.abort("changed my mind"); // the SDK client sends notifications/cancelled
  expect(await call).toContain("changed my mind");
  // The session is idle now: it expires after --session-idle-ms like any other.
  await until(() => server.stderr().includes("session expired after being idle"), "the session to expire");
  expect(((await (await fetch(`${server.base}/healthz`)).json()) as { sessions: number }).sessions).toBe(0);
  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  expect(server.stderr()).not.toContain("grace period over");
});

test("a SIGTERM that comes while the server starts is honoured once it listens: exit 0, not killed", async () => {
  // The preload signals the process itself the moment its socket is bound, before the readiness
  // line: where the handler was installed only after that line, the signal killed it (143).
  const preload = join(scratch(), "sigterm-on-bind.ts");
  writeFileSync(
    preload,
    `const serve = Bun.serve;
Bun.serve = (options) => {
  const server = serve(options);
  process.kill(process.pid, "SIGTERM");
  return server;
};
`,
  );
  const result = await runProcess([...mcpkitCommand(), "--http", "127.0.0.1:0", "--toolsets", "boj"], {
    env: testEnv({ BUN_OPTIONS: `--preload ${preload}` }),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain("listening on");
  expect(result.stderr).toContain("stopped");
});
