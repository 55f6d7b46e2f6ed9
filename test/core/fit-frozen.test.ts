/**
 * Issue 21: a constant result (`constantResult`, e.g. boj_list_databases' catalog) is fitted to
 * the output budget once, not measured again on every call (that was half of a cheap call's time
 * in the dispatcher, `bun scripts/bench/dispatch.ts`). These tests fail if the fast path stops
 * being taken, or if it answers for a budget or tool name it was not fitted for.
 */
import { describe, expect, test } from "bun:test";
import { fitResult } from "../../src/core/output-budget.ts";
import { type ToolResult, constantResult } from "../../src/core/tool.ts";

/** A result whose text counts how often it is read (a getter survives freezing). */
function countingResult(text: string): { result: ToolResult; reads: () => number } {
  let reads = 0;
  const block = {
    type: "text" as const,
    get text() {
      reads++;
      return text;
    },
  };
  return { result: { content: [block] }, reads: () => reads };
}

const LINES = Array.from({ length: 200 }, (_, n) => `line ${n} ${"x".repeat(40)}`).join("\n");

describe("fitResult on a frozen result", () => {
  test("measures it once per budget: the second call reads nothing and answers the same object", () => {
    const { result, reads } = countingResult(LINES);
    const frozen = constantResult(result);
    const first = fitResult(frozen, 100_000, "t");
    const readsAfterFirst = reads();
    expect(readsAfterFirst).toBeGreaterThan(0);
    expect(fitResult(frozen, 100_000, "t")).toBe(first);
    expect(reads()).toBe(readsAfterFirst);
    expect(first).toBe(frozen); // it fits: unchanged
  });

  test("another budget or tool name is fitted again, and a cut of a constant is frozen and stays cut", () => {
    const { result, reads } = countingResult(LINES);
    const frozen = constantResult(result);
    expect(fitResult(frozen, 100_000, "t")).toBe(frozen);
    const before = reads();
    const cut = fitResult(frozen, 2_000, "t");
    expect(reads()).toBeGreaterThan(before);
    expect(cut).not.toBe(frozen);
    expect(Object.isFrozen(cut)).toBe(true);
    const text = (cut.content[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2_000);
    expect(text).toContain("[t: output cut at");
    expect(fitResult(frozen, 2_000, "t")).toBe(cut);
    const renamed = fitResult(frozen, 2_000, "u");
    expect((renamed.content[0] as { text: string }).text).toContain("[u: output cut at");
  });

  test("a result that is not frozen is measured on every call (a handler may build it anew each time)", () => {
    const { result, reads } = countingResult(LINES);
    fitResult(result, 100_000, "t");
    const once = reads();
    fitResult(result, 100_000, "t");
    expect(reads()).toBe(2 * once);
  });
});
