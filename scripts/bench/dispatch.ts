/**
 * The protocol core's cost for one cheap `tools/call` (boj_list_databases, a constant result), in
 * process, without HTTP or stdio: the dispatcher's tools/call handler on the boj toolset as the
 * server builds it (name lookup, argument check, the output budget, the tool's context, the
 * toolset's error mapping) against the floor, the tool's own handler called directly. Rounds are
 * interleaved, so machine load hits all alike; medians are printed with their ratios. What
 * `scripts/bench/http.ts` measures end to end is this plus the transport.
 *
 *   bun scripts/bench/dispatch.ts [--rounds N] [--calls N] [--baseline DIR]
 *
 * `--baseline DIR` loads the same modules from another checkout (the previous release's sources,
 * with its dependencies installed or linked) into this process and runs its dispatcher in the same
 * rounds.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { bojFromCheckout } from "./fixtures/boj-from-checkout.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "15" },
    calls: { type: "string", default: "200000" },
    baseline: { type: "string" },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);

type Call = () => Promise<unknown>;

/** The dispatcher's tools/call and the bare handler, built from the sources under `root`. */
async function contender(root: string): Promise<{ dispatched: Call; handlerAlone: Call }> {
  const { load, toolsets, log } = await bojFromCheckout(root);
  const { dispatcherFor } = await load("src/mcp/protocol/dispatcher.ts");
  const { listDatabases } = await load("src/toolsets/boj/tools/list-databases.ts");
  const outputBudget = 100_000;
  const call = dispatcherFor({ toolsets, log, toolNames: "portable", outputBudget }).handlers.get("tools/call");
  if (!call) throw new Error(`${root}: the dispatcher answers no tools/call`);
  const requestContext = {
    signal: new AbortController().signal,
    scopes: undefined,
    clientCapabilities: {},
    notify: () => {},
    logLevel: () => undefined,
    clientRoots: async () => undefined,
  };
  const tool = listDatabases();
  const toolContext = { log, calledAs: tool.name, outputBudget };
  return {
    dispatched: () => call({ name: tool.name, arguments: {} }, requestContext),
    handlerAlone: () => tool.handler({}, toolContext),
  };
}

async function nsPerCall(once: Call): Promise<number> {
  const started = Bun.nanoseconds();
  let answered = 0;
  for (let n = 0; n < calls; n++) if (await once()) answered++;
  if (answered !== calls) throw new Error(`${calls - answered} calls gave no result`);
  return (Bun.nanoseconds() - started) / calls;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;

const ours = await contender(resolve(import.meta.dir, "../.."));
const previous = values.baseline ? await contender(resolve(values.baseline)) : undefined;
const runs: [string, Call, number[]][] = [
  ["through the dispatcher", ours.dispatched, []],
  ["the handler alone", ours.handlerAlone, []],
  ...(previous ? [["the baseline's dispatcher", previous.dispatched, []] as [string, Call, number[]]] : []),
];
for (const [, once] of runs) await nsPerCall(once);
for (let round = 0; round < rounds; round++) {
  // The order rotates each round, so no contender always runs first.
  for (let k = 0; k < runs.length; k++) {
    const [, once, times] = runs[(round + k) % runs.length];
    times.push(await nsPerCall(once));
  }
}
const [dispatched, floor, baseline] = runs.map(([, , times]) => median(times));
console.log(`tools/call boj_list_databases, ${rounds} interleaved rounds of ${calls} calls, medians:`);
for (const [label, , times] of runs)
  console.log(`  ${label.padEnd(28)} ${median(times).toFixed(0).padStart(6)} ns/call`);
console.log(
  `  dispatcher / handler alone = ${(dispatched / floor).toFixed(2)}×, ${(dispatched - floor).toFixed(0)} ns a call above it`,
);
if (baseline !== undefined) console.log(`  dispatcher / baseline's    = ${(dispatched / baseline).toFixed(2)}×`);
