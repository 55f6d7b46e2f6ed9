/**
 * What mcpkit's HTTP stack costs a `tools/call`, in process and without sockets: the real request
 * pipeline of `mcpkit --http` (`createPipeline`, the state `serveHttp` builds, the boj toolset as
 * the command line configures it: Host and Origin checks, the body read, the session or the
 * 2026-07-28 envelope, the dispatcher, the argument check, the output budget, the answer) against
 * the floor, the same tool handler called on the same requests (body parsed, handler, answer).
 * Both serialize a result built per call with `Response.json` (a frozen one once, as mcpkit does)
 * and read their answers' bytes, so what is left between them is the stack; the two answers are
 * checked byte for byte before the rounds.
 *
 * Over sockets (`scripts/bench/http.ts`) the client, the kernel and the other contenders share the
 * two cores, and a server's CPU a call swings by ±3 µs from round to round; here a round of the
 * same calls repeats within about ±0.5 µs, small enough to see what one change buys. Its ratio is
 * not the one issue 39 judges (the socket benchmark's is): without the socket's ~20 µs a call on
 * both sides, the same stack is a larger share here; and what was cut here (2.3 µs, taking out the
 * argument check, the output budget and the tool's context) showed as about twice that over
 * sockets, where every call also runs with colder caches.
 *
 * Requests are built before each round and answered `--in-flight` at a time; the event loop turns
 * every few requests, as a server's does, so work deferred past the turn (after-turn.ts) runs: a
 * loop that never yields keeps every answer queued there, and measures a growing heap instead.
 * Rounds interleave the contenders (the order rotates); medians are printed with the difference.
 *
 *   bun scripts/bench/http-stack.ts [--era legacy|modern] [--tool NAME] [--arguments JSON]
 *                                   [--rounds N] [--calls N] [--in-flight N] [--baseline DIR]
 *
 * Defaults: `boj_get_parameter_catalog {"endpoint":"get_data_code"}` (an 8 KB result built per
 * call, from the embedded catalogue). `--baseline DIR` loads another checkout's sources (with its
 * dependencies installed or linked) into this process and runs its pipeline in the same rounds.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type CheckoutTool, bojFromCheckout } from "./fixtures/boj-from-checkout.ts";

const { values: flags } = parseArgs({
  options: {
    era: { type: "string", default: "legacy" },
    tool: { type: "string", default: "boj_get_parameter_catalog" },
    arguments: { type: "string", default: '{"endpoint":"get_data_code"}' },
    rounds: { type: "string", default: "15" },
    calls: { type: "string", default: "5000" },
    "in-flight": { type: "string", default: "32" },
    baseline: { type: "string" },
  },
});
const MODERN = flags.era === "modern";
if (!MODERN && flags.era !== "legacy") throw new Error(`--era is legacy or modern, got ${flags.era}`);
const ROUNDS = Number(flags.rounds);
const CALLS = Number(flags.calls);
const IN_FLIGHT = Number(flags["in-flight"]);
const TOOL = flags.tool;
const ARGUMENTS = JSON.parse(flags.arguments) as Record<string, unknown>;
/** A listener's address: only the Host header and the allowed hosts use it, nothing binds it. */
const ORIGIN = "http://127.0.0.1:8080";
const URL_OF_MCP = `${ORIGIN}/mcp`;
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "http-stack-bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Handle = (request: Request) => Promise<Response>;

interface Contender {
  pipeline: Handle;
  /** The headers every tools/call of this contender carries (a session's id, or the 2026-07-28 ones). */
  headers: Record<string, string>;
  /** The tool's handler, as the floor calls it. */
  handler: CheckoutTool["handler"];
  toolContext: unknown;
}

