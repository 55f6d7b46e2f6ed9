/**
 * Shutdown and the admission queue (issue 34 H3, docs/contracts/http.md "Signals"): on SIGTERM a
 * call waiting for a slot leaves the queue at once, refused with 503 + Retry-After and -32000
 * "shutting down", while the call already running keeps its grace period. Without this the waiting
 * call started late in the grace period (once the running one ended) or waited out all of it. A
 * real process serving probe tools (`fixtures/server.ts`); held calls and readiness lines order
 * every step: nothing waits on the clock.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { type HttpServerProcess, startHttpServer } from "../http/support.ts";
import { post, request, until } from "../modern/support.ts";

const FIXTURE = resolve(import.meta.dir, "fixtures/server.ts");

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer(["--max-calls", "1", "--max-queued-calls", "1"], { entry: FIXTURE });
});
afterAll(() => server?.stop());

test("SIGTERM refuses the waiting call at once (503, Retry-After) and lets the running one finish", async () => {
  const running = post(server.url, request("tools/call", { name: "probe_hold", arguments: {} }));
  await until(() => server.stderr().includes("probe_hold started (1 held)"), "the held call");
  const waiting = post(server.url, request("tools/call", { name: "probe_echo", arguments: { text: "late" } }));
  await until(() => server.stderr().includes("tools/call waits for a slot"), "the waiting call");
  server.kill("SIGTERM");
  // Answered while the running call is still held: it did not wait for the grace period.
  const refused = await waiting;
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toBe("2");
  expect(refused.response.error.code).toBe(-32000);
  expect(refused.response.error.message).toContain("shutting down");
  expect(refused.response.error.data).toMatchObject({ limit: "shutdown" });
  // The running call still finishes within its grace period, and the server exits cleanly.
  server.kill("SIGUSR2");
  const finished = await running;
  expect([finished.status, finished.response.result.content[0].text]).toEqual([200, "released"]);
  expect(await server.exited).toBe(0);
});
