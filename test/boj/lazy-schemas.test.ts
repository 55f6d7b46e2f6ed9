/**
 * The boj tools' valibot schemas are built at their first use, not when the toolset is built: a
 * server that lists its tools from a release binary's frozen JSON Schemas (core/json-schema.ts)
 * never loads boj/schemas.ts or boj/search/schema.ts until a tool is called. Checked in a process
 * of its own (test/boj/fixtures/list-with-frozen-table.ts), whose module cache this test does not share.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { frozenJsonSchemas, shippedToolsets } from "../../scripts/release/frozen-schemas.ts";
import { REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-lazy-schemas-");
const built = [shippedToolsets(), shippedToolsets()];
afterAll(async () => {
  for (const toolset of built.flat()) await toolset.close?.();
});

test("listing the boj tools from the frozen table loads none of their schemas; the first call does", async () => {
  const table = join(scratch(), "frozen-schemas.json");
  writeFileSync(table, JSON.stringify(frozenJsonSchemas(built[0], built[1])));
  const result = await runProcess(
    [process.execPath, join(REPO_ROOT, "test/boj/fixtures/list-with-frozen-table.ts"), table],
    { env: testEnv() },
  );
  expect(result.code, result.stderr).toBe(0);
  const seen = JSON.parse(result.stdout) as { listed: number; afterList: string[]; afterCall: string[] };
  expect(seen.listed).toBeGreaterThan(5);
  expect(seen.afterList).toEqual([]);
  expect(seen.afterCall.length).toBeGreaterThan(0);
});
