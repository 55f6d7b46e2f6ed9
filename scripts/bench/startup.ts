/**
 * Start-up benchmark: how long from spawning a stdio MCP server until it has answered `initialize`
 * and, once the client closes stdin, exited. That is what a desktop client pays each time it
 * launches a server. Three contenders run in the same rounds, interleaved so that machine load
 * hits each alike:
 *
 *   mcpkit        dist/mcpkit (or --mcpkit PATH), with boj and fs enabled (--root DIR)
 *   node-fs       the official @modelcontextprotocol/server-filesystem on Node
 *   minimal-bun   scripts/bench/fixtures/minimal-server.ts (SDK McpServer, one tool), compiled with
 *                 the same flags as the release, into a temporary directory
 *
 * Targets: mcpkit ≤ 0.25× node-fs and ≤ 1.2× minimal-bun (median time to exit).
 *
 * `--era modern` times the 2026-07-28 era instead: spawn → `server/discover` and `tools/list`
 * answered (sent together, as the requests carry their own envelope) → exit, against
 *
 *   mcpkit-2025   the same binary asked the 2025 way (initialize, initialized, tools/list)
 *   bare          scripts/bench/fixtures/bare-responder.ts, compiled with the release flags: answers
 *                 the two lines with prebuilt results, no MCP stack, on Bun's own stdin stream and
 *                 stdout writer as mcpkit's stdio (the floor; on the Node streams process.stdin and
 *                 process.stdout, whose first use alone costs ~10 ms, it took 14 ms instead of 4)
 *   bare+root     the same binary checking the directory mcpkit serves first (its realpath and that
 *                 it is a directory), as any server given a root must: Bun has no realpath but
 *                 node:fs's, which Bun compiles at every start (0.4–0.5 ms more than bare here),
 *                 so this is the floor with --root; run only when --mcpkit-args has --root
 *   code floor    scripts/bench/fixtures/code-floor.ts, compiled as mcpkit is: the bare responder
 *                 (with --root when mcpkit has it) after loading every module a stdio start of mcpkit
 *                 loads, running none of it: what mcpkit's code costs a start before it does anything
 *
 * Target (median time to both answers, issue 39): mcpkit and mcpkit-2025 each ≤ 1.2× bare (the 2025 era on
 * stdio runs on mcpkit's own session engine and loads no more than the modern one).
 * Every contender's CPU time (user + system of the whole process) is printed too, with its ratio:
 * on a loaded machine wall times swing between runs far more than CPU times do.
 *
 *   bun scripts/bench/startup.ts [--era legacy|modern] [--rounds N] [--mcpkit PATH] [--mcpkit-args ARGS]
 *                                [--baseline PATH] [--compare-bytecode] [--check]
 *
 * --mcpkit-args is split on spaces; {root} stands for the temporary directory every server serves. *
 * --baseline adds another mcpkit binary (e.g. one built from the previous commit) to the same
 * interleaved rounds, asked the same way as mcpkit (both ways with --era modern), for before/after
 * ratios from one run on the same machine load.
 * --compare-bytecode also compiles mcpkit with and without --bytecode and times both.
 * --check exits 1 when a target is missed.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { COMPILE_FLAGS, compile } from "../release/compile.ts";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const WARMUP_ROUNDS = 2;
const EXIT_GRACE_MS = 5_000;
const INITIALIZE =
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "mcpkit-startup-bench", version: "1.0.0" },
    },
  }) + "\n";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "mcpkit-startup-bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** What a 2026-07-28 client sends first: discovery and the tool list, in one write. */
const DISCOVER_AND_LIST = [
  { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: MODERN_META } },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: MODERN_META } },
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join("");
/** The 2025 way to the same two answers: initialize, initialized, tools/list. */
const INITIALIZE_AND_LIST = `${INITIALIZE}${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`;

interface Contender {
  name: string;
  command: string[];
  /** What is written to stdin, and how many answers (lines) to wait for; initialize alone by default. */
  send?: string;
  answers?: number;
  /** Size of the file a user installs, when it is one file. */
  bytes?: number;
}

interface Sample {
  answeredMs: number;
  exitedMs: number;
  /** CPU time of the whole process (user + system, every thread): what machine load sways least. */
  cpuMs: number;
}

