/**
 * Benchmark: `mcpkit call fs.search_by_time` against `find` and `fd` on the same tree, whole
 * processes, warm cache, interleaved rounds, medians and ratios; then the next page via its cursor,
 * and peak RSS at 200,000 vs 1,000,000 files.
 *
 *   bun run build && bun scripts/bench/fs-search.ts [--rounds N] [--bin dist/mcpkit] [--baseline OTHER_BIN] [--million] [--project] [--server] [--cold] [--dir /tmp]
 *
 * `--project` adds a realistic shape (see `fs-project-tree.ts`): a node_modules-heavy TypeScript
 * project searched with a glob for every `.ts` file at any depth (against `find -name '*.ts'` and `fd -e ts`) and by
 * `created` time (against `find -newerBt` where findutils supports it).
 *
 * Every tree also times the same binary on its JavaScript walk (`--fs-native-walk off`), beside the
 * native walk a search without a glob takes (`src/toolsets/fs/native-walk.ts`): what that bypass buys;
 * and on the native walk compiled at run time by TinyCC (`MCPKIT_FS_NATIVE_PREBUILT=off`) instead of
 * the one `bun run build` embeds when it finds a C compiler: what compiling ahead buys.
 *
 * `--baseline` adds another mcpkit binary (e.g. one built from the previous commit) to the same
 * interleaved rounds, so before/after ratios come from one run on the same machine load: its native
 * walk (prebuilt and TinyCC's) and its JavaScript walk.
 *
 * Peers: `find` (findutils) and `fdfind`/`fd` (Debian/Ubuntu: `apt-get install -y fd-find`;
 * macOS: `brew install fd`). A missing peer is skipped. The floor is `fs-floor.c`, the same kernel work in
 * compiled C on two threads, built with the system's C compiler when there is one (`apt-get install -y gcc`). `--million` also builds a 1,000,000-file
 * tree (one-off, a minute or more; about 1 GB of inodes) to compare peak memory and times at 1M.
 *
 * `--server` adds searches inside one running stdio server (spawned once per mcpkit binary, as an MCP
 * client uses it): each round times a `tools/call` of the first page from request to answer, in the
 * same interleaved rounds as find and fd, which start a process each time as they always do. The
 * one-shot `mcpkit call` pays process start-up and a cold JIT on every search; a session does not.
 *
 * `--cold` adds cold page-cache rounds on each tree: before every single run (of every contender,
 * binaries included) `sync` and `echo 3 > /proc/sys/vm/drop_caches`, which needs root; without it
 * the cold rounds are skipped with a line saying so. Each cold round costs a second or more per contender.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ensureProjectTree } from "./fs-project-tree.ts";
import { ensureTree } from "./fs-tree.ts";

const { values: flags } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    bin: { type: "string", default: "dist/mcpkit" },
    baseline: { type: "string" },
    million: { type: "boolean", default: false },
    project: { type: "boolean", default: false },
    dir: { type: "string", default: "/tmp" },
    cold: { type: "boolean", default: false },
    server: { type: "boolean", default: false },
  },
});
const rounds = Number(flags.rounds);
const bin = resolve(flags.bin as string);
if (!existsSync(bin)) {
  console.error(`${bin} does not exist; run 'bun run build' first (or pass --bin PATH).`);
  process.exit(2);
}

interface Run {
  ms: number;
  /** CPU time of the process (user + system, every thread): what machine load sways least. */
  cpuMs: number;
  stdout: string;
}

/** Empties the page cache (dentries and inodes too); false when this process may not (not root). */
function dropCaches(): boolean {
  Bun.spawnSync(["sync"]);
  try {
    writeFileSync("/proc/sys/vm/drop_caches", "3");
    return true;
  } catch {
    return false;
  }
}

function run(command: string[]): Run {
  const started = performance.now();
  const child = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - started;
  if (child.exitCode !== 0)
    throw new Error(`${command.join(" ")} exited ${child.exitCode}: ${child.stderr.toString().slice(0, 300)}`);
  const cpuMs = Number(child.resourceUsage?.cpuTime.total ?? Number.NaN) / 1000;
  return { ms, cpuMs, stdout: child.stdout.toString() };
}

