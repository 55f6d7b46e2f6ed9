/**
 * Issue 19: one budget for both halves of every result. Claude Code and VS Code show a model
 * JSON.stringify(structuredContent) instead of the text, so --max-output-bytes must bound both.
 * For budgets from 1,000 to 200,000 bytes, every tool of every toolset, called with arguments
 * that produce its largest answers on the fake upstreams, answers within the budget in both halves.
 * (The exactness of each continuation is tested with each toolset: fs search, boj output.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";

/**
 * The edges and the default, plus budgets drawn at random from the whole range: each run draws new
 * ones (the seed is in the test name, so a failure can be replayed with MCPKIT_BUDGET_SEED).
 */
const SEED = Number(process.env.MCPKIT_BUDGET_SEED ?? Date.now() % 1_000_000);
const BUDGETS = [
  1_000,
  2_000,
  100_000,
  200_000,
  ...fc.sample(fc.integer({ min: 1_000, max: 200_000 }), { numRuns: 4, seed: SEED }),
];
const boj = startFakeBoj();
let oj: FakeCraboj;
let root: string;

/** Each tool with the arguments that make its answer largest here. */
const CALLS: [string, Record<string, unknown>][] = [
  ["fs_search_by_time", { timeField: "modified", limit: 1000, includeDirectories: true }],
  ["boj_get_data_layer", { db: "MD10", frequency: "Q", layers: ["*"], lang: "en" }],
  ["boj_get_data_code", { db: "FM08", codes: ["FXERD01", "FXERD02", "FXERD03"], include_raw: true }],
  [
    "boj_get_data_code",
    { db: "PR02", codes: Array.from({ length: 10 }, (_, n) => `PRCS20_52${String(n).padStart(8, "0")}`) },
  ],
  ["boj_get_metadata", { db: "LA01", include_raw: true }],
  ["boj_list_databases", {}],
  ["boj_get_parameter_catalog", {}],
  ["boj_get_message_catalog", {}],
  ["get_problem", { source: "leetcode", id: "long" }],
  ["get_daily_challenge", {}],
  ["find_similar_problems", { source: "leetcode", id: "3", limit: 50 }],
  ["resolve_problem", { query: "two sum" }],
  ["get_platform_status", {}],
];

beforeAll(() => {
  oj = startFakeCraboj();
  const statement = Array.from({ length: 4_000 }, (_, i) => `<p>line ${i} ${"x".repeat(40)}</p>`).join("\n");
  oj.override("GET", "/api/v1/problems/leetcode/long", () =>
    Response.json({
      id: "long",
      source: "leetcode",
      slug: "long",
      title: "Long",
      link: "https://leetcode.com/problems/long/",
      content: statement,
    }),
  );
  root = mkdtempSync(join(tmpdir(), "mcpkit-budget-"));
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(root, `directory-${d}`));
    for (let f = 0; f < 100; f++)
      writeFileSync(join(root, `directory-${d}`, `a-file-with-a-longish-name-${f}.txt`), "x");
  }
});
afterAll(async () => {
  await boj.stop();
  await oj?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("every result of every tool fits the budget in both halves", () => {
  for (const budget of BUDGETS) {
    test(`--max-output-bytes ${budget} (seed ${SEED})`, async () => {
      const server: RunningServer = await startStdioServer({
        args: [
          ...["--toolsets", "boj,oj,fs", "--root", root, "--boj-base-url", boj.url, "--boj-min-interval-ms", "0"],
          ...["--oj-base-url", oj.url, "--max-output-bytes", String(budget)],
        ],
      });
      const largest: string[] = [];
      try {
        await server.client.listTools(); // the SDK client then validates structuredContent against each outputSchema
        for (const [name, args] of CALLS) {
          const result = (await server.client.callTool({ name, arguments: args })) as {
            content: { type: string; text?: string }[];
            structuredContent?: unknown;
            isError?: boolean;
          };
          const text = result.content.reduce((sum, block) => sum + Buffer.byteLength(block.text ?? ""), 0);
          const json =
            result.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.structuredContent));
          expect({ name, budget, text: text <= budget, json: json <= budget }).toEqual({
            name,
            budget,
            text: true,
            json: true,
          });
          expect(text).toBeGreaterThan(0);
          if (budget === 100_000) largest.push(`${name}: text ${text} B, JSON ${json} B`);
        }
      } finally {
        await server.close();
      }
      if (largest.length > 0) console.error(`at the default budget:\n  ${largest.join("\n  ")}`);
    }, 60_000);
  }
});

/**
 * The last resort's cuts are said, in the half each client shows: a list it shortened is named in
 * structuredContent's `truncated` (which list, how many items of how many, what to do next), and
 * neither note promises an argument the tool does not take or a structuredContent that was cut.
 */
/** A craboj status answer listing `count` platforms. */
function platforms(count: number): Response {
  return Response.json({
    version: "9.9.9",
    platforms: Array.from({ length: count }, (_, i) => ({
      source: `platform-${i}`,
      total: 1000 + i,
      missing_content: i,
      not_embedded: i,
    })),
  });
}

