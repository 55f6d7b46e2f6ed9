/**
 * HTTP throughput benchmark: 32 concurrent sessions drive `tools/call boj_list_databases` (a
 * cheap catalog tool, no upstream) for a fixed number of calls against
 *
 *   mcpkit      `mcpkit --http 127.0.0.1:0 --toolsets boj` (dist/mcpkit, or the sources with --source)
 *   reference   scripts/bench/fixtures/http-reference.mjs: SDK McpServer + express
 *               StreamableHTTPServerTransport on Node, serving the same tool result
 *   bare        scripts/bench/fixtures/http-bare.ts: a bare Bun.serve answering the same requests
 *               with the same result, correctly framed, and no MCP stack (the ceiling)
 *
 * with the same lean client (raw fetch, SSE parsed by hand) so the load generator costs each the
 * same. All three run at once and their rounds are interleaved (the order rotates each round), so
 * a busy machine slows each of them alike. Prints throughput and p50/p99 latency and the ratios.
 * Targets: mcpkit ≥ 3× the reference's throughput and ≥ 50% of the bare server's; p99 ≤ the
 * reference's.
 *
 * `--era modern` drives the 2026-07-28 era instead: no sessions, every POST carries the `_meta`
 * envelope and the Mcp-Method / Mcp-Name headers, answered as JSON. The reference (SDK v1) does
 * not speak that era, so mcpkit is compared with the bare server only (which answers the modern
 * request with the same result, as JSON). `--method tools/list` drives tools/list instead of the
 * constant tools/call. Targets: ≥ 90% of bare for tools/call, ≥ 70% for tools/list.
 *
 *   bun scripts/bench/http.ts [--era legacy|modern] [--method tools/call|tools/list] [--calls N]
 *                             [--sessions N] [--rounds N] [--source] [--check]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const PROTOCOL_VERSION = "2025-11-25";
const TOOL = "boj_list_databases";

const { values: flags } = parseArgs({
  options: {
    calls: { type: "string", default: "6000" },
    sessions: { type: "string", default: "32" },
    rounds: { type: "string", default: "3" },
    source: { type: "boolean", default: false },
    check: { type: "boolean", default: false },
    era: { type: "string", default: "legacy" },
    method: { type: "string", default: "tools/call" },
  },
});
const MODERN = flags.era === "modern";
const METHOD = flags.method === "tools/list" ? "tools/list" : "tools/call";
if (!MODERN && METHOD !== "tools/call") throw new Error("--method tools/list needs --era modern");
const CALLS = Number(flags.calls);
const SESSIONS = Number(flags.sessions);
const ROUNDS = Number(flags.rounds);
const WARMUP_CALLS = Math.min(1000, CALLS);

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function start(command: string[], env: Record<string, string> = {}): Promise<Server> {
  const child = Bun.spawn(command, {
    cwd: REPO_ROOT,
    env: { ...process.env, BOJ_BASE_URL: "http://127.0.0.1:9", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let text = "";
  const decoder = new TextDecoder();
  const reader = child.stderr.getReader();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const match = /listening on (http:\/\/\S+\/mcp)/.exec(text);
    if (match) {
      // Keep draining stderr so the server never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done) {}
      })();
      return {
        url: match[1],
        async stop() {
          child.kill("SIGTERM");
          await child.exited;
        },
      };
    }
  }
  child.kill("SIGKILL");
  throw new Error(`${command.join(" ")} did not start:\n${text}`);
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The JSON-RPC message in a response body, whether SSE or plain JSON. */
function messageOf(body: string): { result?: unknown; error?: unknown } {
  if (body.startsWith("{")) return JSON.parse(body);
  for (const line of body.split("\n")) {
    if (line.startsWith("data: ") && line.length > 6) return JSON.parse(line.slice(6));
  }
  throw new Error(`no JSON-RPC message in: ${body.slice(0, 200)}`);
}

/** One client of the benchmark: a 2025 session, or a 2026-07-28 caller that needs none. */
interface Caller {
  call(): Promise<unknown>;
  close(): Promise<void>;
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "http-bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 client: each request carries its envelope and headers; nothing to open or close. */
class ModernCaller implements Caller {
  private nextId = 1;
  private readonly headers: Record<string, string>;
  private readonly params: Record<string, unknown>;