/** One launch: spawn, send initialize (or the contender's lines), wait for the answers, close stdin, wait for exit. */
async function launchOnce(contender: Contender): Promise<Sample> {
  const started = performance.now();
  const child = Bun.spawn(contender.command, { stdin: "pipe", stdout: "pipe", stderr: "pipe", cwd: REPO_ROOT });
  const stderr = new Response(child.stderr).text();
  const killer = setTimeout(() => child.kill(), 20_000);
  try {
    child.stdin.write(contender.send ?? INITIALIZE);
    await child.stdin.flush();
    const lines = await readLines(child.stdout, contender.answers ?? 1).catch(async (error: Error) => {
      throw new Error(`${contender.name}: ${error.message}; its stderr: ${(await stderr).slice(0, 500)}`);
    });
    const answeredMs = performance.now() - started;
    for (const line of lines) {
      const reply = JSON.parse(line) as { id?: number; result?: unknown };
      if (reply.id === undefined || reply.result === undefined) {
        throw new Error(`${contender.name} did not answer: ${line.slice(0, 200)}`);
      }
    }
    await child.stdin.end();
    const grace = setTimeout(() => child.kill(), EXIT_GRACE_MS);
    await child.exited;
    clearTimeout(grace);
    const exitedMs = performance.now() - started;
    return { answeredMs, exitedMs, cpuMs: Number(child.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1000 };
  } finally {
    clearTimeout(killer);
    child.kill();
  }
}

/** The first `count` lines of `stream`. */
async function readLines(stream: ReadableStream<Uint8Array>, count: number): Promise<string[]> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    const lines = text.split("\n");
    if (lines.length > count) {
      reader.releaseLock();
      return lines.slice(0, count);
    }
    if (done) throw new Error(`the server closed stdout before answering (got ${JSON.stringify(text.slice(0, 200))})`);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs every contender `rounds` times (after warm-up), interleaved; the median times of each. */
async function measure(
  contenders: Contender[],
  rounds: number,
): Promise<Map<string, { answered: number; exited: number; cpu: number }>> {
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
  console.error(`${WARMUP_ROUNDS} warm-up + ${rounds} measured rounds on ${navigator.hardwareConcurrency} cores…`);
  for (let round = 0; round < WARMUP_ROUNDS + rounds; round++) {
    for (const contender of contenders) {
      const sample = await launchOnce(contender);
      if (round >= WARMUP_ROUNDS) samples.get(contender.name)!.push(sample);
    }
  }
  return new Map(
    contenders.map((c) => {
      const list = samples.get(c.name)!;
      return [
        c.name,
        {
          answered: median(list.map((s) => s.answeredMs)),
          exited: median(list.map((s) => s.exitedMs)),
          cpu: median(list.map((s) => s.cpuMs)),
        },
      ];
    }),
  );
}

/**
 * `--era modern`: mcpkit answering discover + tools/list, the same binary the 2025 way, the bare
 * responder, and the bare responder checking `root` first (bare+root).
 */
async function modernEra(
  work: string,
  root: string,
  mcpkit: string[],
  baseline: string[] | undefined,
  rounds: number,
  check: boolean,
): Promise<number> {
  console.error("compiling the bare responder with the release flags…");
  const bareBin = join(work, "bare-responder");
  await compile({ entry: "scripts/bench/fixtures/bare-responder.ts", outfile: bareBin, cwd: REPO_ROOT });
  console.error("compiling the code floor (bare after loading mcpkit's start-up modules) as mcpkit is…");
  const codeFloorBin = join(work, "code-floor");
  await compile({
    entry: "scripts/bench/fixtures/code-floor.ts",
    outfile: codeFloorBin,
    cwd: REPO_ROOT,
    mcpkitBuild: true,
  });
  const contenders: Contender[] = [
    { name: "mcpkit", command: mcpkit, send: DISCOVER_AND_LIST, answers: 2, bytes: statSync(mcpkit[0]).size },
    { name: "mcpkit-2025", command: mcpkit, send: INITIALIZE_AND_LIST, answers: 2 },
    ...(baseline
      ? [
          {
            name: "baseline",
            command: baseline,
            send: DISCOVER_AND_LIST,
            answers: 2,
            bytes: statSync(baseline[0]).size,
          },
          { name: "baseline-2025", command: baseline, send: INITIALIZE_AND_LIST, answers: 2 },
        ]
      : []),
    { name: "bare", command: [bareBin], send: DISCOVER_AND_LIST, answers: 2, bytes: statSync(bareBin).size },
    // Only a server given a root pays for checking it.
    ...(mcpkit.includes("--root")
      ? [{ name: "bare+root", command: [bareBin, "--root", root], send: DISCOVER_AND_LIST, answers: 2 }]
      : []),
    {
      name: "code floor",
      command: [codeFloorBin, ...(mcpkit.includes("--root") ? ["--root", root] : [])],
      send: DISCOVER_AND_LIST,
      answers: 2,
      bytes: statSync(codeFloorBin).size,
    },
  ];
  const medians = await measure(contenders, rounds);
  console.log(
    `start-up: spawn → discover + tools/list answered (2025: initialize + tools/list) → exit, median of ${rounds} rounds`,
  );
  console.log("contender          answered    exited      cpu         binary");
  for (const c of contenders) {
    const m = medians.get(c.name)!;
    console.log(
      `${c.name.padEnd(18)} ${ms(m.answered).padEnd(11)} ${ms(m.exited).padEnd(11)} ${ms(m.cpu).padEnd(11)} ${c.bytes ? mb(c.bytes) : ""}`,
    );
  }
  const bare = medians.get("bare")!.answered;
  /** Issue 39: each era at most 1.2× the bare responder. */
  const TARGET = 1.2;
  const modern = medians.get("mcpkit")!.answered / bare;
  const legacy = medians.get("mcpkit-2025")!.answered / bare;
  const cpuRatios = (name: string) => `CPU ${(medians.get(name)!.cpu / medians.get("bare")!.cpu).toFixed(2)}× bare`;
  // With --root (the default arguments) node:fs is a floor of its own: what bare+root adds to bare.
  const rootFloor = medians.get("bare+root")?.answered;
  const rooted = (name: string) =>
    rootFloor === undefined ? "" : `, ${(medians.get(name)!.answered / rootFloor).toFixed(2)}× bare+root`;
  console.log(
    `mcpkit 2026-07-28  ${modern.toFixed(2)}× bare (target ≤ ${TARGET.toFixed(2)}×, ${modern <= TARGET ? "met" : "MISSED"})${rooted("mcpkit")}; ${cpuRatios("mcpkit")}`,
  );
  console.log(
    `mcpkit 2025-11-25  ${legacy.toFixed(2)}× bare (target ≤ ${TARGET.toFixed(2)}×, ${legacy <= TARGET ? "met" : "MISSED"})${rooted("mcpkit-2025")}; ${cpuRatios("mcpkit-2025")}`,
  );
  if (rootFloor !== undefined) {
    console.log(`bare+root          ${(rootFloor / bare).toFixed(2)}× bare; ${cpuRatios("bare+root")}`);
  }
  // What loading mcpkit's modules alone costs: no change to what a start does gets below it.
  const codeFloor = medians.get("code floor")!.answered;
  console.log(
    `code floor         ${(codeFloor / bare).toFixed(2)}× bare${rooted("code floor")}; ${cpuRatios("code floor")}; ` +
      `mcpkit ${(medians.get("mcpkit")!.answered / codeFloor).toFixed(2)}× it (2026-07-28), ${(medians.get("mcpkit-2025")!.answered / codeFloor).toFixed(2)}× (2025-11-25)`,
  );
  if (baseline) {
    for (const [name, era] of [
      ["baseline", "2026-07-28"],
      ["baseline-2025", "2025-11-25"],
    ]) {
      console.log(
        `${name.padEnd(18)} ${(medians.get(name)!.answered / bare).toFixed(2)}× bare (${era}); ${cpuRatios(name)}`,
      );
    }
  }
  return check && (modern > TARGET || legacy > TARGET) ? 1 : 0;
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      rounds: { type: "string", default: "15" },
      mcpkit: { type: "string", default: "dist/mcpkit" },
      "mcpkit-args": { type: "string", default: "--root {root}" },
      "compare-bytecode": { type: "boolean", default: false },
      check: { type: "boolean", default: false },
      era: { type: "string", default: "legacy" },
      baseline: { type: "string" },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 200) {
    throw new Error(`--rounds must be a whole number from 1 to 200 (got ${JSON.stringify(values.rounds)})`);
  }
  const mcpkitPath = resolve(REPO_ROOT, values.mcpkit);
  if (!existsSync(mcpkitPath)) {
    throw new Error(`${values.mcpkit} does not exist; build it first with 'bun run build' or pass --mcpkit PATH`);
  }
  const nodeServer = join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
  if (!existsSync(nodeServer)) throw new Error(`${nodeServer} is missing; run 'bun install' (it is a dev dependency)`);

  const work = mkdtempSync(join(tmpdir(), "mcpkit-startup-"));
  try {
    const root = join(work, "root");
    await Bun.write(join(root, "hello.txt"), "hello\n");
    console.error("compiling the minimal SDK server with the release flags…");
    const minimalBin = join(work, "minimal-server");
    await compile({ entry: "scripts/bench/fixtures/minimal-server.ts", outfile: minimalBin, cwd: REPO_ROOT });

    const mcpkitArgs = values["mcpkit-args"]
      .split(" ")
      .filter(Boolean)
      .map((arg) => arg.replaceAll("{root}", root));
    const baseline = values.baseline === undefined ? undefined : [resolve(REPO_ROOT, values.baseline), ...mcpkitArgs];
    if (baseline && !existsSync(baseline[0])) throw new Error(`--baseline ${values.baseline} does not exist`);
    if (values.era === "modern") {
      return await modernEra(work, root, [mcpkitPath, ...mcpkitArgs], baseline, rounds, values.check);
    }
    const contenders: Contender[] = [
      { name: "mcpkit", command: [mcpkitPath, ...mcpkitArgs], bytes: statSync(mcpkitPath).size },
      ...(baseline ? [{ name: "baseline", command: baseline, bytes: statSync(baseline[0]).size }] : []),
      { name: "node-fs", command: ["node", nodeServer, root] },
      { name: "minimal-bun", command: [minimalBin], bytes: statSync(minimalBin).size },
    ];
    if (values["compare-bytecode"]) {
      console.error("compiling mcpkit with and without --bytecode…");
      for (const [name, flags] of [
        ["mcpkit+bytecode", COMPILE_FLAGS],
        // Splitting needs the ESM output --bytecode asks for.
        ["mcpkit-plain", COMPILE_FLAGS.filter((flag) => !["--bytecode", "--format=esm", "--splitting"].includes(flag))],
      ] as const) {
        const outfile = join(work, name);
        await compile({ entry: "src/main.ts", outfile, cwd: REPO_ROOT, flags });
        contenders.push({ name, command: [outfile, ...mcpkitArgs], bytes: statSync(outfile).size });
      }
    }

    const medians = await measure(contenders, rounds);
    console.log(`start-up: spawn → initialize answered → exit, median of ${rounds} rounds`);
    console.log("contender          answered    exited      cpu         binary");
    for (const c of contenders) {
      const m = medians.get(c.name)!;
      console.log(
        `${c.name.padEnd(18)} ${ms(m.answered).padEnd(11)} ${ms(m.exited).padEnd(11)} ${ms(m.cpu).padEnd(11)} ${c.bytes ? mb(c.bytes) : "(node + node_modules)"}`,
      );
    }
    // Targets are judged on the mcpkit under test; the --compare-bytecode builds get their ratios too.
    const node = medians.get("node-fs")!.exited;
    const minimal = medians.get("minimal-bun")!.exited;
    let targetsMet = true;
    for (const c of contenders.filter((c) => c.name.startsWith("mcpkit"))) {
      const vsNode = medians.get(c.name)!.exited / node;
      const vsMinimal = medians.get(c.name)!.exited / minimal;
      const met = (ok: boolean) => (ok ? "met" : "MISSED");
      console.log(
        `${c.name.padEnd(18)} ${vsNode.toFixed(2)}× node-fs (target ≤ 0.25×, ${met(vsNode <= 0.25)}), ` +
          `${vsMinimal.toFixed(2)}× minimal-bun (target ≤ 1.20×, ${met(vsMinimal <= 1.2)})`,
      );
      if (c.name === "mcpkit") targetsMet = vsNode <= 0.25 && vsMinimal <= 1.2;
    }
    if (values["compare-bytecode"]) {
      const withBytecode = medians.get("mcpkit+bytecode")!.exited;
      const plain = medians.get("mcpkit-plain")!.exited;
      console.log(`bytecode / plain = ${(withBytecode / plain).toFixed(2)}× (below 1 means --bytecode helps)`);
    }
    return values.check && !targetsMet ? 1 : 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exit(await main());
