/**
 * The work one caller can start (issue 34 H3): CALLS concurrent `fs_search_by_time` calls over
 * HTTP on an 18,000-file tree, against `mcpkit --http 127.0.0.1:0 --toolsets fs` (the sources, or
 * dist/mcpkit with --binary), loopback only. While they run, /proc/PID/status is sampled for the
 * server's peak RSS (VmHWM) and peak thread count, /healthz is asked every 50 ms, and a second
 * caller sends one call of its own. Every call must end with a result, or a 429/503 carrying
 * Retry-After.
 *
 *   bun scripts/bench/call-flood.ts [--calls 400] [--era modern|legacy] [--binary PATH] [--files 18000] [-- ARGS…]
 *
 *   --era modern   CALLS stateless 2026-07-28 POSTs (no authorization: one anonymous caller), and a
 *                  2025 session as the second caller
 *   --era legacy   CALLS calls on one 2025-11-25 session, and a second session as the second caller
 *
 * Arguments after `--` go to mcpkit (e.g. `-- --max-calls 16`). Target: under 200 MB RSS and 64
 * threads, every call answered, /healthz always 200, the second caller's call answered.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ensureTree } from "./fs-tree.ts";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const { values, positionals } = parseArgs({
  options: {
    calls: { type: "string", default: "400" },
    era: { type: "string", default: "modern" },
    binary: { type: "string" },
    files: { type: "string", default: "18000" },
  },
  allowPositionals: true,
});
const calls = Number(values.calls);
const era = values.era === "legacy" ? "legacy" : "modern";
const root = ensureTree(join(tmpdir(), `mcpkit-flood-tree-${values.files}`), Number(values.files));

const command = values.binary ? [resolve(values.binary)] : [process.execPath, join(REPO_ROOT, "src/main.ts")];
const server = Bun.spawn(
  [...command, "--http", "127.0.0.1:0", "--toolsets", "fs", "--root", root, "--log-level", "warn", ...positionals],
  { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
);
const base = await listening(server.stderr);
const mcp = `${base}/mcp`;

const status = () => readFileSync(`/proc/${server.pid}/status`, "utf8");
const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
const idle = status();
const peak = { threads: field(idle, "Threads"), rssKb: field(idle, "VmRSS") };
const sampler = setInterval(() => {
  try {
    const text = status();
    peak.threads = Math.max(peak.threads, field(text, "Threads"));
    peak.rssKb = Math.max(peak.rssKb, field(text, "VmHWM"));
  } catch {
    // exited
  }
}, 5);
const health = { asked: 0, ok: 0, slowestMs: 0 };
let flooding = true;
const healthLoop = (async () => {
  while (flooding) {
    const started = performance.now();
    const response = await fetch(`${base}/healthz`).catch(() => undefined);
    health.asked++;
    if (response?.status === 200) health.ok++;
    await response?.arrayBuffer();
    health.slowestMs = Math.max(health.slowestMs, performance.now() - started);
    await Bun.sleep(50);
  }
})();

const toolArguments = { timeField: "modified", limit: 20 };
const outcomes = new Map<string, number>();
const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);

async function legacySession(): Promise<Record<string, string>> {
  const response = await fetch(mcp, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
    }),
  });
  await response.arrayBuffer();
  const session = response.headers.get("mcp-session-id");
  if (!session) throw new Error(`initialize answered ${response.status} without a session`);
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
  const note = await fetch(mcp, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await note.arrayBuffer();
  return headers;
}

function post(headers: Record<string, string>, id: number, modern: boolean): Promise<Response> {
  const params: Record<string, unknown> = { name: "fs_search_by_time", arguments: toolArguments };
  if (modern) {
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
  }
  return fetch(mcp, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
  });
}

const MODERN_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "fs_search_by_time",
};

/** One call's ending: "result", "error", or the refusal's status and whether it had Retry-After. */
async function ending(response: Response): Promise<string> {
  const text = await response.text();
  if (response.status === 429 || response.status === 503) {
    return `${response.status}${response.headers.get("retry-after") ? " with Retry-After" : " WITHOUT Retry-After"}`;
  }
  if (response.status !== 200) return `HTTP ${response.status}`;
  return /"result"/.test(text) && !/"isError":true/.test(text) ? "result" : "error";
}

const flooder = era === "legacy" ? await legacySession() : MODERN_HEADERS;
const other = await legacySession();
const started = performance.now();
const flood = Array.from({ length: calls }, (_, index) =>
  post(flooder, index + 1, era === "modern")
    .then(ending)
    .catch((error: Error) => `failed: ${error.message}`)
    .then(count),
);
// The other caller's call, sent once the flood is under way.
await Bun.sleep(20);
const otherStarted = performance.now();
const otherEnding = await post(other, 1, false)
  .then(ending)
  .catch((error: Error) => `failed: ${error.message}`);
const otherMs = performance.now() - otherStarted;
await Promise.all(flood);
const floodMs = performance.now() - started;
flooding = false;
await healthLoop;
clearInterval(sampler);
const hwm = field(status(), "VmHWM");
server.kill("SIGTERM");
await server.exited;

console.log(
  `${calls} concurrent fs_search_by_time calls (${era} era) on ${values.files} files, ${existsSync(root) ? root : ""}`,
);
console.log(`  mcpkit ${positionals.join(" ") || "(defaults)"}`);
console.log(`  idle: ${(field(idle, "VmRSS") / 1024).toFixed(0)} MB RSS, ${field(idle, "Threads")} threads`);
console.log(`  peak: ${(Math.max(peak.rssKb, hwm) / 1024).toFixed(0)} MB RSS (VmHWM), ${peak.threads} threads`);
console.log(`  endings: ${[...outcomes].map(([key, n]) => `${n} ${key}`).join(", ")} in ${floodMs.toFixed(0)} ms`);
console.log(`  the other caller's call: ${otherEnding} after ${otherMs.toFixed(0)} ms`);
console.log(`  /healthz: ${health.ok}/${health.asked} answered 200, slowest ${health.slowestMs.toFixed(0)} ms`);

async function listening(stderr: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stderr.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`mcpkit exited before listening:\n${text}`);
    text += decoder.decode(value, { stream: true });
    const match = /listening on (http:\/\/\S+)\/mcp/.exec(text);
    if (!match) continue;
    // Keep reading (and dropping) the rest, so the pipe never fills.
    void (async () => {
      while (!(await reader.read()).done);
    })();
    return match[1];
  }
}
