/**
 * The legacy session engine (src/mcp/legacy/session.ts) as a unit, transport-neutral: messages in
 * through deliver(), out through a send callback, timers injected so the 10 s roots/list timeout
 * fires on demand. What the wire tests cannot reach cheaply: the timeout, closing with a request
 * and a roots/list still open, the error rendering, and the versions copied from the SDK.
 */
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { createLogger } from "../../src/core/log.ts";
import { ErrorCode, ProtocolError, defineTool, textResult } from "../../src/core/tool.ts";
import type { Timers } from "../../src/mcp/legacy/outgoing.ts";
import { LegacySession, ROOTS_TIMEOUT_MS } from "../../src/mcp/legacy/session.ts";
import { HIDDEN_FAILURE, errorBody } from "../../src/mcp/protocol/errors.ts";
import { LATEST_LEGACY_VERSION, LEGACY_VERSIONS } from "../../src/mcp/protocol/versions.ts";
import { connectLegacy } from "../../src/mcp/stdio/legacy.ts";
import type { Reply } from "../../src/mcp/protocol/message.ts";
import { PROTOCOL_VERSION } from "../http/support.ts";
import { until } from "../modern/support.ts";
import { LineChannel } from "../../src/mcp/stdio/lines.ts";

type Json = Record<string, any>;

const tools = [
  defineTool({
    name: "unit_chatty",
    title: "Chatty",
    description: "Reports progress and logs a line, then answers.",
    input: v.object({}),
    annotations: { readOnlyHint: true },
    scope: "unit:read",
    handler: async (_args, context) => {
      context.reportProgress({ progress: 1, total: 1 });
      context.notify("info", "unit", "halfway");
      return textResult("done");
    },
  }),
  defineTool({
    name: "unit_roots",
    title: "Roots",
    description: "Answers with the client's roots.",
    input: v.object({}),
    annotations: { readOnlyHint: true },
    scope: "unit:read",
    handler: async (_args, context) => textResult(JSON.stringify((await context.clientRoots()) ?? null)),
  }),
  defineTool({
    name: "unit_roots_once_cancelled",
    title: "Roots once cancelled",
    description: "Waits until cancelled, then asks for the client's roots.",
    input: v.object({}),
    annotations: { readOnlyHint: true },
    scope: "unit:read",
    handler: async (_args, context) => {
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
      return textResult(JSON.stringify((await context.clientRoots()) ?? null));
    },
  }),
  defineTool({
    name: "unit_wait",
    title: "Wait",
    description: "Waits until cancelled.",
    input: v.object({}),
    annotations: { readOnlyHint: true },
    scope: "unit:read",
    handler: async (_args, context) => {
      await new Promise((_resolve, reject) => context.signal.addEventListener("abort", () => reject(new Error("x"))));
      return textResult("never");
    },
  }),
  defineTool({
    name: "unit_refuse",
    title: "Refuse",
    description: "Refuses with a protocol error that carries data.",
    input: v.object({}),
    annotations: { readOnlyHint: true },
    scope: "unit:read",
    handler: async () => {
      throw new ProtocolError(-32042, "refused on purpose", { why: "unit" });
    },
  }),
];

const options = {
  toolsets: [{ name: "unit", tools }],
  log: createLogger("off"),
  toolNames: "portable" as const,
  outputBudget: 100_000,
};

/** Timers that fire only when told to. */
function manualTimers(): Timers & { fire(): void; pending(): number[] } {
  const timers = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  return {
    setTimeout: (callback, ms) => {
      timers.set(next, { callback, ms });
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    fire: () => {
      const due = [...timers.values()];
      timers.clear();
      for (const timer of due) timer.callback();
    },
    pending: () => [...timers.values()].map((timer) => timer.ms),
  };
}

function session(timers = manualTimers()) {
  const sent: Json[] = [];
  const engine = new LegacySession(options, {
    send: async (json) => void sent.push(JSON.parse(json)),
    timers,
  });
  const answerTo = async (id: unknown): Promise<Json> => {
    for (let turn = 0; turn < 100; turn++) {
      const found = sent.find((message) => message.id === id && !("method" in message));
      if (found) return found;
      await Promise.resolve();
    }
    throw new Error(`no answer to ${JSON.stringify(id)}`);
  };
  const settle = async () => {
    for (let turn = 0; turn < 100; turn++) await Promise.resolve();
  };
  const initialize = (capabilities: Json = {}) =>
    engine.deliver({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "unit", version: "1" } },
    });
  return { engine, sent, answerTo, settle, initialize, timers };
}

const call = (id: number | string, name: string) => ({
  jsonrpc: "2.0" as const,
  id,
  method: "tools/call",
  params: { name, arguments: {} },
});

describe("versions", () => {
  test("the legacy versions and the latest one are the SDK's SUPPORTED_PROTOCOL_VERSIONS and LATEST_PROTOCOL_VERSION", () => {
    expect<string[]>([...LEGACY_VERSIONS]).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
    expect(LATEST_LEGACY_VERSION).toBe(LATEST_PROTOCOL_VERSION);
  });
});