  constructor(private readonly url: string) {
    this.headers = { ...HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": METHOD };
    this.params = METHOD === "tools/call" ? { name: TOOL, arguments: {}, _meta: MODERN_META } : { _meta: MODERN_META };
    if (METHOD === "tools/call") this.headers["mcp-name"] = TOOL;
  }

  async call(): Promise<unknown> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method: METHOD, params: this.params }),
    });
    const message = messageOf(await response.text());
    if (!response.ok || message.error || !message.result) throw new Error(`${METHOD} failed: HTTP ${response.status}`);
    return message.result;
  }

  async close(): Promise<void> {}
}

const openCaller = (url: string): Promise<Caller> =>
  MODERN ? Promise.resolve(new ModernCaller(url)) : Session.open(url);

class Session implements Caller {
  private nextId = 1;
  private constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  static async open(url: string): Promise<Session> {
    const init = await fetch(url, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "http-bench", version: "1" },
        },
      }),
    });
    const sessionId = init.headers.get("mcp-session-id");
    await init.text();
    if (!init.ok || !sessionId) throw new Error(`initialize failed: HTTP ${init.status}`);
    const headers = { ...HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
    const session = new Session(url, headers);
    const initialized = await fetch(url, {
      method: "POST",
      headers,
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    });
    await initialized.arrayBuffer();
    return session;
  }

  /** One tools/call; returns its result. */
  async call(): Promise<unknown> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: this.nextId++,
        method: "tools/call",
        params: { name: TOOL, arguments: {} },
      }),
    });
    const message = messageOf(await response.text());
    if (!response.ok || message.error || !message.result) throw new Error(`tools/call failed: HTTP ${response.status}`);
    return message.result;
  }

  async close(): Promise<void> {
    const response = await fetch(this.url, { method: "DELETE", headers: this.headers });
    await response.arrayBuffer();
  }
}

interface Run {
  seconds: number;
  latencies: number[];
}

