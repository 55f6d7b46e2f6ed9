/**
 * One owner for the requests in flight on a 2025-era HTTP session: its transport. Idle expiry,
 * shutdown and `--stateless` all ask it (`requestsInFlight`, `whenIdle`, `cancelAll`); nothing
 * else keeps a second record in step by wrapping `send`. In-process, through the real transport
 * and the session engine mcpkit runs on it (`http/legacy-endpoint.ts`).
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { silentLogger } from "../../src/core/log.ts";
import { defineTool, textResult } from "../../src/core/tool.ts";
import type { SessionTransport } from "../../src/mcp/http/session-transport.ts";
import { InFlight } from "../../src/mcp/protocol/in-flight.ts";
import { openLegacyHttp } from "../../src/mcp/http/legacy-endpoint.ts";

/** A tool that answers once `open` resolves, or fails when cancelled. */
const gateTool = (open: Promise<void>) =>
  defineTool({
    name: "probe_gate",
    title: "Gate",
    description: "Answers once the test opens the gate, or fails when cancelled.",
    input: v.object({}),
    annotations: { readOnlyHint: true },
    scope: "probe:read",
    handler: async (_args, context) => {
      await Promise.race([
        open,
        new Promise((_, reject) => context.signal.addEventListener("abort", () => reject(new Error("cancelled")))),
      ]);
      return textResult("through");
    },
  });

async function open(gate: Promise<void>) {
  const { transport } = openLegacyHttp(
    {
      toolsets: [{ name: "probe", tools: [gateTool(gate)] }],
      log: silentLogger,
      toolNames: "portable",
      outputBudget: 100_000,
    },
    {},
  );
  return transport;
}

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const call = (transport: SessionTransport, id: number) => {
  const body = { jsonrpc: "2.0", id, method: "tools/call", params: { name: "probe_gate", arguments: {} } };
  const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: JSON.stringify(body) });
  return transport.handleRequest(request, { body, method: body.method, id, isRequest: true });
};

describe("the session transport owns its requests in flight", () => {
  test("a request is in flight from its POST until its answer; whenIdle resolves then", async () => {
    const release = Promise.withResolvers<void>();
    const transport = await open(release.promise);
    const settled: number[] = [];
    transport.onsettled = () => settled.push(transport.requestsInFlight);
    const answer = call(transport, 1);
    expect(transport.requestsInFlight).toBe(1);
    let idle = false;
    const idled = transport.whenIdle().then(() => {
      idle = true;
    });
    await Promise.resolve();
    expect(idle).toBe(false);
    release.resolve();
    const response = await answer;
    await idled;
    expect(((await response.json()) as { result: { content: { text: string }[] } }).result.content[0].text).toBe(
      "through",
    );
    expect(transport.requestsInFlight).toBe(0);
    expect(settled).toEqual([0]);
    await transport.close();
  });

  test("cancelAll answers every request still in flight with the reason, once, and leaves the session idle", async () => {
    const stuck = Promise.withResolvers<void>();
    const transport = await open(stuck.promise);
    const answers = [call(transport, 7), call(transport, 8)];
    expect(transport.requestsInFlight).toBe(2);
    transport.cancelAll("shutting down");
    expect(transport.requestsInFlight).toBe(0);
    await transport.whenIdle();
    for (const [index, pending] of answers.entries()) {
      const message = (await (await pending).json()) as Record<string, unknown>;
      expect(message).toEqual({ jsonrpc: "2.0", id: 7 + index, error: { code: -32603, message: "shutting down" } });
    }
    stuck.resolve();
    await transport.close();
  });
});

describe("InFlight", () => {
  test("whenIdle waits for the last request; removing twice counts once", async () => {
    const inFlight = new InFlight();
    await inFlight.whenIdle();
    const first = { cancel: () => {} };
    const second = { cancel: () => {} };
    inFlight.add(first);
    inFlight.add(second);
    let idle = false;
    const idled = inFlight.whenIdle().then(() => {
      idle = true;
    });
    inFlight.delete(first);
    inFlight.delete(first);
    await Promise.resolve();
    expect(idle).toBe(false);
    expect(inFlight.size).toBe(1);
    inFlight.delete(second);
    await idled;
    expect(idle).toBe(true);
  });
});
