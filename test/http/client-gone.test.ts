/**
 * A client that goes away in the middle of a streamed answer (it closes the POST's SSE body):
 * the session engine is told, so the tool's work is aborted and nothing it still sends (progress,
 * its answer) can land on a later request that reuses the freed id on the same session.
 * The engine and the transport are joined as a session joins them (`legacy/http.ts`), and the
 * HTTP requests are built in-process: the disconnect is the cancel of the answer's body.
 */
import { expect, test } from "bun:test";
import * as v from "valibot";
import { createLogger } from "../../src/core/log.ts";
import { defineTool, textResult } from "../../src/core/tool.ts";
import { readJsonRpcBody } from "../../src/mcp/http/jsonrpc-body.ts";
import { openLegacyHttp } from "../../src/mcp/legacy/http.ts";
import { MCP_HEADERS, PROTOCOL_VERSION, messagesOf } from "./support.ts";

type Json = Record<string, any>;

test("a client gone mid-stream aborts the call's work, and a later request reusing its id gets its own answer", async () => {
  const held = new Map<string, { release: () => void; signal: AbortSignal }>();
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
  const call = (tag: string, token: string) => ({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "unit_hold", arguments: { tag }, _meta: { progressToken: token } },
  });
  try {
    await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "u", version: "1" } },
    });

    const first = await post(call("first", "tok-first"));
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    expect(held.has("first")).toBe(true);
    // The client disconnects: its end of the stream is cancelled.
    await (first.body as ReadableStream<Uint8Array>).cancel();
    expect(held.get("first")?.signal.aborted).toBe(true);

    // The id is free on the transport: the client reuses it.
    const second = await post(call("second", "tok-second"));
    expect(held.has("second")).toBe(true);
    held.get("first")?.release();
    held.get("second")?.release();
    const messages = messagesOf(await second.text(), "text/event-stream") as Json[];
    const tokens = messages.filter((m) => m.method === "notifications/progress").map((m) => m.params.progressToken);
    expect(tokens).toEqual(["tok-second", "tok-second"]);
    const answer = messages.find((m) => m.id === 7);
    expect(answer?.result.content).toEqual([{ type: "text", text: "second" }]);
  } finally {
    await transport.close();
  }
});
