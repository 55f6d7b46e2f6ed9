/**
 * HTTP throughput benchmark: 32 concurrent sessions drive `tools/call boj_list_databases` (a
 * cheap catalog tool, no upstream) for a fixed number of calls against
 *
 *   mcpkit      `mcpkit --http 127.0.0.1:0 --toolsets boj` (dist/mcpkit, or the sources with --source)
 *   reference   scripts/bench/fixtures/http-reference.mjs: SDK McpServer + express
 *               StreamableHTTPServerTransport on Node, serving the same tool result
 *
 * one after the other, with the same lean client (raw fetch, SSE parsed by hand) so the load
 * generator costs both the same. Prints throughput and p50/p99 latency and the ratios.
 * Targets: mcpkit throughput ≥ 2× the reference's, and its p99 ≤ the reference's p99.
 *
 *   bun scripts/bench/http.ts [--calls N] [--sessions N] [--rounds N] [--source] [--check]
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
  },
});
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

class Session {
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
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "http-bench", version: "1" } },
      }),
    });
    const sessionId = init.headers.get("mcp-session-id");
    await init.text();
    if (!init.ok || !sessionId) throw new Error(`initialize failed: HTTP ${init.status}`);
    const headers = { ...HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
    const session = new Session(url, headers);
    const initialized = await fetch(url, { method: "POST", headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
    await initialized.arrayBuffer();
    return session;
  }

  /** One tools/call; returns its result. */
  async call(): Promise<unknown> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method: "tools/call", params: { name: TOOL, arguments: {} } }),
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
  const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => Session.open(url)));
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

async function measure(label: string, server: Server): Promise<Summary> {
  await drive(server.url, WARMUP_CALLS);
  const runs: Summary[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { seconds, latencies } = await drive(server.url, CALLS);
    latencies.sort((a, b) => a - b);
    const summary = { throughput: CALLS / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    runs.push(summary);
    console.log(
      `${label.padEnd(10)} round ${round + 1}: ${summary.throughput.toFixed(0).padStart(6)} calls/s   p50 ${summary.p50.toFixed(2).padStart(6)} ms   p99 ${summary.p99.toFixed(2).padStart(6)} ms`,
    );
  }
  return {
    throughput: median(runs.map((run) => run.throughput)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
  };
}

const work = mkdtempSync(join(tmpdir(), "mcpkit-http-bench-"));
try {
  const mcpkitCommand = flags.source ? [process.execPath, "src/main.ts"] : [resolve(REPO_ROOT, process.env.MCPKIT_BIN ?? "dist/mcpkit")];

  // The reference serves exactly what mcpkit's tool returns.
  const mcpkit = await start([...mcpkitCommand, "--http", "127.0.0.1:0", "--toolsets", "boj"]);
  const probe = await Session.open(mcpkit.url);
  const toolResult = await probe.call();
  await probe.close();
  const resultFile = join(work, "result.json");
  writeFileSync(resultFile, JSON.stringify(toolResult));
  console.log(`${TOOL} result: ${JSON.stringify(toolResult).length} bytes; ${SESSIONS} sessions, ${CALLS} calls per round, ${ROUNDS} rounds (after ${WARMUP_CALLS} warm-up calls)\n`);

  const ours = await measure("mcpkit", mcpkit);
  await mcpkit.stop();

  const reference = await start(["node", "scripts/bench/fixtures/http-reference.mjs", resultFile]);
  const theirs = await measure("reference", reference);
  await reference.stop();

  const throughputRatio = ours.throughput / theirs.throughput;
  const p99Ratio = ours.p99 / theirs.p99;
  console.log("\nmedian of rounds        calls/s     p50 ms     p99 ms");
  console.log(`mcpkit (Bun.serve)   ${ours.throughput.toFixed(0).padStart(10)} ${ours.p50.toFixed(2).padStart(10)} ${ours.p99.toFixed(2).padStart(10)}`);
  console.log(`reference (express)  ${theirs.throughput.toFixed(0).padStart(10)} ${theirs.p50.toFixed(2).padStart(10)} ${theirs.p99.toFixed(2).padStart(10)}`);
  console.log(`\nthroughput mcpkit / reference = ${throughputRatio.toFixed(2)}×  (target ≥ 2×) ${throughputRatio >= 2 ? "OK" : "UNDER"}`);
  console.log(`p99        mcpkit / reference = ${p99Ratio.toFixed(2)}×  (target ≤ 1×) ${p99Ratio <= 1 ? "OK" : "OVER"}`);
  if (flags.check && (throughputRatio < 2 || p99Ratio > 1)) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
