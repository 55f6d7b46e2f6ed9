/**
 * What the constant-result fast path (src/mcp/protocol/frozen-json.ts) buys: the server time to
 * build one HTTP answer body for boj_list_databases (a 12 KB, mostly Japanese, constant result),
 * from the frozen result (serialized once, only the envelope per answer) against the same result
 * unfrozen (serialized and encoded on every answer, what the path would do without it). Both
 * eras' HTTP answers take this path (test/protocol/frozen-json.test.ts proves it).
 *
 *   bun scripts/bench/frozen-results.ts [--rounds N] [--answers N]
 */
import { parseArgs } from "node:util";
import { replyBody } from "../../src/mcp/protocol/wire.ts";
import { listDatabases } from "../../src/toolsets/boj/tools/list-databases.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "7" }, answers: { type: "string", default: "20000" } },
});
const rounds = Number(values.rounds);
const answers = Number(values.answers);

const frozen = (await listDatabases().handler({}, {} as never)) as unknown as Record<string, unknown>;
const copy = structuredClone(frozen);
const bytes = (replyBody(1, { ok: true, result: frozen }) as Uint8Array).length;

function time(result: Record<string, unknown>): number {
  const started = Bun.nanoseconds();
  let total = 0;
  for (let id = 0; id < answers; id++) {
    const body = replyBody(id, { ok: true, result });
    total += typeof body === "string" ? Buffer.byteLength(body) : body.length;
  }
  if (total === 0) throw new Error("nothing was built");
  return (Bun.nanoseconds() - started) / answers / 1000;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
const fast: number[] = [];
const slow: number[] = [];
for (let round = 0; round < rounds; round++) {
  // Interleaved, so machine load hits both alike.
  if (round % 2 === 1) slow.push(time(copy));
  fast.push(time(frozen));
  if (round % 2 === 0) slow.push(time(copy));
}
console.log(
  `answer body for boj_list_databases (${bytes} bytes), µs per answer, median of ${rounds} rounds of ${answers}`,
);
console.log(`frozen (fast path)   ${median(fast).toFixed(2)} µs`);
console.log(`unfrozen (no path)   ${median(slow).toFixed(2)} µs`);
console.log(
  `saved per answer     ${(median(slow) - median(fast)).toFixed(2)} µs (${(median(slow) / median(fast)).toFixed(1)}× faster)`,
);
