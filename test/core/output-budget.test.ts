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