const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** Peak resident set size of one run in MB, via GNU time (`%M`, kilobytes); undefined without it. */
function peakRssMb(command: string[]): number | undefined {
  if (!gnuTime) return undefined;
  const child = Bun.spawnSync([gnuTime, "-f", "%M", ...command], { stdout: "ignore", stderr: "pipe" });
  const kb = Number(child.stderr.toString().trim().split("\n").at(-1));
  return Number.isFinite(kb) ? kb / 1024 : undefined;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const baseline = flags.baseline ? resolve(flags.baseline) : undefined;

/** `fs.search_by_time` is the contract's name, accepted by every mcpkit version. */
function mcpkitCall(tree: string, args: Record<string, unknown>, binary = bin): string[] {
  return [binary, "call", "fs.search_by_time", JSON.stringify(args), "--root", tree];
}

/**
 * The floor (`fs-floor.c`): the same kernel work in compiled C on two threads, built here with the
 * system's C compiler (Debian: `apt-get install -y gcc`); skipped with a line when there is none.
 */
function buildFloor(): string | undefined {
  const compiler = Bun.which("cc") ?? Bun.which("gcc");
  if (!compiler) {
    console.error("no C compiler: skipping the C floor (install with 'apt-get install -y gcc').");
    return undefined;
  }
  const output = join(mkdtempSync(join(tmpdir(), "mcpkit-floor-")), "fs-floor");
  const built = Bun.spawnSync([compiler, "-O2", "-pthread", "-o", output, join(import.meta.dir, "fs-floor.c")], {
    stderr: "pipe",
  });
  if (built.exitCode === 0) return output;
  console.error(`could not build the C floor: ${built.stderr.toString().slice(0, 300)}`);
  return undefined;
}
const floorBinary = buildFloor();

const fdBinary = Bun.which("fdfind") ?? Bun.which("fd");
const findBinary = Bun.which("find");
if (!fdBinary)
  console.error("fd not found: skipping it (install with 'apt-get install -y fd-find' or 'brew install fd').");
if (!findBinary) console.error("find not found: skipping it.");

/** The CPU times of the last `timeRounds`, by command. */
let lastCpuTimes: Record<string, number[]> = {};

/**
 * Each command once untimed (warm cache), then `rounds` interleaved rounds in a rotating order;
 * `cold`: no warm-up, and the page cache is dropped before every run.
 */
function timeRounds(commands: Record<string, string[]>, cold = false): Record<string, number[]> {
  if (!cold) for (const command of Object.values(commands)) run(command);
  const times: Record<string, number[]> = {};
  lastCpuTimes = {};
  for (let round = 0; round < rounds; round++) {
    // Rotating, so drift in machine load hits every command alike.
    const names = Object.keys(commands);
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      if (cold && !dropCaches()) throw new Error("cannot drop the page cache");
      const timed = run(commands[name]);
      (times[name] ??= []).push(timed.ms);
      (lastCpuTimes[name] ??= []).push(timed.cpuMs);
    }
  }
  return times;
}

/** The same commands with a cold page cache (see `--cold`), if this process may drop it. */
function benchCold(label: string, commands: Record<string, string[]>, coldFind: number | undefined): void {
  if (!dropCaches()) {
    console.log(`\n${label}: cold rounds skipped: writing /proc/sys/vm/drop_caches was refused (needs root)`);
    return;
  }
  const loadBefore = loadavg()[0];
  const times = timeRounds(commands, true);
  console.log(
    `\n${label}, COLD page cache before every run (${rounds} rounds; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after)`,
  );
  console.log(`${"command".padEnd(26)} ${"median ms".padStart(10)} ${"min ms".padStart(8)} ${"vs find".padStart(8)}`);
  const findMs = times.find ? median(times.find) : undefined;
  for (const [name, samples] of Object.entries(times)) {
    const med = median(samples);
    const ratio = findMs ? `${(med / findMs).toFixed(2)}x` : "-";
    const fd = times.fd ? ` ${(med / median(times.fd)).toFixed(2)}x fd` : "";
    console.log(
      `${name.padEnd(26)} ${med.toFixed(0).padStart(10)} ${Math.min(...samples)
        .toFixed(0)
        .padStart(8)} ${ratio.padStart(8)}${fd}`,
    );
  }
  const page = times["mcpkit (page 1)"];
  if (findMs && page && coldFind !== undefined) {
    const ratio = median(page) / findMs;
    console.log(
      `${label}: cold target <= ${coldFind}x find: page 1 ${ratio.toFixed(2)}x (${ratio <= coldFind ? "within" : "OVER"})`,
    );
  }
}