/** The pipeline `mcpkit --http 127.0.0.1:8080 --toolsets boj` runs, built from the sources under `root`. */
async function contender(root: string): Promise<Contender> {
  const { load, options, toolsets, log } = await bojFromCheckout(root, ["--http", "127.0.0.1:8080"]);
  const { readHttpConfig } = await load("src/mcp/http/config.ts");
  const { createHttpState } = await load("src/mcp/http/state.ts");
  const { createHostOriginCheck } = await load("src/mcp/http/host-origin.ts");
  const { createPipeline } = await load("src/mcp/http/pipeline.ts");
  const outputBudget = 100_000;
  const publicUrl = new URL(ORIGIN);
  const state = createHttpState(
    readHttpConfig(options),
    { toolsets, log, toolNames: "portable", outputBudget },
    { publicUrl },
  );
  const pipeline: Handle = createPipeline(state, createHostOriginCheck({ boundHost: "127.0.0.1", publicUrl }));
  const tool = toolsets.flatMap((toolset) => toolset.tools).find((candidate) => candidate.name === TOOL);
  if (!tool) throw new Error(`${root}: the boj toolset has no tool ${TOOL}`);
  const toolContext = {
    signal: new AbortController().signal,
    calledAs: TOOL,
    outputBudget,
    notify() {},
    reportProgress() {},
    clientRoots: async () => undefined,
    log,
  };
  const headers = MODERN
    ? { ...BASE_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": TOOL }
    : await openSession(pipeline);
  return { pipeline, headers, handler: tool.handler, toolContext };
}

const BASE_HEADERS = {
  host: "127.0.0.1:8080",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function post(body: string, headers: Record<string, string>): Request {
  return new Request(URL_OF_MCP, {
    method: "POST",
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    body,
  });
}

/** A 2025-11-25 session opened through the pipeline: initialize, then initialized. */
async function openSession(pipeline: Handle): Promise<Record<string, string>> {
  const initialize = await pipeline(
    post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "http-stack-bench", version: "1" },
        },
      }),
      BASE_HEADERS,
    ),
  );
  const sessionId = initialize.headers.get("mcp-session-id");
  await initialize.arrayBuffer();
  if (initialize.status !== 200 || !sessionId) throw new Error(`initialize answered HTTP ${initialize.status}`);
  const headers = { ...BASE_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  const initialized = await pipeline(post('{"jsonrpc":"2.0","method":"notifications/initialized"}', headers));
  await initialized.arrayBuffer();
  return headers;
}

function callBody(id: number): string {
  const params = MODERN
    ? { name: TOOL, arguments: ARGUMENTS, _meta: MODERN_META }
    : { name: TOOL, arguments: ARGUMENTS };
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
}

/**
 * The floor: the body parsed, the handler called with the arguments as they came, the answer
 * serialized; for 2026-07-28 with what mcpkit adds to every result (`resultType`, `_meta`), taken
 * from mcpkit's own answer to the probe. A frozen result (`constantResult`, the same object every
 * call) is serialized once, as mcpkit does, and only the envelope around its bytes per call.
 */
function floorOf(ours: Contender, probe: { resultType?: unknown; _meta?: unknown }): Handle {
  const responseHeaders = MODERN
    ? { "content-type": "application/json" }
    : { "content-type": "application/json", "mcp-session-id": ours.headers["mcp-session-id"] };
  const decorate = (result: object) =>
    MODERN ? { ...result, resultType: probe.resultType, _meta: probe._meta } : result;
  const frozenBytes = new WeakMap<object, Buffer>();
  return async (request) => {
    const message = (await request.json()) as { id: number; params: { arguments?: Record<string, unknown> } };
    const result = await ours.handler(message.params.arguments ?? {}, ours.toolContext);
    if (!Object.isFrozen(result)) {
      return Response.json(
        { jsonrpc: "2.0", id: message.id, result: decorate(result) },
        { status: 200, headers: responseHeaders },
      );
    }
    let bytes = frozenBytes.get(result);
    if (!bytes) frozenBytes.set(result, (bytes = Buffer.from(JSON.stringify(decorate(result)))));
    const body = Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":`),
      bytes,
      CLOSE,
    ]);
    return new Response(body, { status: 200, headers: responseHeaders });
  };
}

