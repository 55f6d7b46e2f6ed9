/**
 * The requestState codec (src/mcp/modern/request-state.ts) on its own: every binding it promises
 * is checked, with an injected clock. The stdio tests cover a tampered and a foreign state.
 */
import { describe, expect, test } from "bun:test";
import { createRequestStateCodec } from "../../src/mcp/modern/request-state.ts";

const KEY = new Uint8Array(32).fill(7);
const call = {
  method: "tools/call",
  params: { name: "fs_search_by_time", arguments: { days: 3 } },
  principal: "a",
};

describe("requestState bindings", () => {
  test("a state verifies for the call it was issued to, and returns the input keys it answers", () => {
    const codec = createRequestStateCodec(KEY, () => 0);
    const state = codec.issue(call, ["roots"]);
    expect(codec.verify(state, call)).toEqual(["roots"]);
    // What changes between attempts is not bound: the envelope and the answers.
    expect(codec.verify(state, { ...call, params: { ...call.params, _meta: { x: 1 }, inputResponses: {} } })).toEqual([
      "roots",
    ]);
  });

  test("expired after 10 minutes", () => {
    let now = 0;
    const codec = createRequestStateCodec(KEY, () => now);
    const state = codec.issue(call, ["roots"]);
    now = 10 * 60_000 - 1;
    expect(codec.verify(state, call)).toEqual(["roots"]);
    now = 10 * 60_000 + 1;
    expect(codec.verify(state, call)).toBe("it has expired");
  });

  test("another caller, another method or other arguments are refused", () => {
    const codec = createRequestStateCodec(KEY, () => 0);
    const state = codec.issue(call, ["roots"]);
    expect(codec.verify(state, { ...call, principal: "b" })).toBe("it was issued to another caller");
    expect(codec.verify(state, { ...call, principal: undefined })).toBe("it was issued to another caller");
    expect(codec.verify(state, { ...call, method: "prompts/get" })).toContain("issued for another request");
    expect(codec.verify(state, { ...call, params: { ...call.params, arguments: { days: 4 } } })).toContain(
      "issued for another request",
    );
  });

  test("a changed byte or another key fails the signature; a malformed state is not ours", () => {
    const codec = createRequestStateCodec(KEY, () => 0);
    const state = codec.issue(call, ["roots"]);
    const [body, mac] = state.split(".");
    const flipped = `${body?.slice(0, -2)}${body?.at(-2) === "A" ? "B" : "A"}${body?.at(-1)}.${mac}`;
    expect(codec.verify(flipped, call)).toContain("signature does not verify");
    expect(createRequestStateCodec(new Uint8Array(32).fill(8), () => 0).verify(state, call)).toContain(
      "signature does not verify",
    );
    expect(codec.verify("not-a-state", call)).toBe("it is not a state this server issued");
    expect(codec.verify(`${state}.extra`, call)).toBe("it is not a state this server issued");
  });
});