function printTimes(label: string, times: Record<string, number[]>, reference: string): void {
  const referenceMs = times[reference] ? median(times[reference]) : undefined;
  console.log(`\n${label} (${rounds} rounds, warm cache)`);
  console.log(
    `${"command".padEnd(34)} ${"median ms".padStart(10)} ${"min ms".padStart(8)} ${`vs ${reference}`.padStart(10)}`,
  );
  for (const [name, samples] of Object.entries(times)) {
    const med = median(samples);
    const ratio = referenceMs ? `${(med / referenceMs).toFixed(2)}x` : "-";
    console.log(
      `${name.padEnd(34)} ${med.toFixed(0).padStart(10)} ${Math.min(...samples)
        .toFixed(0)
        .padStart(8)} ${ratio.padStart(10)}`,
    );
  }
}

/** The realistic shape: every `.ts` file at any depth of a node_modules-heavy project, and a created-time search. */
function benchProject(tree: string): void {
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const glob: Record<string, string[]> = {
    "mcpkit **/*.ts (page 1)": mcpkitCall(tree, { timeField: "modified", from, glob: "**/*.ts" }),
  };
  if (baseline)
    glob["baseline **/*.ts (page 1)"] = mcpkitCall(tree, { timeField: "modified", from, glob: "**/*.ts" }, baseline);
  // fast-glob skips dot entries unless the pattern names them; so do the peers here.
  if (findBinary)
    glob.find = [
      findBinary,
      tree,
      "-name",
      ".*",
      "-prune",
      "-o",
      "-type",
      "f",
      "-name",
      "*.ts",
      "-newermt",
      "-30 days",
      "-print",
    ];
  if (fdBinary) glob.fd = [fdBinary, "-t", "f", "-e", "ts", "--no-ignore", "--changed-within", "30d", ".", tree];
  printTimes(`project tree ${tree}: **/*.ts modified in 30 days`, timeRounds(glob), "find");

  const created: Record<string, string[]> = {
    "mcpkit created (page 1)": mcpkitCall(tree, { timeField: "created", from }),
  };
  if (baseline) created["baseline created (page 1)"] = mcpkitCall(tree, { timeField: "created", from }, baseline);
  const findBirth = findBinary
    ? Bun.spawnSync([findBinary, tree, "-maxdepth", "0", "-newerBt", "-30 days"], { stderr: "pipe" })
    : undefined;
  if (findBinary && findBirth?.exitCode === 0) created.find = [findBinary, tree, "-type", "f", "-newerBt", "-30 days"];
  printTimes(
    `project tree ${tree}: created in 30 days`,
    timeRounds(created),
    created.find ? "find" : "mcpkit created (page 1)",
  );
}