describe("a list the last resort shortens is recorded in structuredContent, and the notes are true", () => {
  const BUDGET = 2_000;
  type Cut = {
    text: string;
    structured: Record<string, any>;
  };
  let server: RunningServer;
  beforeAll(async () => {
    oj.override("GET", "/status", () => platforms(60));
    oj.override("GET", "/api/v1/similar/leetcode/3", () =>
      Response.json({
        rewritten_query: null,
        results: Array.from({ length: 50 }, (_, i) => ({
          source: "codeforces",
          id: `${i + 1}A`,
          title: `Problem ${i + 1}`,
          difficulty: null,
          link: `https://codeforces.com/problemset/problem/${i + 1}/A`,
          similarity: 1 - i / 100,
        })),
      }),
    );
    server = await startStdioServer({
      args: [
        ...["--toolsets", "boj,oj", "--boj-base-url", boj.url, "--boj-min-interval-ms", "0"],
        ...["--oj-base-url", oj.url, "--oj-token", "a-test-token-1234", "--max-output-bytes", String(BUDGET)],
      ],
    });
    await server.client.listTools(); // the SDK client validates each structuredContent against its outputSchema
  });
  afterAll(async () => {
    await server?.close();
  });
  async function call(name: string, args: Record<string, unknown>): Promise<Cut> {
    const result = (await server.client.callTool({ name, arguments: args })) as {
      content: { type: string; text: string }[];
      structuredContent: Record<string, any>;
      isError?: boolean;
    };
    expect(result.isError).toBeFalsy();
    const text = result.content.map((block) => block.text).join("");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(BUDGET);
    expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).toBeLessThanOrEqual(BUDGET);
    return { text, structured: result.structuredContent };
  }

  test("boj_list_databases (no arguments): databases keeps N of 50, both notes say only a larger budget shows the rest", async () => {
    const { text, structured } = await call("boj_list_databases", {});
    expect(structured.count).toBe(50);
    expect(structured.truncated).toMatchObject({
      list: "databases",
      shown_items: structured.databases.length,
      total_items: 50,
    });
    expect(structured.databases.length).toBeLessThan(50);
    expect(structured.truncated.continuation).toContain(
      `databases keeps its first ${structured.databases.length} of 50 items`,
    );
    for (const note of [structured.truncated.continuation, text]) {
      expect(note).toContain("no arguments to narrow it: ask the user to raise --max-output-bytes");
      expect(note).not.toContain("a smaller limit");
    }
    expect(text).not.toContain("holds the complete result");
    expect(text).toContain("structuredContent is shortened too");
  });

  test("find_similar_problems with limit 50: results keeps N of 50 and the note names the tool's own arguments", async () => {
    const { text, structured } = await call("find_similar_problems", { source: "leetcode", id: "3", limit: 50 });
    expect(structured.results.length).toBeLessThan(50);
    expect(structured.results.map((r: { rank: number }) => r.rank)).toEqual(
      Array.from({ length: structured.results.length }, (_, i) => i + 1),
    );
    expect(structured.truncated).toMatchObject({
      list: "results",
      shown_items: structured.results.length,
      total_items: 50,
    });
    expect(structured.truncated.continuation).toContain(
      "narrow the request (its arguments: source, id, query, limit, threshold, source_filter) or ask the user to raise --max-output-bytes",
    );
    expect(text).not.toContain("holds the complete result");
  });

  test("get_platform_status (no arguments): platforms keeps N of 60, and says so", async () => {
    const { text, structured } = await call("get_platform_status", {});
    expect(structured.version).toBe("9.9.9");
    expect(structured.truncated).toMatchObject({
      list: "platforms",
      shown_items: structured.platforms.length,
      total_items: 60,
    });
    expect(structured.platforms.length).toBeLessThan(60);
    expect(structured.truncated.continuation).toContain("no arguments to narrow it");
    expect(text).toContain("no arguments to narrow it");
    expect(text).not.toContain("holds the complete result");
  });

  test("a list that is most of the result keeps about as many items as fit, not a third fewer", async () => {
    // Cutting the excess share plus 5% of the items, at most 90% a round, left 86 KB of a 100 KB
    // budget for a long list: the items kept now come from the room the rest leaves.
    oj.override("GET", "/status", () => platforms(3_000));
    const roomy = await startStdioServer({
      args: ["--toolsets", "oj", "--oj-base-url", oj.url, "--oj-token", "a-test-token-1234"],
    });
    try {
      await roomy.client.listTools();
      const result = (await roomy.client.callTool({ name: "get_platform_status", arguments: {} })) as unknown as {
        structuredContent: { platforms: unknown[]; truncated: { shown_items: number; total_items: number } };
      };
      const json = Buffer.byteLength(JSON.stringify(result.structuredContent));
      expect(json).toBeLessThanOrEqual(100_000);
      expect(json).toBeGreaterThan(95_000);
      expect(result.structuredContent.truncated).toMatchObject({
        shown_items: result.structuredContent.platforms.length,
        total_items: 3_000,
      });
    } finally {
      oj.override("GET", "/status", () => platforms(60));
      await roomy.close();
    }
  });

  test("every list cut is named with its counts, not only the first (boj_get_parameter_catalog at 1,000 bytes)", async () => {
    // Only `parameters` was named ("5 more lists shortened too"): a model seeing format_codes
    // ["json"] and language_codes ["jp"] took them for all the formats and languages there are.
    const tiny = await startStdioServer({
      args: [
        ...["--toolsets", "boj", "--boj-base-url", boj.url, "--boj-min-interval-ms", "0"],
        ...["--max-output-bytes", "1000"],
      ],
    });
    try {
      await tiny.client.listTools(); // the SDK client validates structuredContent against the outputSchema
      const result = (await tiny.client.callTool({
        name: "boj_get_parameter_catalog",
        arguments: { endpoint: "get_metadata" },
      })) as unknown as { structuredContent: Record<string, any> };
      const structured = result.structuredContent;
      expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(1_000);
      expect(structured.truncated).toMatchObject({ list: "parameters", shown_items: 1, total_items: 3 });
      expect(structured.truncated.lists).toEqual(
        expect.arrayContaining([
          `format_codes: ${structured.format_codes.length} of 2`,
          `language_codes: ${structured.language_codes.length} of 2`,
        ]),
      );
      expect(structured.truncated.lists).toHaveLength(5); // the others: parameters is named by list
    } finally {
      await tiny.close();
    }
  });
});