describe("the server's roots/list request", () => {
  test("unanswered for 10 s: the client is told it is cancelled, the call gets no roots, a late answer is ignored", async () => {
    const { engine, sent, answerTo, settle, initialize, timers } = session();
    initialize({ roots: {} });
    await answerTo("init");
    engine.deliver(call(1, "unit_roots"));
    await settle();
    expect(sent.filter((message) => message.method === "roots/list")).toEqual([
      { jsonrpc: "2.0", id: 0, method: "roots/list" },
    ]);
    expect(timers.pending()).toEqual([ROOTS_TIMEOUT_MS]);
    timers.fire();
    const answer = await answerTo(1);
    expect(answer.result.content[0].text).toBe("[]");
    expect(sent.find((message) => message.method === "notifications/cancelled")).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 0, reason: "MCP error -32001: Request timed out" },
    });
    const before = sent.length;
    engine.deliver({ jsonrpc: "2.0", id: 0, result: { roots: [{ uri: "file:///late" }] } });
    await settle();
    expect(sent.length).toBe(before);
  });

  test("a result that is not a list of roots counts as no roots, and the next call asks again", async () => {
    const { engine, sent, answerTo, settle, initialize } = session();
    initialize({ roots: {} });
    await answerTo("init");
    engine.deliver(call(1, "unit_roots"));
    await settle();
    // One root that is no object spoils the shape; a root with a bad uri alone is skipped (legacy-stdio.test.ts).
    engine.deliver({ jsonrpc: "2.0", id: 0, result: { roots: [{ uri: "file:///srv/a" }, "file:///srv/b"] } });
    expect((await answerTo(1)).result.content[0].text).toBe("[]");
    engine.deliver(call(2, "unit_roots"));
    await settle();
    expect(sent.filter((message) => message.method === "roots/list").map((message) => message.id)).toEqual([0, 1]);
  });
});

describe("closing", () => {
  test("close() cancels what is running (no answer) and ends a roots/list still waiting; later messages are ignored", async () => {
    const { engine, sent, answerTo, settle, initialize, timers } = session();
    initialize({ roots: {} });
    await answerTo("init");
    engine.deliver(call("waiting", "unit_wait"));
    engine.deliver(call("roots", "unit_roots"));
    await settle();
    expect(engine.inFlight).toBe(2);
    engine.close();
    await settle();
    expect(engine.inFlight).toBe(0);
    expect(timers.pending()).toEqual([]);
    engine.deliver({ jsonrpc: "2.0", id: "after", method: "ping" });
    await settle();
    expect(
      sent.filter((message) => message.id === "waiting" || message.id === "roots" || message.id === "after"),
    ).toEqual([]);
  });

  test("the request that asked is cancelled before the client answers: a request sharing the roots asks again on its own, and gets them", async () => {
    const { engine, sent, answerTo, settle, initialize } = session();
    initialize({ roots: {} });
    await answerTo("init");
    engine.deliver(call("asker", "unit_roots"));
    engine.deliver(call("sharer", "unit_roots"));
    await settle();
    // Over HTTP the roots/list went out on the asker's stream; cancelling it (or its client leaving) withdraws it.
    expect(sent.filter((message) => message.method === "roots/list").map((message) => message.id)).toEqual([0]);
    engine.deliver({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "asker", reason: "left" },
    });
    await settle();
    expect(sent.filter((message) => message.method === "roots/list").map((message) => message.id)).toEqual([0, 1]);
    // The first question is withdrawn, not left to time out.
    expect(sent.filter((message) => message.method === "notifications/cancelled")).toEqual([
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "Request cancelled" } },
    ]);
    engine.deliver({ jsonrpc: "2.0", id: 1, result: { roots: [{ uri: "file:///srv" }] } });
    expect((await answerTo("sharer")).result.content[0].text).toBe('["/srv"]');
    expect(sent.some((message) => message.id === "asker" && !("method" in message))).toBe(false);
  });

  test("a request already cancelled asks nothing: its roots/list could land on a later request that reuses its id", async () => {
    const { engine, sent, answerTo, settle, initialize } = session();
    initialize({ roots: {} });
    await answerTo("init");
    engine.deliver(call(7, "unit_roots_once_cancelled"));
    await settle();
    engine.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "left" } });
    await settle();
    expect(sent.filter((message) => message.method === "roots/list")).toEqual([]);
  });

  test("drain() sends the answers still being worked on, then closes", async () => {
    const { engine, sent, answerTo, settle, initialize } = session();
    initialize({ roots: {} });
    await answerTo("init");
    engine.deliver(call("roots", "unit_roots"));
    await settle();
    const drained = engine.drain(60_000);
    engine.deliver({ jsonrpc: "2.0", id: 0, result: { roots: [{ uri: "file:///srv" }] } });
    await drained;
    expect(sent.find((message) => message.id === "roots")?.result.content[0].text).toBe('["/srv"]');
  });
});