function benchTree(
  tree: string,
  label: string,
  targets: (typeof TARGETS)[keyof typeof TARGETS],
): { firstPageMs: number; nextPageMs: number; findMs?: number; fdMs?: number; floorMs?: number; peakRssMb?: number } {
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const firstArgs = { timeField: "modified", from };
  // One call to learn the cursor of page 2 (the cursor is bound to these exact arguments).
  const first = JSON.parse(run(mcpkitCall(tree, firstArgs)).stdout);
  const cursor = first.structuredContent.nextCursor as string;
  const commands: Record<string, string[]> = {
    "mcpkit (page 1)": mcpkitCall(tree, firstArgs),
    "mcpkit (page 2, cursor)": mcpkitCall(tree, { ...firstArgs, cursor }),
  };
  // What the native walk buys (native-walk.ts): the same binary on its JavaScript walk (`env` adds about 1 ms).
  commands["mcpkit JS walk (page 1)"] = ["env", "MCPKIT_FS_NATIVE_WALK=off", ...mcpkitCall(tree, firstArgs)];
  // What the walk compiled ahead buys (scripts/release/prebuilt-walk.ts), where the binary has it:
  // the same binary compiling its walk with TinyCC on a thread started with the process.
  commands["mcpkit TinyCC walk (page 1)"] = ["env", "MCPKIT_FS_NATIVE_PREBUILT=off", ...mcpkitCall(tree, firstArgs)];
  if (baseline) {
    const baselineCursor = JSON.parse(run(mcpkitCall(tree, firstArgs, baseline)).stdout).structuredContent
      .nextCursor as string;
    commands["baseline (page 1)"] = mcpkitCall(tree, firstArgs, baseline);
    commands["baseline (page 2, cursor)"] = mcpkitCall(tree, { ...firstArgs, cursor: baselineCursor }, baseline);
    // Both walks of each binary: a change to the JavaScript walk (collector.ts) or the C (native-walk.c) shows
    // only in its own row.
    commands["baseline JS walk (page 1)"] = [
      "env",
      "MCPKIT_FS_NATIVE_WALK=off",
      ...mcpkitCall(tree, firstArgs, baseline),
    ];
    commands["baseline TinyCC walk (page 1)"] = [
      "env",
      "MCPKIT_FS_NATIVE_PREBUILT=off",
      ...mcpkitCall(tree, firstArgs, baseline),
    ];
  }
  if (findBinary) commands.find = [findBinary, tree, "-type", "f", "-newermt", "-30 days"];
  if (fdBinary) commands.fd = [fdBinary, "-t", "f", "--changed-within", "30d", ".", tree];
  if (floorBinary)
    commands["floor (C, 2 threads)"] = [floorBinary, tree, String(Math.floor(Date.parse(from) / 1000)), "2"];

  const loadBefore = loadavg()[0];
  const times = timeRounds(commands);
  const cpu = lastCpuTimes;
  const findMs = times.find ? median(times.find) : undefined;
  console.log(
    `\n${label}: ${tree} (${rounds} rounds, warm cache; matches in 30 days: ${findBinary ? run(commands.find).stdout.split("\n").filter(Boolean).length : "?"}; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after)`,
  );
  console.log(
    `${"command".padEnd(26)} ${"median ms".padStart(10)} ${"min ms".padStart(8)} ${"peak RSS MB".padStart(12)} ${"vs find".padStart(8)}`,
  );
  const cpuLines: string[] = [];
  const rss: Record<string, number | undefined> = {};
  for (const name of Object.keys(commands)) {
    // Separate untimed runs: the wrapper must not colour the timings.
    const samples = [1, 2, 3].map(() => peakRssMb(commands[name])).filter((mb): mb is number => mb !== undefined);
    rss[name] = samples.length > 0 ? median(samples) : undefined;
    const med = median(times[name]);
    const ratio = findMs ? `${(med / findMs).toFixed(2)}x` : "-";
    const fd = times.fd ? ` ${(med / median(times.fd)).toFixed(2)}x fd` : "";
    console.log(
      `${name.padEnd(26)} ${med.toFixed(0).padStart(10)} ${Math.min(...times[name])
        .toFixed(0)
        .padStart(8)} ${(rss[name]?.toFixed(1) ?? "n/a").padStart(12)} ${ratio.padStart(8)}${fd}`,
    );
    const cpuMs = median(cpu[name]);
    const cpuVs = (peer: string) => (cpu[peer] ? ` ${(cpuMs / median(cpu[peer])).toFixed(2)}x ${peer}` : "");
    cpuLines.push(`${name.padEnd(26)} ${cpuMs.toFixed(0).padStart(10)}${cpuVs("find")}${cpuVs("fd")}`);
  }
  // On two cores a walk on two threads can take half its CPU time in wall time; find takes all of its own.
  console.log(`\nCPU time (user + system, median ms; load sways it far less than wall time):`);
  for (const line of cpuLines) console.log(line);
  if (flags.cold) {
    const { "mcpkit (page 2, cursor)": _, "baseline (page 2, cursor)": __, ...firstPages } = commands;
    benchCold(label, firstPages, targets.coldFind);
  }
  return {
    firstPageMs: median(times["mcpkit (page 1)"]),
    nextPageMs: median(times["mcpkit (page 2, cursor)"]),
    findMs,
    fdMs: times.fd ? median(times.fd) : undefined,
    floorMs: floorBinary ? median(times["floor (C, 2 threads)"]) : undefined,
    peakRssMb: rss["mcpkit (page 1)"],
  };
}

