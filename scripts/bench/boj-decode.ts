/**
 * Benchmark: decode a maximal BOJ page (250 series × 240 points = 60,000 points) into the boj
 * tools' structured output, from JSON and from Shift_JIS CSV, and compare with a plain
 * JSON.parse of the same JSON body (the floor any decoder pays). Targets: ≤ 3× for JSON,
 * ≤ 6× for CSV. Prints medians over several rounds.
 *
 *   bun scripts/bench/boj-decode.ts [rounds]
 */
import { decodeDataBody, type RawBody } from "../../src/toolsets/boj/decode/index.ts";
import { dataCsv, dataJson, encodeCsv, maximalPage } from "../../test/fixtures/boj/format.ts";
import { buildCodeRequest } from "../../src/toolsets/boj/validation.ts";

const rounds = Number(process.argv[2] ?? 31);
const page = maximalPage(250, 240);
const jsonText = dataJson(page, "JP");
const jsonBody: RawBody = {
  bytes: new TextEncoder().encode(jsonText),
  httpStatus: 200,
  contentType: "application/json",
};
const csvBody: RawBody = { bytes: encodeCsv(dataCsv(page, "JP"), "JP"), httpStatus: 200, contentType: "text/csv" };
const jsonRequest = buildCodeRequest({ db: "BP01", codes: ["X"] });
const csvRequest = buildCodeRequest({ db: "BP01", codes: ["X"], format: "csv", lang: "jp" });

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

let sink = 0;
const contenders: [string, () => void][] = [
  // The baseline decodes the same bytes to text first, as any JSON decoder must.
  [
    "JSON.parse (UTF-8 bytes → objects)",
    () => {
      sink += (JSON.parse(new TextDecoder().decode(jsonBody.bytes)) as { RESULTSET: unknown[] }).RESULTSET.length;
    },
  ],
  [
    "boj decode, JSON → structured output",
    () => {
      sink += decodeDataBody(jsonBody, jsonRequest, "code").output.series_count;
    },
  ],
  [
    "boj decode, Shift_JIS CSV → structured output",
    () => {
      sink += decodeDataBody(csvBody, csvRequest, "code").output.series_count;
    },
  ],
];

function time(run: () => void): number {
  Bun.gc(true); // start each sample with a clean heap, so no contender pays for another's garbage
  const start = performance.now();
  run();
  return performance.now() - start;
}

for (let i = 0; i < 5; i++) for (const [, run] of contenders) run(); // warm-up: let the JIT settle
// Rounds interleave the contenders, so a burst of load on a shared machine hits all three alike;
// the ratios are taken per round and their median reported.
const samples = contenders.map((): number[] => []);
const ratios = { json: [] as number[], csv: [] as number[] };
for (let round = 0; round < rounds; round++) {
  const times = contenders.map(([, run], index) => {
    const took = time(run);
    samples[index].push(took);
    return took;
  });
  ratios.json.push(times[1] / times[0]);
  ratios.csv.push(times[2] / times[0]);
}
contenders.forEach(([label], index) => {
  const own = samples[index];
  console.log(
    `${label.padEnd(46)} median ${median(own).toFixed(2).padStart(7)} ms   (min ${Math.min(...own).toFixed(2)}, max ${Math.max(...own).toFixed(2)})`,
  );
});

const points = page.series.reduce((n, s) => n + s.points.length, 0);
const jsonRatio = median(ratios.json);
const csvRatio = median(ratios.csv);
console.log(
  `\npage: ${page.series.length} series × ${points / page.series.length} points = ${points} points; JSON ${(jsonBody.bytes.length / 1024).toFixed(0)} KiB, CSV ${(csvBody.bytes.length / 1024).toFixed(0)} KiB; ${rounds} rounds`,
);
console.log(
  `JSON decode / JSON.parse = ${jsonRatio.toFixed(2)}×  (median of per-round ratios; target ≤ 3×) ${jsonRatio <= 3 ? "OK" : "OVER"}`,
);
console.log(
  `CSV  decode / JSON.parse = ${csvRatio.toFixed(2)}×  (median of per-round ratios; target ≤ 6×) ${csvRatio <= 6 ? "OK" : "OVER"}`,
);
if (sink === 0) console.log("(unreachable)");