describe("the end of stdin (stdio/legacy.ts)", () => {
  test("a roots/list still waiting ends with the input: the call is answered without roots, not after the 10 s timeout", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const channel = new LineChannel(input, output);
    const connection = connectLegacy(options, channel);
    channel.onmessage = (message) => connection.deliver(message);
    channel.onclose = () => connection.inputEnded();
    channel.start();
    const lines: Json[] = [];
    let buffered = "";
    const waiters: (() => void)[] = [];
    output.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, newline)));
        buffered = buffered.slice(newline + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    const line = async (match: (message: Json) => boolean): Promise<Json> => {
      for (;;) {
        const found = lines.find(match);
        if (found) return found;
        await new Promise<void>((wake) => waiters.push(wake));
      }
    };
    const send = (message: Json) => input.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: { roots: {} },
        clientInfo: { name: "unit", version: "1" },
      },
    });
    await line((message) => message.id === "init");
    send(call(1, "unit_roots"));
    await line((message) => message.method === "roots/list");
    // The client closes its end: it can no longer answer the roots/list.
    input.end();
    const answer = await line((message) => message.id === 1 && !("method" in message));
    expect(answer.result.content[0].text).toBe("[]");
    // Not the timeout's doing: that would have told the client the roots/list was cancelled first.
    expect(lines.some((message) => message.method === "notifications/cancelled")).toBe(false);
    await connection.closed;
  });
});

describe("errors", () => {
  test("a ProtocolError keeps its code, message and data", async () => {
    const { engine, answerTo, initialize } = session();
    initialize();
    await answerTo("init");
    engine.deliver(call(1, "unit_refuse"));
    expect((await answerTo(1)).error).toEqual({ code: -32042, message: "refused on purpose", data: { why: "unit" } });
  });

  test("anything else is a failure of ours: -32603, its message in the server log only (protocol/errors.ts)", () => {
    const logged: string[] = [];
    const log = {
      error: (message: string, fields?: Record<string, unknown>) => logged.push(message, String(fields?.error)),
    };
    expect(errorBody(new Error("open /etc/secret"), "resources/read", log)).toEqual({
      code: ErrorCode.InternalError,
      message: HIDDEN_FAILURE,
    });
    expect(errorBody(Object.assign(new Error("coded"), { code: -32000, data: [1] }), "m", log)).toEqual({
      code: ErrorCode.InternalError,
      message: HIDDEN_FAILURE,
    });
    expect(errorBody("a string", "m", log)).toEqual({ code: ErrorCode.InternalError, message: HIDDEN_FAILURE });
    expect(logged).toContain("open /etc/secret");
  });
});

describe("the session engine names the request each message it sends relates to (unit)", () => {
  function engine() {
    const sent: { message: Json; related: unknown }[] = [];
    const replies: { id: unknown; reply: Reply }[] = [];
    const due: (() => void)[] = [];
    const timers: Timers = {
      setTimeout: (callback) => due.push(callback),
      clearTimeout: () => {},
    };
    const session = new LegacySession(options, {
      send: async (json, related) => void sent.push({ message: JSON.parse(json), related }),
      reply: async (id, reply) => void replies.push({ id, reply }),
      timers,
    });
    session.deliver({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { roots: {} },
        clientInfo: { name: "u", version: "1" },
      },
    });
    return { session, sent, replies, due };
  }

  test("progress and log notifications sent while answering a request name it; its answer goes to reply()", async () => {
    const { session, sent, replies } = engine();
    session.deliver({
      jsonrpc: "2.0",
      id: "call-1",
      method: "tools/call",
      params: { name: "unit_chatty", arguments: {}, _meta: { progressToken: "p" } },
    });
    await until(() => replies.some((entry) => entry.id === "call-1"), "the answer");
    expect(sent.map(({ message, related }) => [message.method, related])).toEqual([
      ["notifications/progress", "call-1"],
      ["notifications/message", "call-1"],
    ]);
    const answer = replies.find((entry) => entry.id === "call-1")?.reply;
    expect(answer?.ok && answer.result.content).toEqual([{ type: "text", text: "done" }]);
  });

  test("a roots/list asked while answering a request names it, and so does its cancellation when it times out", async () => {
    const { session, sent, replies, due } = engine();
    session.deliver({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "unit_roots", arguments: {} } });
    await until(() => sent.length === 1, "the roots/list request");
    expect(sent[0]).toMatchObject({ message: { method: "roots/list" }, related: 9 });
    expect(due).toHaveLength(1);
    due[0]?.();
    await until(() => replies.length === 1, "the answer");
    expect(sent[1]).toEqual({
      message: {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: sent[0]?.message.id, reason: "MCP error -32001: Request timed out" },
      },
      related: 9,
    });
    expect(ROOTS_TIMEOUT_MS).toBe(10_000);
  });
});