/** One stdio server session: initialize once, then `tools/call`s answered one at a time. */
class StdioSession {
  private nextId = 1;
  private readonly lines: string[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  private constructor(private readonly child: ReturnType<typeof Bun.spawn<"pipe", "pipe", "ignore">>) {
    void this.pump();
  }

  /** Splits the server's output into lines as it comes. */
  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of this.child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
        this.lines.push(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
      this.wake?.();
    }
    this.closed = true;
    this.wake?.();
  }

  static async start(binary: string, tree: string): Promise<StdioSession> {
    const child = Bun.spawn([binary, "--root", tree], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    const session = new StdioSession(child);
    await session.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "mcpkit-fs-search-bench", version: "1.0.0" },
    });
    session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return session;
  }

  /** Milliseconds from writing the call to reading its answer. */
  async time(args: Record<string, unknown>): Promise<number> {
    const started = performance.now();
    const result = (await this.request("tools/call", { name: "fs_search_by_time", arguments: args })) as {
      isError?: boolean;
    };
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`the search failed: ${JSON.stringify(result).slice(0, 300)}`);
    return ms;
  }

  async close(): Promise<void> {
    await this.child.stdin.end();
    await this.child.exited;
  }

  private send(message: unknown): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
    this.child.stdin.flush();
  }

  private async request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.send({ jsonrpc: "2.0", id, method, params });
    for (;;) {
      const line = this.lines.shift();
      if (line === undefined) {
        if (this.closed) throw new Error("the server closed its output");
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      const reply = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
      if (reply.id !== id) continue; // notifications
      if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
      return reply.result;
    }
  }
}

/** The first page inside running servers against find and fd as processes, interleaved (see `--server`). */
async function benchServer(tree: string, label: string, fdTarget: number | undefined): Promise<void> {
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const args = { timeField: "modified", from };
  const sessions: Record<string, StdioSession> = { "mcpkit server (page 1)": await StdioSession.start(bin, tree) };
  if (baseline) sessions["baseline server (page 1)"] = await StdioSession.start(baseline, tree);
  const processes: Record<string, string[]> = {};
  if (findBinary) processes.find = [findBinary, tree, "-type", "f", "-newermt", "-30 days"];
  if (fdBinary) processes.fd = [fdBinary, "-t", "f", "--changed-within", "30d", ".", tree];
  const loadBefore = loadavg()[0];
  // The first search of a session starts its stat thread: untimed, as the peers' first runs are.
  for (const session of Object.values(sessions)) await session.time(args);
  for (const command of Object.values(processes)) run(command);
  const times: Record<string, number[]> = {};
  const names = [...Object.keys(sessions), ...Object.keys(processes)];
  for (let round = 0; round < rounds; round++) {
    for (const name of names.map((_, i) => names[(i + round) % names.length])) {
      const ms = sessions[name] ? await sessions[name].time(args) : run(processes[name]).ms;
      (times[name] ??= []).push(ms);
    }
  }
  for (const session of Object.values(sessions)) await session.close();
  printTimes(
    `${label}: first page inside a running stdio server (load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after)`,
    times,
    "find",
  );
  if (times.fd) {
    const fdMs = median(times.fd);
    const target = fdTarget === undefined ? "" : ` (target <= ${fdTarget}x)`;
    for (const name of Object.keys(sessions))
      console.log(`${name}: ${(median(times[name]) / fdMs).toFixed(2)}x fd${target}`);
  }
}

