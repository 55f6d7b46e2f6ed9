/**
 * One owner for the requests in flight on a 2025-era HTTP session: its transport's record
 * (`transport.requests`). Idle expiry, shutdown, `--stateless` and the session engine all ask it
 * (`size`, `whenIdle`, `cancelAll`, and the engine `start`, `cancel`); the engine keeps no second
 * record in step. In-process, through the real transport and the session engine mcpkit runs on it
 * (`http/legacy-endpoint.ts`).
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { silentLogger } from "../../src/core/log.ts";
import { defineTool, textResult } from "../../src/core/tool.ts";
import type { SessionTransport } from "../../src/mcp/http/session-transport.ts";
import { InFlight } from "../../src/mcp/protocol/in-flight.ts";
import { openLegacyHttp } from "../../src/mcp/http/legacy-endpoint.ts";

/** A tool that answers once `open` resolves, or fails when cancelled (and says so in `aborted`). */
const gateTool = (open: Promise<void>, aborted: unknown[] = []) =>
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
        new Promise((_, reject) =>
          context.signal.addEventListener("abort", () => {
            aborted.push(context.signal.reason);
            reject(new Error("cancelled"));
          }),
        ),
      ]);
      return textResult("through");
    },
  });

async function open(gate: Promise<void>, aborted?: unknown[]) {
  const { transport, engine } = openLegacyHttp(
    {
      toolsets: [{ name: "probe", tools: [gateTool(gate, aborted)] }],
      log: silentLogger,
      toolNames: "portable",
      outputBudget: 100_000,
    },
    {},
  );
  return Object.assign(transport, { engine });
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
    transport.onsettled = () => settled.push(transport.requests.size);
    const answer = call(transport, 1);
    expect(transport.requests.size).toBe(1);
    let idle = false;
    const idled = transport.requests.whenIdle().then(() => {
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
    expect(transport.requests.size).toBe(0);
    expect(settled).toEqual([0]);
    await transport.close();
  });

  test("cancelAll answers every request still in flight with the reason, once, and leaves the session idle", async () => {
    const stuck = Promise.withResolvers<void>();
    const transport = await open(stuck.promise);
    const answers = [call(transport, 7), call(transport, 8)];
    expect(transport.requests.size).toBe(2);
    transport.requests.cancelAll("shutting down");
    expect(transport.requests.size).toBe(0);
    await transport.requests.whenIdle();
    for (const [index, pending] of answers.entries()) {
      const message = (await (await pending).json()) as Record<string, unknown>;
      expect(message).toEqual({ jsonrpc: "2.0", id: 7 + index, error: { code: -32603, message: "shutting down" } });
    }
    stuck.resolve();
    await transport.close();
  });

  test("the engine keeps no second record: cancelAll stops the work it answered, at once, not when the session closes", async () => {
    const stuck = Promise.withResolvers<void>();
    const aborted: unknown[] = [];
    const transport = await open(stuck.promise, aborted);
    const answers = [call(transport, 1), call(transport, 2)];
    await Promise.resolve();
    expect([transport.requests.size, transport.engine.inFlight]).toEqual([2, 2]);
    transport.requests.cancelAll("shutting down");
    expect([transport.requests.size, transport.engine.inFlight]).toEqual([0, 0]);
    await Promise.all(answers);
    expect(aborted).toHaveLength(2);
    stuck.resolve();
    await transport.close();
  });

  test("notifications/cancelled ends the answer without a response and stops the work, through the one record", async () => {
    const stuck = Promise.withResolvers<void>();
    const aborted: unknown[] = [];
    const transport = await open(stuck.promise, aborted);
    const pending = call(transport, 5);
    const body = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "not needed" } };
    const notice = new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: JSON.stringify(body) });
    const accepted = await transport.handleRequest(notice, {
      body,
      method: body.method,
      id: undefined,
      isRequest: false,
    });
    expect(accepted.status).toBe(202);
    expect([transport.requests.size, transport.engine.inFlight, aborted]).toEqual([0, 0, ["not needed"]]);
    const response = await pending;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).not.toContain('"id":5');
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