/** `calls` tool calls spread over `SESSIONS` concurrent sessions; returns wall time and each call's latency. */
async function drive(url: string, calls: number): Promise<Run> {
  const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => openCaller(url)));
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    sessions.map(async (session) => {
      while (issued < calls) {
        issued++;
        const t0 = performance.now();
        await session.call();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(sessions.map((session) => session.close()));
  return { seconds, latencies };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

interface Summary {
  throughput: number;
  p50: number;
  p99: number;
}

interface Contender {
  label: string;
  server: Server;
  runs: Summary[];
}

async function round(contender: Contender, index: number): Promise<void> {
  const { seconds, latencies } = await drive(contender.server.url, CALLS);
  latencies.sort((a, b) => a - b);
  const summary = { throughput: CALLS / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  contender.runs.push(summary);
  console.log(
    `${contender.label.padEnd(10)} round ${index + 1}: ${summary.throughput.toFixed(0).padStart(6)} calls/s   p50 ${summary.p50.toFixed(2).padStart(6)} ms   p99 ${summary.p99.toFixed(2).padStart(6)} ms`,
  );
}

function medianOf(runs: Summary[]): Summary {
  return {
    throughput: median(runs.map((run) => run.throughput)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
  };
}

/** Warms every contender, then runs ROUNDS rounds, rotating who goes first. */
async function interleave(contenders: Contender[]): Promise<Summary[]> {
  for (const contender of contenders) await drive(contender.server.url, WARMUP_CALLS);
  for (let index = 0; index < ROUNDS; index++) {
    for (let k = 0; k < contenders.length; k++) await round(contenders[(index + k) % contenders.length], index);
  }
  return contenders.map((contender) => medianOf(contender.runs));
}

function printTable(rows: readonly (readonly [string, Summary])[]): void {
  console.log("\nmedian of rounds        calls/s     p50 ms     p99 ms");
  for (const [label, summary] of rows) {
    console.log(
      `${label.padEnd(20)} ${summary.throughput.toFixed(0).padStart(10)} ${summary.p50.toFixed(2).padStart(10)} ${summary.p99.toFixed(2).padStart(10)}`,
    );
  }
}

async function benchLegacy(mcpkit: Server, resultFile: string): Promise<void> {
  const reference = await start(["node", "scripts/bench/fixtures/http-reference.mjs", resultFile]);
  const bare = await start([process.execPath, "scripts/bench/fixtures/http-bare.ts", resultFile]);
  const contenders = [
    { label: "mcpkit", server: mcpkit, runs: [] },
    { label: "reference", server: reference, runs: [] },
    { label: "bare", server: bare, runs: [] },
  ];
  const [ours, theirs, ceiling] = await interleave(contenders);
  await Promise.all(contenders.map((contender) => contender.server.stop()));

  const throughputRatio = ours.throughput / theirs.throughput;
  const ofCeiling = ours.throughput / ceiling.throughput;
  const p99Ratio = ours.p99 / theirs.p99;
  printTable([
    ["mcpkit (Bun.serve)", ours],
    ["reference (express)", theirs],
    ["bare Bun.serve", ceiling],
  ]);
  console.log(
    `\nthroughput mcpkit / reference = ${throughputRatio.toFixed(2)}×  (target ≥ 3×) ${throughputRatio >= 3 ? "OK" : "UNDER"}`,
  );
  console.log(
    `throughput mcpkit / bare      = ${(ofCeiling * 100).toFixed(0)}%  (target ≥ 50%) ${ofCeiling >= 0.5 ? "OK" : "UNDER"}`,
  );
  console.log(
    `p99        mcpkit / reference = ${p99Ratio.toFixed(2)}×  (target ≤ 1×) ${p99Ratio <= 1 ? "OK" : "OVER"}`,
  );
  if (flags.check && (throughputRatio < 3 || ofCeiling < 0.5 || p99Ratio > 1)) process.exitCode = 1;
}

async function benchModern(mcpkit: Server, resultFile: string): Promise<void> {
  const bare = await start([process.execPath, "scripts/bench/fixtures/http-bare.ts", resultFile]);
  const contenders = [
    { label: "mcpkit", server: mcpkit, runs: [] },
    { label: "bare", server: bare, runs: [] },
  ];
  const [ours, ceiling] = await interleave(contenders);
  await Promise.all(contenders.map((contender) => contender.server.stop()));
  const ofCeiling = ours.throughput / ceiling.throughput;
  const target = METHOD === "tools/list" ? 0.7 : 0.9;
  printTable([
    ["mcpkit (2026-07-28)", ours],
    ["bare Bun.serve", ceiling],
  ]);
  console.log(
    `\nthroughput mcpkit / bare = ${(ofCeiling * 100).toFixed(0)}%  (target ≥ ${target * 100}% for ${METHOD}) ${ofCeiling >= target ? "OK" : "UNDER"}`,
  );
  if (flags.check && ofCeiling < target) process.exitCode = 1;
}

const work = mkdtempSync(join(tmpdir(), "mcpkit-http-bench-"));
try {
  const mcpkitCommand = flags.source
    ? [process.execPath, "src/main.ts"]
    : [resolve(REPO_ROOT, process.env.MCPKIT_BIN ?? "dist/mcpkit")];

  // The reference and the bare server serve exactly what mcpkit returns.
  const mcpkit = await start([...mcpkitCommand, "--http", "127.0.0.1:0", "--toolsets", "boj"]);
  const probe = await openCaller(mcpkit.url);
  const toolResult = await probe.call();
  await probe.close();
  const resultFile = join(work, "result.json");
  writeFileSync(resultFile, JSON.stringify(toolResult));
  const what = MODERN ? `2026-07-28 ${METHOD}${METHOD === "tools/call" ? ` ${TOOL}` : ""}` : `${TOOL}`;
  console.log(
    `${what} result: ${JSON.stringify(toolResult).length} bytes; ${SESSIONS} ${MODERN ? "concurrent callers" : "sessions"}, ${CALLS} calls per round, ${ROUNDS} rounds (after ${WARMUP_CALLS} warm-up calls)\n`,
  );
  if (MODERN) await benchModern(mcpkit, resultFile);
  else await benchLegacy(mcpkit, resultFile);
} finally {
  rmSync(work, { recursive: true, force: true });
}
