/**
 * Benchmark: decode a maximal BOJ page (250 series × 240 points = 60,000 points) into the boj
 * tools' structured output, from JSON and from Shift_JIS CSV, and compare with a plain
 * JSON.parse of the same JSON body (the floor any decoder pays). Targets: ≤ 3× for JSON,
 * ≤ 6× for CSV. Prints medians over several rounds.
 *
 *   bun scripts/bench/boj-decode.ts [rounds]
 */
import { decodeDataBody, type RawBody } from "../../src/toolsets/boj/decode/index.ts";
import { dataCsv, dataJson, encodeCsv, maximalPage } from "../../src/toolsets/boj/fixtures/format.ts";
import { buildCodeRequest } from "../../src/toolsets/boj/validation.ts";

const rounds = Number(process.argv[2] ?? 30);
const page = maximalPage(250, 240);
const jsonText = dataJson(page, "JP");
const jsonBody: RawBody = { bytes: new TextEncoder().encode(jsonText), httpStatus: 200, contentType: "application/json" };
const csvBody: RawBody = { bytes: encodeCsv(dataCsv(page, "JP"), "JP"), httpStatus: 200, contentType: "text/csv" };
const jsonRequest = buildCodeRequest({ db: "BP01", codes: ["X"] });
const csvRequest = buildCodeRequest({ db: "BP01", codes: ["X"], format: "csv", lang: "jp" });

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function measure(label: string, run: () => unknown): number {
  for (let i = 0; i < 5; i++) run(); // warm-up: let the JIT settle
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  const result = median(samples);
  console.log(`${label.padEnd(44)} median ${result.toFixed(2).padStart(7)} ms   (min ${Math.min(...samples).toFixed(2)}, max ${Math.max(...samples).toFixed(2)})`);
  return result;
}

// The baseline decodes the same bytes to text first, as any JSON decoder must.
let sink = 0;
const baseline = measure("JSON.parse (UTF-8 bytes → objects)", () => {
  sink += (JSON.parse(new TextDecoder().decode(jsonBody.bytes)) as { RESULTSET: unknown[] }).RESULTSET.length;
});
const json = measure("boj decode, JSON → structured output", () => {
  sink += decodeDataBody(jsonBody, jsonRequest, "code").output.series_count;
});
const csv = measure("boj decode, Shift_JIS CSV → structured output", () => {
  sink += decodeDataBody(csvBody, csvRequest, "code").output.series_count;
});

const points = page.series.reduce((n, s) => n + s.points.length, 0);
console.log(`\npage: ${page.series.length} series × ${points / page.series.length} points = ${points} points; JSON ${(jsonBody.bytes.length / 1024).toFixed(0)} KiB, CSV ${(csvBody.bytes.length / 1024).toFixed(0)} KiB; ${rounds} rounds`);
console.log(`JSON decode / JSON.parse = ${(json / baseline).toFixed(2)}×  (target ≤ 3×) ${json / baseline <= 3 ? "OK" : "OVER"}`);
console.log(`CSV  decode / JSON.parse = ${(csv / baseline).toFixed(2)}×  (target ≤ 6×) ${csv / baseline <= 6 ? "OK" : "OVER"}`);
if (sink === 0) console.log("(unreachable)");
