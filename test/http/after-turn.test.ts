/**
 * The fast path of answers that are out within the turn they arrived in (issue 21,
 * src/mcp/http/after-turn.ts): no deadline timer and no listener on `request.signal` for them,
 * in either era; a slow answer still gets both, and its client leaving still cancels it. In
 * process, through the real pipeline (no socket: what is counted is the server's own work).
 */
import { afterEach, expect, test } from "bun:test";
import * as v from "valibot";
import { meta } from "../modern/support.ts";
import { defineTool } from "../../src/core/tool.ts";
import {
  IN_PROCESS_HEADERS,
  IN_PROCESS_URL,
  inProcessPipeline,
  inProcessState,
  openInProcessSession,
} from "./in-process.ts";
const MODERN_META = meta();

/** A tool that answers when the test says so, and reports its signal. */
let release: () => void = () => {};
let cancelled = false;
const slow = defineTool({
  name: "slow",
  title: "Slow",
  description: "Answers when released.",
  input: v.object({}),
  annotations: { readOnlyHint: true },
  scope: "test:read",
  handler: async (_args, context) => {
    await new Promise<void>((resolve) => {
      release = resolve;
      const cancel = () => {
        cancelled = true;
        resolve();
      };
      if (context.signal.aborted) cancel();
      else context.signal.addEventListener("abort", cancel);
    });
    return { content: [{ type: "text", text: "done" }] };
  },
});

/** Reports progress at once (its answer becomes a stream), then waits for its signal. */
let streamingCancelled = false;
const streaming = defineTool({
  name: "streaming",
  title: "Streaming",
  description: "Reports progress, then answers when cancelled.",
  input: v.object({}),
  annotations: { readOnlyHint: true },
  scope: "test:read",
  handler: async (_args, context) => {
    context.reportProgress({ progress: 1, message: "started" });
    const signal = context.signal;
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    streamingCancelled = true;
    return { content: [{ type: "text", text: "cancelled" }] };
  },
});

const pipeline = () => inProcessPipeline(inProcessState({ tools: [slow, streaming] })).handle;

/** A request that counts who looks at its signal, and can be aborted like a client leaving. */
type WatchedRequest = Request & { signalReads: number; leave: AbortController };

function post(body: unknown, headers: Record<string, string> = {}): WatchedRequest {
  const request = new Request(IN_PROCESS_URL, {
    method: "POST",
    headers: { ...IN_PROCESS_HEADERS, ...headers },
    body: JSON.stringify(body),
  }) as WatchedRequest;
  request.signalReads = 0;
  request.leave = new AbortController();
  Object.defineProperty(request, "signal", {
    get() {
      request.signalReads++;
      return request.leave.signal;
    },
  });
  return request;
}

let timers = 0;
const realSetTimeout = globalThis.setTimeout;
function countTimers(): void {
  timers = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers++;
    return realSetTimeout(...args);
  }) as typeof setTimeout;
}
afterEach(() => {
  globalThis.setTimeout = realSetTimeout;
});

/** Lets the turn end, so that whatever is armed after it has been. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const modern = (id: number, method: string, params: Record<string, unknown> = {}) => {
  const headers: Record<string, string> = { "mcp-protocol-version": "2026-07-28", "mcp-method": method };
  if (method === "tools/call") headers["mcp-name"] = String(params.name);
  return post({ jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } }, headers);
};

test("2026-07-28: an answer out within its turn sets no timer and never looks at the request's signal", async () => {
  const handle = pipeline();
  countTimers();
  const request = modern(1, "server/discover");
  const response = await handle(request);
  expect(response.status).toBe(200);
  await nextTurn();
  expect([timers, request.signalReads]).toEqual([0, 0]);
});

test("2026-07-28: a slow answer gets its deadline and listener after the turn; the client leaving cancels it", async () => {
  const handle = pipeline();
  cancelled = false;
  countTimers();
  const request = modern(2, "tools/call", { name: "slow", arguments: {} });
  const response = handle(request);
  await nextTurn();
  await nextTurn();
  expect(timers).toBe(1);
  expect(request.signalReads).toBeGreaterThan(0);
  request.leave.abort();
  expect(cancelled).toBe(true);
  expect((await response).status).toBe(204);
});

test("2026-07-28: a client gone before the turn ended is still seen, through signal.aborted", async () => {
  const handle = pipeline();
  cancelled = false;
  const request = modern(3, "tools/call", { name: "slow", arguments: {} });
  const response = handle(request);
  request.leave.abort();
  await nextTurn();
  await nextTurn();
  expect(cancelled).toBe(true);
  expect((await response).status).toBe(204);
});

test("2026-07-28: an answer that became a stream is still watched through the request's signal; the client leaving cancels it", async () => {
  // No socket here: only the request's signal can tell that the client left (answer.ts watchStreams).
  const handle = pipeline();
  streamingCancelled = false;
  const request = post(
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "streaming", arguments: {}, _meta: { ...MODERN_META, progressToken: "p" } },
    },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "streaming" },
  );
  const response = await handle(request);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  await nextTurn();
  await nextTurn();
  expect(request.signalReads).toBeGreaterThan(0);
  request.leave.abort();
  await nextTurn();
  expect(streamingCancelled).toBe(true);
});

test("2025-11-25 session: a ping answered within its turn sets no deadline; a slow call gets one after the turn", async () => {
  const handle = pipeline();
  const headers = await openInProcessSession(handle, post);
  await nextTurn();
  countTimers();
  const ping = await handle(post({ jsonrpc: "2.0", id: 1, method: "ping" }, headers));
  expect(await ping.json()).toMatchObject({ id: 1, result: {} });
  await nextTurn();
  expect(timers).toBe(0);

  const call = handle(
    post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: {} } }, headers),
  );
  await nextTurn();
  await nextTurn();
  expect(timers).toBe(1);
  release();
  expect(await (await call).json()).toMatchObject({ id: 2, result: { content: [{ text: "done" }] } });
});
