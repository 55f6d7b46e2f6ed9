/**
 * Bun.serve closes connections idle for --idle-timeout-s (10 s by default; 2 s here). In the
 * 2026-07-28 era two streams may stay quiet that long: a `subscriptions/listen` stream (mcpkit's
 * lists never change) and the answer to a slow call. Both must outlive the timeout on keep-alive
 * comments; this test holds them for 3 s.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type HttpServerProcess, messagesOf, readInBackground, startHttpServer } from "../http/support.ts";
import { PROBE, headersFor, request } from "./support.ts";

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer([], { entry: PROBE, env: { IDLE_TIMEOUT_S: "2" } });
});
afterAll(async () => {
  await server.stop();
});

test("a quiet subscriptions/listen stream and a 3 s call both survive a 2 s idle timeout", async () => {
  const listen = request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "quiet");
  const aborter = new AbortController();
  const stream = await fetch(server.url, {
    method: "POST",
    headers: headersFor(listen),
    body: JSON.stringify(listen),
    signal: aborter.signal,
  });
  expect(stream.status).toBe(200);
  const quiet = readInBackground(stream, aborter);
  const slow = request("tools/call", { name: "probe_wait", arguments: { ms: 3_000 } }, "slow");
  const answer = await fetch(server.url, { method: "POST", headers: headersFor(slow), body: JSON.stringify(slow) });
  expect(answer.headers.get("content-type")).toBe("text/event-stream");
  const body = await answer.text();
  // Silent for 1 s, it became a stream (": stream open"), then a keep-alive every 1 s until the answer.
  expect(body).toStartWith(": stream open");
  expect((body.match(/: keepalive/g) ?? []).length).toBeGreaterThanOrEqual(1);
  expect(messagesOf(body, "text/event-stream").at(-1)).toMatchObject({
    id: "slow",
    result: { resultType: "complete" },
  });
  expect(quiet.ended()).toBe(false);
  expect((quiet.received().match(/: keepalive/g) ?? []).length).toBeGreaterThanOrEqual(2);
  expect(quiet.received()).toContain("notifications/subscriptions/acknowledged");
  await quiet.stop();
}, 10_000);
