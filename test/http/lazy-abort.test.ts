/**
 * A request's abort signal is made only when its work asks for it (issue 21,
 * src/mcp/protocol/lazy-abort.ts): a `tools/call` whose tool never looks at its signal makes no
 * AbortController in either era, and a tool that does look still sees the client's cancellation.
 * In process, through the real pipeline; the count of AbortControllers made shows whether the
 * fast path was taken.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { meta } from "../modern/support.ts";
import { defineTool, textResult } from "../../src/core/tool.ts";
import { PassThrough } from "node:stream";
import { silentLogger } from "../../src/core/log.ts";
import { createModernServer } from "../../src/mcp/modern/core.ts";
import { dispatcherFor } from "../../src/mcp/protocol/dispatcher.ts";
import { LazyAbort } from "../../src/mcp/protocol/lazy-abort.ts";
import { LineChannel } from "../../src/mcp/stdio/lines.ts";
import { connectModern } from "../../src/mcp/stdio/modern.ts";
import { inProcessPipeline, inProcessPost as post, inProcessState, openInProcessSession } from "./in-process.ts";

const MODERN_META = meta();

const quick = defineTool({
  name: "quick",
  title: "Quick",
  description: "Answers at once, never looking at its signal.",
  input: v.object({}),
  annotations: { readOnlyHint: true },
  scope: "test:read",
  handler: async () => textResult("quick"),
});

/** Waits for its signal to abort, then says so. */
let started: () => void = () => {};
let sawAbort = false;
const watching = defineTool({
  name: "watching",
  title: "Watching",
  description: "Answers once its signal aborts.",
  input: v.object({}),
  annotations: { readOnlyHint: true },
  scope: "test:read",
  handler: async (_args, context) => {
    const signal = context.signal;
    started();
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    sawAbort = signal.aborted;
    return textResult(`aborted: ${signal.aborted}`);
  },
});

const RealAbortController = globalThis.AbortController;
let made = 0;
function countAbortControllers(): void {
  made = 0;
  globalThis.AbortController = class extends RealAbortController {
    constructor() {
      super();
      made++;
    }
  };
}
afterEach(() => {
  globalThis.AbortController = RealAbortController;
});

const handle = () => inProcessPipeline(inProcessState({ tools: [quick, watching] })).handle;
const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} },
});

describe("a request's abort signal is made only when its work asks for it", () => {
  test("2025-11-25 session: a call that never looks makes none; one that looks sees the client's cancellation", async () => {
    const pipeline = handle();
    const headers = await openInProcessSession(pipeline);
    countAbortControllers();
    const answer = await pipeline(post(call(1, "quick"), headers));
    expect(await answer.json()).toMatchObject({ id: 1, result: { content: [{ text: "quick" }] } });
    expect(made).toBe(0);

    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const pending = pipeline(post(call(2, "watching"), headers));
    await running;
    expect(made).toBe(1);
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } };
    expect((await pipeline(post(cancel, headers))).status).toBe(202);
    expect(sawAbort).toBe(true);
    // A cancelled request is answered with nothing: its stream ends without a response.
    expect(await (await pending).text()).not.toContain('"id":2');
  });

  test("2026-07-28 on stdio: a call that never looks makes none", async () => {
    const dispatcher = dispatcherFor({
      toolsets: [{ name: "t", tools: [quick] }],
      log: silentLogger,
      toolNames: "portable",
      outputBudget: 100_000,
    });
    const server = createModernServer({ dispatcher, log: silentLogger, transport: "stdio" });
    const output = new PassThrough();
    const connection = connectModern(server, new LineChannel(new PassThrough(), output));
    const line = new Promise<string>((resolve) => output.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    countAbortControllers();
    connection.deliver({
      ...call(4, "quick"),
      jsonrpc: "2.0",
      params: { name: "quick", arguments: {}, _meta: MODERN_META },
    });
    expect(JSON.parse(await line)).toMatchObject({ id: 4, result: { content: [{ text: "quick" }] } });
    expect(made).toBe(0);
    await connection.close();
  });

  test("2026-07-28: a call that never looks makes none", async () => {
    const pipeline = handle();
    countAbortControllers();
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "quick" };
    const body = { ...call(3, "quick"), params: { name: "quick", arguments: {}, _meta: MODERN_META } };
    const answer = await pipeline(post(body, headers));
    expect(await answer.json()).toMatchObject({ id: 3, result: { content: [{ text: "quick" }] } });
    expect(made).toBe(0);
  });
});

describe("LazyAbort", () => {
  test("aborted before anyone asked: the signal made later is already aborted, with the reason", () => {
    const lazy = new LazyAbort();
    expect(lazy.aborted).toBe(false);
    lazy.abort("gone");
    lazy.abort("again");
    expect(lazy.aborted).toBe(true);
    expect([lazy.signal.aborted, lazy.signal.reason]).toEqual([true, "gone"]);
  });

  test("asked for first: aborting aborts it, and its listeners run", () => {
    const lazy = new LazyAbort();
    const signal = lazy.signal;
    let heard = 0;
    signal.addEventListener("abort", () => heard++);
    lazy.abort();
    expect([signal.aborted, heard, lazy.signal === signal]).toEqual([true, 1, true]);
  });
});