/**
 * Issue 39's targets, whole process, first page (and the next one): 200k files at most 0.5x find and
 * 0.65x fd warm, 0.8x find cold; 1M files at most 0.55x find (on a quiet machine); peak RSS flat
 * from 200k to 1M and at most 64 MB.
 */
const TARGETS = {
  "200k": { find: 0.5, fd: 0.65, coldFind: 0.8 },
  "1M": { find: 0.55, fd: undefined, coldFind: undefined },
} as const;
const TARGET_RSS_MB = 64;

function printVerdict(label: keyof typeof TARGETS, result: ReturnType<typeof benchTree>): void {
  const verdict = (ms: number, peerMs: number | undefined, target: number) =>
    peerMs === undefined ? "n/a" : `${(ms / peerMs).toFixed(2)}x (${ms / peerMs <= target ? "within" : "OVER"})`;
  for (const [peer, peerMs, target] of [
    ["find", result.findMs, TARGETS[label].find],
    ["fd", result.fdMs, TARGETS[label].fd],
  ] as const) {
    if (target === undefined) continue;
    console.log(
      `${label}: target <= ${target}x ${peer}: page 1 ${verdict(result.firstPageMs, peerMs, target)}, page 2 ${verdict(result.nextPageMs, peerMs, target)}`,
    );
  }
  const { floorMs, findMs } = result;
  if (floorMs !== undefined)
    console.log(
      `${label}: the C floor on 2 threads is ${floorMs.toFixed(0)} ms${findMs ? ` (${(floorMs / findMs).toFixed(2)}x find)` : ""}; mcpkit page 1 is ${(result.firstPageMs - floorMs).toFixed(0)} ms above it (${(result.firstPageMs / floorMs).toFixed(2)}x)`,
    );
}

const small = benchTree(
  ensureTree(join(flags.dir as string, "mcpkit-bench-200k"), 200_000),
  "200,000 files in 1,000 directories",
  TARGETS["200k"],
);
console.log("");
printVerdict("200k", small);
if (flags.server)
  await benchServer(join(flags.dir as string, "mcpkit-bench-200k"), "200,000 files", TARGETS["200k"].fd);
if (flags.project) benchProject(ensureProjectTree(join(flags.dir as string, "mcpkit-bench-project")));
if (flags.million) {
  const large = benchTree(
    ensureTree(join(flags.dir as string, "mcpkit-bench-1m"), 1_000_000),
    "1,000,000 files in 1,000 directories",
    TARGETS["1M"],
  );
  console.log("");
  printVerdict("1M", large);
  if (flags.server)
    await benchServer(join(flags.dir as string, "mcpkit-bench-1m"), "1,000,000 files", TARGETS["1M"].fd);
  if (large.peakRssMb !== undefined && small.peakRssMb !== undefined) {
    const ratio = large.peakRssMb / small.peakRssMb;
    const within = ratio <= 1.2 && large.peakRssMb <= TARGET_RSS_MB && small.peakRssMb <= TARGET_RSS_MB;
    console.log(
      `\npeak RSS of mcpkit page 1: ${small.peakRssMb.toFixed(1)} MB at 200k, ${large.peakRssMb.toFixed(1)} MB at 1M: ${ratio.toFixed(2)}x (target flat, <= 1.2x, and <= ${TARGET_RSS_MB} MB: ${within ? "within" : "OVER"})`,
    );
  } else {
    console.log("\npeak RSS needs GNU time (/usr/bin/time; apt-get install -y time)");
  }
} else {
  console.log("\n(pass --million to compare peak RSS at 1,000,000 files; builds a second tree once)");
}
