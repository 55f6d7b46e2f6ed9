/**
 * On an HTTP session a request id is free again once its request has left the transport (answered,
 * cancelled, or its client gone), and a client may reuse it. Nothing of the earlier request may
 * then reach the later one's answer: a client that goes away mid-stream (it closes the POST's SSE
 * body) has the call's work aborted, and a notification a tool sends after its answer was handed
 * over is dropped. The engine and the transport are joined as a session joins them
 * (`http/legacy-endpoint.ts`), and the HTTP requests are built in-process: the disconnect is the cancel of
 * the answer's body.
 */
import { expect, test } from "bun:test";
import * as v from "valibot";
import { createLogger } from "../../src/core/log.ts";
import { type ToolContext, defineTool, textResult } from "../../src/core/tool.ts";
import { readJsonRpcBody } from "../../src/mcp/http/jsonrpc-body.ts";
import { openLegacyHttp } from "../../src/mcp/http/legacy-endpoint.ts";
import { MCP_HEADERS, PROTOCOL_VERSION, messagesOf } from "./support.ts";

type Json = Record<string, any>;

/** A session with `unit_hold` (progress, then waits to be released; answers its tag) and `unit_late` (answers at once, keeps its context). */
async function openSession() {
  const held = new Map<string, { release: () => void; signal: AbortSignal }>();
  const late: ToolContext[] = [];
  const tools = [
    defineTool({
      name: "unit_hold",
      title: "Hold",
      description: "Reports progress (so its answer is a stream), then waits to be released; answers its tag.",
      input: v.object({ tag: v.string() }),
      annotations: { readOnlyHint: true },
      scope: "unit:read",
      handler: async ({ tag }, context) => {
        context.reportProgress({ progress: 1, total: 2 });
        await new Promise<void>((release) => held.set(tag, { release, signal: context.signal }));
        context.reportProgress({ progress: 2, total: 2, message: `from ${tag}` });
        return textResult(tag);
      },
    }),
    defineTool({
      name: "unit_late",
      title: "Late",
      description: "Answers at once; the test reports progress through its context afterwards.",
      input: v.object({}),
      annotations: { readOnlyHint: true },
      scope: "unit:read",
      handler: async (_args, context) => {
        late.push(context);
        return textResult("late");
      },
    }),
  ];
  const options = {
    toolsets: [{ name: "unit", tools }],
    log: createLogger("off"),
    toolNames: "portable" as const,
    outputBudget: 100_000,
  };
  const { transport } = openLegacyHttp(options, { sessionIdGenerator: () => "s1" });
  const post = async (body: Json): Promise<Response> => {
    const request = () =>
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION, "mcp-session-id": "s1" },
        body: JSON.stringify(body),
      });
    const read = await readJsonRpcBody(request(), 1_000_000);
    if (!read.ok) throw new Error("the test's body was refused");
    return transport.handleRequest(request(), read.message);
  };
  await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "u", version: "1" } },
  });
  return { transport, post, held, late };
}

/** A tools/call with id 7 and a progress token. */
const call = (name: string, args: Record<string, unknown>, token: string) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name, arguments: args, _meta: { progressToken: token } },
});

/** The progress tokens and the id-7 answer's text in a streamed answer. */
async function streamed(response: Response): Promise<{ tokens: unknown[]; text: unknown }> {
  const messages = messagesOf(await response.text(), "text/event-stream") as Json[];
  return {
    tokens: messages.filter((m) => m.method === "notifications/progress").map((m) => m.params.progressToken),
    text: messages.find((m) => m.id === 7)?.result.content[0].text,
  };
}

test("a client gone mid-stream aborts the call's work, and a later request reusing its id gets its own answer", async () => {
  const { transport, post, held } = await openSession();
  try {
    const first = await post(call("unit_hold", { tag: "first" }, "tok-first"));
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    expect(held.has("first")).toBe(true);
    // The client disconnects: its end of the stream is cancelled.
    await (first.body as ReadableStream<Uint8Array>).cancel();
    expect(held.get("first")?.signal.aborted).toBe(true);

    // The id is free on the transport: the client reuses it.
    const second = await post(call("unit_hold", { tag: "second" }, "tok-second"));
    expect(held.has("second")).toBe(true);
    held.get("first")?.release();
    held.get("second")?.release();
    expect(await streamed(second)).toEqual({ tokens: ["tok-second", "tok-second"], text: "second" });
  } finally {
    await transport.close();
  }
});

test("progress a tool reports after its answer was sent is dropped, not written into a later request reusing the id", async () => {
  const { transport, post, held, late } = await openSession();
  try {
    const first = await post(call("unit_late", {}, "tok-first"));
    expect(((await first.json()) as Json).result.content[0].text).toBe("late");
    const second = await post(call("unit_hold", { tag: "second" }, "tok-second"));
    expect(held.has("second")).toBe(true);
    late[0]?.reportProgress({ progress: 9, message: "after the answer" });
    held.get("second")?.release();
    expect(await streamed(second)).toEqual({ tokens: ["tok-second", "tok-second"], text: "second" });
  } finally {
    await transport.close();
  }
});