const CLOSE = Buffer.from("}");

/** Microseconds a call, `CALLS` calls answered `IN_FLIGHT` at a time. */
async function usPerCall(handle: Handle, headers: Record<string, string>): Promise<number> {
  const requests = Array.from({ length: CALLS }, (_, index) => post(callBody(index + 1), headers));
  let next = 0;
  let answered = 0;
  const worker = async () => {
    let sinceTurn = 0;
    while (next < requests.length) {
      const response = await handle(requests[next++]);
      if (response.status === 200 && (await response.arrayBuffer()).byteLength > 0) answered++;
      // A server's event loop turns between a few requests; the after-turn work runs then.
      if (++sinceTurn === 4) {
        sinceTurn = 0;
        await new Promise((resume) => setImmediate(resume));
      }
    }
  };
  const started = Bun.nanoseconds();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const elapsed = Bun.nanoseconds() - started;
  if (answered !== CALLS) throw new Error(`${CALLS - answered} of ${CALLS} calls were not answered with HTTP 200`);
  return elapsed / CALLS / 1000;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;

const ours = await contender(resolve(import.meta.dir, "../.."));
const probeResponse = await ours.pipeline(post(callBody(1), ours.headers));
const probeBody = await probeResponse.text();
const probeResult = (JSON.parse(probeBody) as { result?: { resultType?: unknown; _meta?: unknown } }).result;
if (probeResponse.status !== 200 || !probeResult)
  throw new Error(`the probe call answered HTTP ${probeResponse.status}: ${probeBody.slice(0, 300)}`);
const floor = floorOf(ours, probeResult);
const floorBody = await (await floor(post(callBody(1), ours.headers))).text();
if (floorBody !== probeBody) {
  let at = 0;
  while (at < floorBody.length && floorBody[at] === probeBody[at]) at++;
  throw new Error(
    `the floor does not answer what mcpkit answered (first difference at byte ${at}): the comparison would be unfair`,
  );
}
const previous = flags.baseline ? await contender(resolve(flags.baseline)) : undefined;

const runs: { label: string; handle: Handle; headers: Record<string, string>; times: number[] }[] = [
  { label: "mcpkit's pipeline", handle: ours.pipeline, headers: ours.headers, times: [] },
  { label: "floor (handler alone)", handle: floor, headers: ours.headers, times: [] },
  ...(previous
    ? [{ label: "the baseline's pipeline", handle: previous.pipeline, headers: previous.headers, times: [] }]
    : []),
];
for (const run of runs) await usPerCall(run.handle, run.headers);
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < runs.length; k++) {
    const run = runs[(round + k) % runs.length];
    Bun.gc(true);
    run.times.push(await usPerCall(run.handle, run.headers));
  }
}
const [mcpkit, bare, baseline] = runs.map((run) => median(run.times));
console.log(
  `${MODERN ? "2026-07-28" : "2025-11-25"} tools/call ${TOOL} ${JSON.stringify(ARGUMENTS)} (${probeBody.length} bytes), ${ROUNDS} interleaved rounds of ${CALLS} calls, ${IN_FLIGHT} in flight; medians:`,
);
for (const run of runs)
  console.log(
    `  ${run.label.padEnd(26)} ${median(run.times).toFixed(2).padStart(7)} µs/call   [${run.times.map((t) => t.toFixed(1)).join(" ")}]`,
  );
console.log(
  `  the stack: ${(mcpkit - bare).toFixed(2)} µs a call above the floor; throughput mcpkit / floor = ${Math.round((100 * bare) / mcpkit)}%`,
);
if (baseline !== undefined)
  console.log(
    `  mcpkit / baseline: ${(mcpkit - baseline).toFixed(2)} µs a call (${Math.round((100 * baseline) / mcpkit)}% of its throughput)`,
  );
process.exit(0);
