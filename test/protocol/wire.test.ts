/**
 * A reply that cannot be serialized still answers its request (src/mcp/protocol/wire.ts): a result or
 * an error whose data holds a BigInt or a cycle becomes -32603 saying so, never a throw that would
 * leave the request unanswered and counted in flight.
 */
import { describe, expect, test } from "bun:test";
import { replyJson } from "../../src/mcp/protocol/wire.ts";

const cycle: Record<string, unknown> = {};
cycle.self = cycle;

describe("replyJson", () => {
  test("a result that cannot be serialized answers -32603 naming why", () => {
    const reply = JSON.parse(replyJson(4, { ok: true, result: { count: 1n } }));
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32603 } });
    expect(reply.error.message).toContain("could not be serialized");
  });

  test("an error whose data cannot be serialized answers -32603 too", () => {
    const json = replyJson("a", { ok: false, error: { code: -32602, message: "bad", data: cycle }, status: 200 });
    const reply = JSON.parse(json);
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: "a", error: { code: -32603 } });
    expect(reply.error.message).toContain("could not be serialized");
  });

  test("a plain error is passed through", () => {
    const reply = JSON.parse(replyJson(1, { ok: false, error: { code: -32602, message: "bad" }, status: 200 }));
    expect(reply).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } });
  });
});
