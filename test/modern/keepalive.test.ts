/**
 * Bun.serve closes connections idle for --idle-timeout-s (10 s by default; 2 s here). In the
 * 2026-07-28 era two streams may stay quiet that long: a `subscriptions/listen` stream (mcpkit's
 * lists never change) and the answer to a slow call. Both must outlive the timeout on keep-alive
 * comments. The test waits for the comments themselves, then releases the call: without
 * keep-alives the streams break after about 4 s (Bun checks idle connections in 4 s steps) and
 * the waits fail.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type HttpServerProcess, keepAlives, messagesOf, readInBackground, startHttpServer } from "../http/support.ts";
import { PROBE, headersFor, post, request } from "./support.ts";

const IDLE_TIMEOUT_S = 2;
/** Timers and Date.now() round differently by a millisecond or so. */
const ROUNDING_MS = 20;

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer([], { entry: PROBE, env: { IDLE_TIMEOUT_S: String(IDLE_TIMEOUT_S) } });
});
afterAll(async () => {
  await server.stop();
});

test("a quiet subscriptions/listen stream and a silent call both outlive a 2 s idle timeout on keep-alives", async () => {
  const started = Date.now();
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
  const held = request("tools/call", { name: "probe_hold", arguments: {} }, "held");
  const answer = await fetch(server.url, { method: "POST", headers: headersFor(held), body: JSON.stringify(held) });
  expect(answer.headers.get("content-type")).toBe("text/event-stream");
  const slow = readInBackground(answer, new AbortController());
  // Silent for 1 s, the answer became a stream (": stream open"); its first keep-alive comes 1 s later.
  await slow.until((text) => keepAlives(text) >= 1, "the answer's first keep-alive");
  await quiet.until((text) => keepAlives(text) >= 2, "the listen stream's second keep-alive");
  expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_TIMEOUT_S * 1000 - ROUNDING_MS);
  const release = await post(server.url, request("tools/call", { name: "probe_release", arguments: {} }));
  expect(release.response.result.content[0].text).toBe("released 1");
  const body = await slow.finished();
  expect(body).toStartWith(": stream open\n\n: keepalive\n\n");
  expect(messagesOf(body, "text/event-stream").at(-1)).toMatchObject({
    id: "held",
    result: { resultType: "complete", content: [{ type: "text", text: "released" }] },
  });
  expect(quiet.ended()).toBe(false);
  expect(quiet.received()).toContain("notifications/subscriptions/acknowledged");
  await quiet.stop();
});
