/**
 * Benchmark: boj_search_series against a bare bun:sqlite FTS5 query (issue 36). The fake BOJ
 * serves 50 databases of at least 150,000 series together; a real mcpkit process (stdio, SDK
 * client) builds its catalogue from them (the build time and the server's peak RSS are printed:
 * target ≤ 150 MB), then answers warm searches, timed round trip included. The bare contender
 * opens the same catalogue file in this process and runs the plainest FTS5 query for the same
 * words over the same names: `MATCH` every word of three characters or more, `ORDER BY rank
 * LIMIT 10`. Rounds interleave the two; medians and their ratio are printed (target ≤ 3×).
 *
 *   bun scripts/bench/boj-search.ts [rounds] [series-per-generated-database]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { characters, queryWords } from "../../src/toolsets/boj/search/normalize.ts";
import { startFakeBoj } from "../../test/fixtures/boj/fake-boj.ts";
import { fullCatalogueOptions } from "../../test/fixtures/boj/full-catalogue.ts";
import { mcpkitCommand, testEnv } from "../../test/support/mcp.ts";

const rounds = Number(process.argv[2] ?? 31);
const perDb = Number(process.argv[3] ?? 3_600);
const QUERIES = [
  "deposits households",
  "government bonds amounts outstanding",
  "corporate goods price index manufacturing",
  "dollar yen spot",
  "マネーストック 家計",
  "effective exchange rate",
];

const fake = startFakeBoj(await fullCatalogueOptions(perDb));
const dir = mkdtempSync(join(tmpdir(), "mcpkit-bench-search-"));
const [command, ...args] = mcpkitCommand();
const transport = new StdioClientTransport({
  command,
  args: [
    ...args,
    "--toolsets",
    "boj",
    "--boj-base-url",
    fake.url,
    "--boj-min-interval-ms",
    "0",
    "--boj-catalog-dir",
    dir,
    "--boj-catalog-wait-ms",
    "600000",
    "--log-level",
    "warn",
    ...(process.env.BENCH_SERVER_ARGS?.split(" ").filter(Boolean) ?? []),
  ],
  env: testEnv(),
  stderr: "inherit",
});
const client = new Client({ name: "bench-boj-search", version: "1.0.0" });
await client.connect(transport);

/** VmHWM: the process's peak resident set so far. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const search = (query: string) =>
  client.callTool({ name: "boj_search_series", arguments: { query } }, undefined, { timeout: 600_000 });

const buildStart = performance.now();
const first = (await search(QUERIES[0])).structuredContent as {
  catalog: { series_count: number; databases_indexed: number };
};
const buildMs = performance.now() - buildStart;
const pid = transport.pid as number;
console.log(
  `catalogue: ${first.catalog.series_count.toLocaleString("en-US")} series in ${first.catalog.databases_indexed} databases, built in ${(buildMs / 1000).toFixed(1)} s through the real process; server peak RSS ${peakRssMb(pid).toFixed(1)} MB (target ≤ 150)`,
);

const bare = new Database(join(dir, "boj-series-catalog.sqlite"), { readonly: true });
const bareQuery = bare.query("SELECT rowid, names FROM catalog_text WHERE catalog_text MATCH ? ORDER BY rank LIMIT 10");
const bareMatch = (query: string) =>
  queryWords(query)
    .filter((word) => characters(word) >= 3)
    .map((word) => `"${word}"`)
    .join(" AND ");

const timings: Record<string, number[]> = { mcpkit: [], bare: [] };
for (let round = 0; round < rounds + 3; round++) {
  for (const query of QUERIES) {
    const order: ["mcpkit" | "bare", () => Promise<unknown> | unknown][] = [
      ["mcpkit", () => search(query)],
      ["bare", () => bareQuery.all(bareMatch(query))],
    ];
    if (round % 2) order.reverse();
    for (const [name, run] of order) {
      const start = performance.now();
      await run();
      if (round >= 3) timings[name].push(performance.now() - start); // three warm-up rounds
    }
  }
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const ours = median(timings.mcpkit);
const theirs = median(timings.bare);
console.log(`warm search, ${QUERIES.length} queries × ${rounds} rounds, medians:`);
console.log(`  boj_search_series round trip (stdio, JSON-RPC, ranking, both halves): ${ours.toFixed(3)} ms`);
console.log(`  bare bun:sqlite FTS5 MATCH … ORDER BY rank LIMIT 10 (in process):     ${theirs.toFixed(3)} ms`);
console.log(`  ratio: ${(ours / theirs).toFixed(2)}× (target ≤ 3×)`);
console.log(`server peak RSS at the end: ${peakRssMb(pid).toFixed(1)} MB`);

bare.close();
await client.close();
await fake.stop();
rmSync(dir, { recursive: true, force: true });
