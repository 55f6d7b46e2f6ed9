/**
 * Benchmark: a boj call answered from the cache against the same call answered by BOJ (the fake
 * BOJ on loopback, pacing off, so the miss is the cheapest a real request can be). Measures, in
 * process, the answer lookup alone (`BojAnswers.fetch`) and the whole tool handler (lookup,
 * metadata filters, text rendering), for a 1,300-entry metadata listing and a 250-series layer
 * page. Target: a hit answers in ≤ 1 ms. Rounds interleave hit and miss; medians and p99 printed.
 *
 *   bun scripts/bench/boj-cache.ts [rounds]
 */
import { silentLogger } from "../../src/core/log.ts";
import type { ToolContext, ToolDefinition } from "../../src/core/tool.ts";
import { BojAnswers } from "../../src/toolsets/boj/answers.ts";
import { MemoryAnswerCache } from "../../src/toolsets/boj/cache.ts";
import { BojClient } from "../../src/toolsets/boj/client.ts";
import { decodeDataBody, decodeMetadataBody } from "../../src/toolsets/boj/decode/index.ts";
import { startFakeBoj } from "../../test/fixtures/boj/fake-boj.ts";
import { bojTools } from "../../src/toolsets/boj/tools/index.ts";
import { buildLayerRequest, buildMetadataRequest } from "../../src/toolsets/boj/validation.ts";

const rounds = Number(process.argv[2] ?? 201);
const fake = startFakeBoj();
const client = new BojClient(
  {
    baseUrl: fake.url,
    timeoutMs: 10_000,
    retryMax: 0,
    retryBackoffMs: 0,
    minIntervalMs: 0,
    maxBodyBytes: 64 * 1024 * 1024,
    userAgent: "mcpkit-bench",
  },
  silentLogger,
);
const ttl = { dataMs: 3_600_000, metadataMs: 3_600_000 };
const cached = new BojAnswers(client, new MemoryAnswerCache(64 * 1024 * 1024), ttl);
const uncached = new BojAnswers(client, undefined, ttl);
const context: ToolContext = {
  signal: new AbortController().signal,
  calledAs: "bench",
  outputBudget: 100_000,
  notify: () => {},
  reportProgress: () => {},
  clientRoots: async () => undefined,
  log: silentLogger,
};

const metadataRequest = buildMetadataRequest({ db: "LA01" });
const layerRequest = buildLayerRequest({ db: "MD10", frequency: "Q", layers: ["*"], lang: "en" });
const tool = (answers: BojAnswers, name: string) =>
  bojTools({ answers }).find((t) => t.name === name) as ToolDefinition;
const handlerArgs = {
  metadata: { db: "LA01", include_raw: false, offset: 0 },
  layer: { db: "MD10", frequency: "Q", layers: ["*"], lang: "en", include_raw: false },
};

const contenders: [string, () => Promise<unknown>][] = [
  [
    "metadata 1,300 entries: lookup, miss (BOJ)",
    () => uncached.fetch(metadataRequest, context, (body) => decodeMetadataBody(body, metadataRequest)),
  ],
  [
    "metadata 1,300 entries: lookup, hit",
    () => cached.fetch(metadataRequest, context, (body) => decodeMetadataBody(body, metadataRequest)),
  ],
  [
    "metadata 1,300 entries: whole handler, hit",
    () => tool(cached, "boj_get_metadata").handler(handlerArgs.metadata, context),
  ],
  [
    "layer page 250 series: lookup, miss (BOJ)",
    () => uncached.fetch(layerRequest, context, (body) => decodeDataBody(body, layerRequest, "layer")),
  ],
  [
    "layer page 250 series: lookup, hit",
    () => cached.fetch(layerRequest, context, (body) => decodeDataBody(body, layerRequest, "layer")),
  ],
  [
    "layer page 250 series: whole handler, hit",
    () => tool(cached, "boj_get_data_layer").handler(handlerArgs.layer, context),
  ],
];

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

for (let i = 0; i < 5; i++) for (const [, run] of contenders) await run(); // warm-up, and fills the cache
const samples = contenders.map((): number[] => []);
for (let round = 0; round < rounds; round++) {
  for (let index = 0; index < contenders.length; index++) {
    const start = performance.now();
    await contenders[index][1]();
    samples[index].push(performance.now() - start);
  }
}
await fake.stop();

console.log(`boj cache, ${rounds} interleaved rounds (ms)`);
for (let index = 0; index < contenders.length; index++) {
  console.log(
    `  ${contenders[index][0].padEnd(46)} median ${quantile(samples[index], 0.5).toFixed(3).padStart(8)}   p99 ${quantile(samples[index], 0.99).toFixed(3).padStart(8)}`,
  );
}
for (const [miss, hit] of [
  [0, 1],
  [3, 4],
]) {
  console.log(
    `  ${contenders[hit][0]}: ${(quantile(samples[miss], 0.5) / quantile(samples[hit], 0.5)).toFixed(0)}× faster than the miss`,
  );
}
