/**
 * Bun.serve closes connections idle for 10 s; a quiet SSE stream must survive that through
 * keep-alive comments. This test holds a GET stream open for 12 s (the one slow test here).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  type HttpServerProcess,
  PROTOCOL_VERSION,
  openRawSession,
  readInBackground,
  startHttpServer,
} from "./support.ts";

let server: HttpServerProcess;
beforeAll(async () => {
  // Bun closes a connection silent for --idle-timeout-s (2 s here, 10 by default): the stream must outlive it.
  server = await startHttpServer(["--toolsets", "boj", "--idle-timeout-s", "2"]);
});
afterAll(async () => {
  await server.stop();
});

test("a quiet GET SSE stream stays open past the server's idle timeout, fed by keep-alive comments", async () => {
  const sessionId = await openRawSession(server.url);
  const aborter = new AbortController();
  const response = await fetch(server.url, {
    headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
    signal: aborter.signal,
  });
  expect(response.status).toBe(200);
  const started = Date.now();
  const stream = readInBackground(response, aborter);
  await Bun.sleep(3_000);
  expect(stream.ended()).toBe(false);
  expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  expect((stream.received().match(/: keepalive/g) ?? []).length).toBeGreaterThanOrEqual(2);
  await stream.stop();
}, 10_000);
