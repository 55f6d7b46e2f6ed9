/**
 * Issue 39: a result whose structuredContent is well within the output budget is not serialized
 * just to be measured (the answer serializes it anyway); an upper bound of its JSON size settles
 * it, and a tool that declares one for all its results (`structuredBytesAtMost`, the BOJ
 * catalogues) is not measured at all. These tests fail if those fast paths stop being taken, if a
 * bound ever falls below the real size, or if a result near or over the budget is no longer
 * measured and cut as before.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { invokeTool } from "../../src/core/invoke.ts";
import { fitResult, jsonBound } from "../../src/core/output-budget.ts";
import { byteLength } from "../../src/core/text.ts";
import type { ToolDefinition, ToolResult } from "../../src/core/tool.ts";
import {
  ENDPOINTS,
  MESSAGE_STATUSES,
  messageCatalog,
  messageCatalogBytes,
  parameterCatalog,
  parameterCatalogBytes,
} from "../../src/toolsets/boj/catalog.ts";
import { bojTools } from "../../src/toolsets/boj/tools/index.ts";
import { quietToolContext } from "../support/tool-context.ts";

const stringify = JSON.stringify;
let stringified = 0;
function countStringify(): void {
  stringified = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    stringified++;
    return stringify(...args);
  }) as typeof JSON.stringify;
}
afterEach(() => {
  JSON.stringify = stringify;
});

const utf8 = (value: unknown) => Buffer.byteLength(stringify(value), "utf8");

function catalog(rows: number): Record<string, unknown> {
  return {
    scope: "all",
    notes: ["Kennzahl — 日本銀行", 'quoted "and" \\ escaped', "tab\tnew\nline\u0001"],
    rows: Array.from({ length: rows }, (_, n) => ({ code: `C${n}`, value: n / 7, on: n % 2 === 0, none: null })),
  };
}

describe("fitResult without measuring", () => {
  test("a fresh result well within the budget is returned as it is, without serializing it", () => {
    const result: ToolResult = { content: [{ type: "text", text: "ok" }], structuredContent: catalog(50) };
    countStringify();
    expect(fitResult(result, 100_000, "t")).toBe(result);
    expect(stringified).toBe(0);
  });

  test("near the budget it is measured: kept when it fits, cut when it does not", () => {
    const structured = catalog(400);
    const size = utf8(structured);
    const result: ToolResult = { content: [{ type: "text", text: "ok" }], structuredContent: structured };
    expect(jsonBound(structured, Number.POSITIVE_INFINITY)).toBeGreaterThan(size);
    countStringify();
    expect(fitResult(result, size, "t")).toBe(result);
    expect(stringified).toBeGreaterThan(0);
    JSON.stringify = stringify;
    const cut = fitResult(result, size - 100, "t");
    expect(cut).not.toBe(result);
    expect(utf8(cut.structuredContent)).toBeLessThanOrEqual(size - 100);
  });

  test("text near the budget is measured too: 3 bytes a UTF-16 unit is only a bound", () => {
    const text = "x".repeat(900);
    const result: ToolResult = { content: [{ type: "text", text }] };
    expect(fitResult(result, 1_000, "t")).toBe(result);
    expect(fitResult({ content: [{ type: "text", text: "é".repeat(900) }] }, 1_000, "t").content[0]).not.toEqual({
      type: "text",
      text: "é".repeat(900),
    });
  });
});

describe("jsonBound", () => {
  test("is never below the UTF-8 size of the JSON", () => {
    const samples: unknown[] = [
      "",
      "\u0000\u001f\u007f",
      '"\\',
      "\ud800 lone \udfff",
      "😀 пример 日本",
      -2.2250738585072014e-308,
      Number.MAX_VALUE,
      Number.NaN,
      [undefined, () => 1, Symbol("s"), null, true, false],
      { a: undefined, b: () => 1, 'k\u0001"é': "v" },
      Object.assign(Object.create(null), { x: [1, [2, [3, { y: "z" }]]] }),
      catalog(30),
      [[], {}, [[]], [{}]],
    ];
    for (const sample of samples) {
      const exact = stringify(sample) === undefined ? 0 : utf8(sample);
      expect(jsonBound(sample, Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(exact);
    }
  });

  test("gives up (Infinity) on what is not plain data, and once past its limit", () => {
    class Point {
      x = 1;
    }
    for (const odd of [new Date(0), { toJSON: () => "x".repeat(1000) }, new Point(), [1n], Object(5), new Map()]) {
      expect(jsonBound(odd, Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    }
    let deep: unknown = [];
    for (let n = 0; n < 100; n++) deep = [deep];
    expect(jsonBound(deep, Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonBound(catalog(100), 50)).toBe(Number.POSITIVE_INFINITY);
  });
});

/** structuredContent that counts every read of its members (a walk or a serialization reads them). */
function watched(): { structured: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const structured = new Proxy(catalog(50), {
    get(target, key, receiver) {
      reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { structured, reads: () => reads };
}

describe("a tool's declared bound of its structuredContent (structuredBytesAtMost)", () => {
  test("within the budget, the result is neither walked nor serialized", () => {
    const { structured, reads } = watched();
    const result: ToolResult = { content: [{ type: "text", text: "ok" }], structuredContent: structured };
    countStringify();
    expect(fitResult(result, 100_000, "t", undefined, 6_000)).toBe(result);
    expect(reads()).toBe(0);
    expect(stringified).toBe(0);
  });

  test("over the budget, the result is measured as before (and cut when it does not fit)", () => {
    const { structured, reads } = watched();
    const result: ToolResult = { content: [{ type: "text", text: "ok" }], structuredContent: structured };
    expect(fitResult(result, 100_000, "t", undefined, 200_000)).toBe(result);
    expect(reads()).toBeGreaterThan(0);
    const size = utf8(catalog(50));
    const cut = fitResult(
      { content: [{ type: "text", text: "ok" }], structuredContent: catalog(50) },
      size - 200,
      "t",
      undefined,
      size,
    );
    expect(utf8(cut.structuredContent)).toBeLessThanOrEqual(size - 200);
  });

  test("invokeTool hands the tool's bound to the output budget", async () => {
    const { structured, reads } = watched();
    const tool: ToolDefinition = {
      name: "bounded",
      title: "Bounded",
      description: "a tool with a declared bound",
      input: v.strictObject({}),
      annotations: {},
      scope: "t:read",
      structuredBytesAtMost: 6_000,
      handler: async () => ({ content: [{ type: "text", text: "ok" }], structuredContent: structured }),
    };
    const result = await invokeTool({ name: "t", tools: [tool] }, tool, {}, quietToolContext(tool.name));
    expect(result.structuredContent).toBe(structured);
    expect(reads()).toBe(0);
  });

  test("the BOJ catalogue tools declare the largest of their results exactly", () => {
    const parameterSizes = (["all", ...ENDPOINTS] as const).map((e) => byteLength(stringify(parameterCatalog(e))));
    const messageSizes = [undefined, ...MESSAGE_STATUSES].map((s) => byteLength(stringify(messageCatalog(s))));
    expect(parameterCatalogBytes.get()).toBe(Math.max(...parameterSizes));
    expect(messageCatalogBytes.get()).toBe(Math.max(...messageSizes));
    const tools = bojTools({
      get answers(): never {
        throw new Error("no upstream");
      },
      get search(): never {
        throw new Error("no upstream");
      },
    });
    const declared = (name: string) => tools.find((tool) => tool.name === name)?.structuredBytesAtMost;
    expect(declared("boj_get_parameter_catalog")).toBe(parameterCatalogBytes.get());
    expect(declared("boj_get_message_catalog")).toBe(messageCatalogBytes.get());
  });
});
