/**
 * Bun.serve closes a connection silent for --idle-timeout-s (10 s by default, 2 s here); a quiet
 * SSE stream must outlive that on keep-alive comments, one every half of the timeout. The test
 * waits for the second comment (the stream is then as old as the timeout) instead of a clock.
 * Bun checks idle connections in 4 s steps, so without keep-alives this stream breaks after
 * about 4 s, before a second comment can arrive: the wait fails.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  type HttpServerProcess,
  keepAlives,
  PROTOCOL_VERSION,
  openRawSession,
  readInBackground,
  startHttpServer,
} from "./support.ts";

const IDLE_TIMEOUT_S = 2;
/** Timers and Date.now() round differently by a millisecond or so. */
const ROUNDING_MS = 20;

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer(["--toolsets", "boj", "--idle-timeout-s", String(IDLE_TIMEOUT_S)]);
});
afterAll(async () => {
  await server.stop();
});

test("a quiet GET SSE stream stays open past the server's idle timeout, fed by keep-alive comments", async () => {
  const sessionId = await openRawSession(server.url);
  const aborter = new AbortController();
  const started = Date.now();
  const response = await fetch(server.url, {
    headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
    signal: aborter.signal,
  });
  expect(response.status).toBe(200);
  const stream = readInBackground(response, aborter);
  await stream.until((text) => keepAlives(text) >= 2, "the second keep-alive");
  expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_TIMEOUT_S * 1000 - ROUNDING_MS);
  expect(stream.ended()).toBe(false);
  await stream.stop();
});
