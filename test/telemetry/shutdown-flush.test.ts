/**
 * The last telemetry flush fits in the shutdown grace period (issue 34 F1): SIGTERM gave calls in
 * flight the grace period and then the flush 5 s more, so with a collector that never answers an
 * HTTP server outlived `docker stop`'s 10 s (15 s). Now the flush gets only what is left of
 * --shutdown-grace-s, counted from the signal. A real process over HTTP, a BOJ call in flight to
 * an upstream that never answers, and the OTLP collector the same silent server.
 */
import { expect, test } from "bun:test";
import { startHttpServer } from "../http/support.ts";
import { post, request, until } from "../modern/support.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const later = cleanupsAfterEach();
const GRACE_S = 1;
/** The flush's own budget (telemetry's FLUSH_MS), which the grace period now bounds. */
const FLUSH_ALONE_MS = 5_000;

/** A server that takes every request and never answers: the upstream and the collector both. */
function silentServer(): { url: string; requests: () => number } {
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch() {
      requests++;
      return new Promise<Response>(() => {});
    },
  });
  later(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, requests: () => requests };
}

test("SIGTERM with a call in flight and a collector that never answers exits within the grace period", async () => {
  const silent = silentServer();
  const server = await startHttpServer(
    ["--toolsets", "boj", "--boj-base-url", silent.url, "--shutdown-grace-s", String(GRACE_S)],
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: silent.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_METRICS_EXPORTER: "none",
      },
    },
  );
  later(() => server.stop());
  // An answered request: its span waits in the batch for the flush at shutdown.
  expect((await post(server.url, request("tools/list", {}))).status).toBe(200);
  const call = post(
    server.url,
    request("tools/call", {
      name: "boj_get_data_code",
      arguments: { db: "CO", codes: ["TK99F1000601GCQ01000"] },
    }),
  ).catch(() => undefined);
  await until(() => silent.requests() >= 1, "the BOJ request in flight");
  const signalled = performance.now();
  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  const tookMs = performance.now() - signalled;
  await call;
  // What decides it: the flush was given what the grace period left, not its own 5 s.
  const budget = /were not all sent within (\d+) ms/.exec(server.stderr())?.[1];
  expect(budget).toBeDefined();
  expect(Number(budget)).toBeLessThanOrEqual(GRACE_S * 1000);
  // And the exit: the grace period, with a wide margin for a loaded machine, but short of the
  // grace period plus the flush's own budget, which is what it took before.
  expect(tookMs).toBeLessThan(GRACE_S * 1000 + FLUSH_ALONE_MS);
});
