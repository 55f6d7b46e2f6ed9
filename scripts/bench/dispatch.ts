/**
 * The protocol core's cost for one cheap `tools/call` (boj_list_databases, a constant result), in
 * process, without HTTP or stdio: the dispatcher's tools/call handler on the boj toolset as the
 * server builds it (name lookup, argument check, the output budget, the tool's context, the
 * toolset's error mapping) against the floor, the tool's own handler called directly. Rounds are interleaved, so machine load hits both alike; medians are printed with
 * their ratio. What `scripts/bench/http.ts` measures end to end is this plus the transport.
 *
 *   bun scripts/bench/dispatch.ts [--rounds N] [--calls N]
 */
import { parseArgs } from "node:util";
import { coreOptions, parseCommandLine } from "../../src/cli/options.ts";
import { selectToolsets } from "../../src/cli/toolsets.ts";
import { createLogger } from "../../src/core/log.ts";
import { DEFAULT_OUTPUT_BUDGET } from "../../src/core/output-budget.ts";
import type { ToolContext } from "../../src/core/tool.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { type RequestContext, dispatcherFor } from "../../src/mcp/protocol/dispatcher.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { listDatabases } from "../../src/toolsets/boj/tools/list-databases.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "15" }, calls: { type: "string", default: "200000" } },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);

const log = createLogger("warn");
const tool = listDatabases();
const specs = [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions];
const { values: options } = parseCommandLine(["--toolsets", "boj", "--boj-base-url", "http://127.0.0.1:9"], {}, specs);
const { toolsets } = selectToolsets(toolsetModules, options, { log, mode: "http", cwd: "/" });
const dispatcher = dispatcherFor({
  toolsets,
  log,
  toolNames: "portable",
  outputBudget: DEFAULT_OUTPUT_BUDGET,
});
const call = dispatcher.handlers.get("tools/call");
if (!call) throw new Error("the dispatcher answers no tools/call");
const requestContext: RequestContext = {
  signal: new AbortController().signal,
  scopes: undefined,
  clientCapabilities: {},
  notify: () => {},
  logLevel: () => undefined,
  clientRoots: async () => undefined,
};
const toolContext = { log, calledAs: tool.name, outputBudget: DEFAULT_OUTPUT_BUDGET } as ToolContext;

const throughDispatcher = () => call({ name: tool.name, arguments: {} }, requestContext);
const handlerAlone = () => tool.handler({}, toolContext);

async function nsPerCall(once: () => Promise<unknown>): Promise<number> {
  const started = Bun.nanoseconds();
  let answered = 0;
  for (let n = 0; n < calls; n++) if (await once()) answered++;
  if (answered !== calls) throw new Error(`${calls - answered} calls gave no result`);
  return (Bun.nanoseconds() - started) / calls;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
await nsPerCall(throughDispatcher);
await nsPerCall(handlerAlone);
const dispatched: number[] = [];
const floor: number[] = [];
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 1) floor.push(await nsPerCall(handlerAlone));
  dispatched.push(await nsPerCall(throughDispatcher));
  if (round % 2 === 0) floor.push(await nsPerCall(handlerAlone));
}
const ours = median(dispatched);
const bare = median(floor);
console.log(`tools/call boj_list_databases, ${rounds} interleaved rounds of ${calls} calls, medians:`);
console.log(`  through the dispatcher   ${ours.toFixed(0).padStart(6)} ns/call`);
console.log(`  the handler alone        ${bare.toFixed(0).padStart(6)} ns/call   (the floor)`);
console.log(`  dispatcher / floor = ${(ours / bare).toFixed(2)}×, ${(ours - bare).toFixed(0)} ns a call above it`);
