/**
 * The constant-result fast path (src/mcp/protocol/frozen-json.ts) is taken by both eras' HTTP
 * answers: a frozen result is serialized once however many times it is answered, and the bytes
 * are those the slow path would send. If a transport stops using it, the count here goes up.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { constantResult, textResult } from "../../src/core/tool.ts";
import { jsonAnswer } from "../../src/mcp/http/answer.ts";
import { replyBody } from "../../src/mcp/protocol/wire.ts";

const original = JSON.stringify;
afterEach(() => {
  JSON.stringify = original;
});

/** Counts how often JSON.stringify is handed `target` itself. */
function countSerializations(target: object): () => number {
  let count = 0;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    if (value === target) count++;
    return (original as (...args: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  return () => count;
}

const decode = (body: Uint8Array | string) => (typeof body === "string" ? body : new TextDecoder().decode(body));

describe("a frozen result is serialized once", () => {
  test("2026-07-28 era (protocol/wire.ts replyBody)", () => {
    const result = constantResult(textResult("日本銀行 ".repeat(100), { items: ["a", "b"] }));
    const counted = countSerializations(result);
    const bodies = [1, 2, 3].map((id) => decode(replyBody(id, { ok: true, result })));
    expect(counted()).toBe(1);
    JSON.stringify = original;
    expect(bodies[2]).toBe(JSON.stringify({ jsonrpc: "2.0", id: 3, result }));
  });

  test("2025-11-25 era (answer.ts jsonAnswer)", async () => {
    const result = constantResult(textResult("日本銀行 ".repeat(100), { items: ["a", "b"] }));
    const counted = countSerializations(result);
    const responses = [1, 2, 3].map((id) => jsonAnswer(id, { ok: true, result }, {}));
    expect(counted()).toBe(1);
    JSON.stringify = original;
    expect(await responses[2]?.text()).toBe(JSON.stringify({ jsonrpc: "2.0", id: 3, result }));
  });

  test("a result that is not frozen is serialized every time (nothing stale is ever sent)", () => {
    const result = textResult("changing", { n: 1 });
    const counted = countSerializations(result);
    for (const id of [1, 2]) decode(replyBody(id, { ok: true, result }));
    expect(counted()).toBe(2);
  });
});
