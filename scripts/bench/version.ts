/**
 * `mcpkit --version` benchmark: spawn → exit of the compiled binary asked for its version, against
 * a bare compiled Bun binary that prints one line (the floor of any Bun binary), both compiled
 * with the release flags into a temporary directory and run in interleaved rounds so that machine
 * load hits each alike.
 *
 * Target: mcpkit ≤ 1.2× bare (median).
 *
 *   bun scripts/bench/version.ts [--rounds N] [--mcpkit PATH] [--baseline PATH] [--check]
 *
 * --mcpkit times an already compiled binary (for instance one built from an older commit) instead
 * of compiling src/main.ts; --baseline adds a third contender (a binary built from an older commit)
 * to the same rounds, for before/after figures. --check exits 1 when the target is missed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../release/compile.ts";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const WARMUP_ROUNDS = 3;
const TARGET_RATIO = 1.2;

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "40" },
    mcpkit: { type: "string" },
    baseline: { type: "string" },
    check: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);

function timeRun(command: string[]): number {
  const start = Bun.nanoseconds();
  const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  const elapsed = (Bun.nanoseconds() - start) / 1e6;
  if (result.exitCode !== 0 || result.stdout.length === 0) {
    throw new Error(`${command.join(" ")} failed (exit ${result.exitCode}): ${result.stderr.toString()}`);
  }
  return elapsed;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const work = mkdtempSync(join(tmpdir(), "mcpkit-version-bench-"));
try {
  const bareSource = join(work, "bare.ts");
  // Bun's own writer: a first use of process.stdout (a Node stream) costs 3–4 ms of CPU by itself,
  // which would make this floor twice as slow as the runtime's start.
  writeFileSync(bareSource, 'await Bun.write(Bun.stdout, "bare 0.0.0\\n");\n');
  const bare = join(work, "bare");
  await compile({ entry: bareSource, outfile: bare, cwd: REPO_ROOT });
  let mcpkit = values.mcpkit;
  if (mcpkit === undefined) {
    mcpkit = join(work, "mcpkit");
    await compile({ entry: "src/main.ts", outfile: mcpkit, cwd: REPO_ROOT });
  }
  const contenders: [string, string[]][] = [
    ["mcpkit", [mcpkit, "--version"]],
    ["bare", [bare]],
  ];
  if (values.baseline !== undefined) contenders.push(["baseline", [values.baseline, "--version"]]);
  const samples: Record<string, number[]> = Object.fromEntries(contenders.map(([name]) => [name, []]));
  for (let round = 0; round < WARMUP_ROUNDS + rounds; round++) {
    // Rotate who goes first: the first spawn of a round pays more often for a cold scheduler.
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]);
    for (const [name, command] of order) {
      const elapsed = timeRun(command);
      if (round >= WARMUP_ROUNDS) samples[name].push(elapsed);
    }
  }
  const mcpkitMedian = median(samples.mcpkit);
  const bareMedian = median(samples.bare);
  const ratio = mcpkitMedian / bareMedian;
  console.log(`rounds ${rounds} (interleaved, ${WARMUP_ROUNDS} warm-up rounds dropped)`);
  console.log(`mcpkit --version  median ${mcpkitMedian.toFixed(2)} ms`);
  console.log(`bare              median ${bareMedian.toFixed(2)} ms`);
  if (values.baseline !== undefined) {
    const baselineMedian = median(samples.baseline);
    console.log(
      `baseline --version median ${baselineMedian.toFixed(2)} ms (${(baselineMedian / bareMedian).toFixed(2)}× bare)`,
    );
  }
  console.log(`ratio             ${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×)`);
  if (values.check && ratio > TARGET_RATIO) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
