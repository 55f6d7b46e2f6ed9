/**
 * Both eras' HTTP answers of a frozen result (src/mcp/protocol/frozen-json.ts) are framed in one
 * buffer kept per result, so an answer writes the envelope's head and not the whole result
 * (issue 21). The view it returns is overwritten by the next answer: these tests fail if the
 * fast path stops being taken, and if Bun ever stops copying a body view into the Response.
 */
import { describe, expect, test } from "bun:test";
import { constantResult, textResult } from "../../src/core/tool.ts";
import { jsonAnswer } from "../../src/mcp/http/answer.ts";
import { replyBody } from "../../src/mcp/protocol/wire.ts";

const decode = (body: Uint8Array | string) => (typeof body === "string" ? body : new TextDecoder().decode(body));

describe("a frozen result's answer is framed in one buffer kept per result (issue 21)", () => {
  const result = constantResult(textResult("日本銀行 ".repeat(100), { items: ["a", "b"] }));
  const expected = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result });

  test("two answers share the buffer: only the envelope's head is written per answer", () => {
    const one = replyBody(1, { ok: true, result }) as Uint8Array;
    const two = replyBody("two", { ok: true, result }) as Uint8Array;
    expect(two.buffer).toBe(one.buffer);
    expect(decode(two)).toBe(expected("two"));
  });

  test("Bun copies a body view when the Response is built, so the next answer cannot change this one", async () => {
    // If a Bun release stops copying, this fails before any client sees a mixed-up answer.
    const responses = [1, 22, 333, "id-4"].map((id) => jsonAnswer(id, { ok: true, result }, {}));
    const modern = [5, 66].map((id) => new Response(replyBody(id, { ok: true, result })));
    expect(await Promise.all(responses.map((response) => response.text()))).toEqual([1, 22, 333, "id-4"].map(expected));
    expect(await Promise.all(modern.map((response) => response.text()))).toEqual([5, 66].map(expected));
  });

  test("an id too long for the room before the result gets a fresh array, with the same bytes", () => {
    const id = "x".repeat(500);
    const shared = replyBody(1, { ok: true, result }) as Uint8Array;
    const long = replyBody(id, { ok: true, result }) as Uint8Array;
    expect(long.buffer).not.toBe(shared.buffer);
    expect(decode(long)).toBe(expected(id));
    expect(decode(replyBody(7, { ok: true, result }))).toBe(expected(7));
  });
});
