/**
 * How mcpkit is compiled into a single file, shared by the release script and the start-up
 * benchmark so that the benchmark measures exactly what ships.
 *
 * `--bytecode` stores JavaScriptCore bytecode next to the source so the binary skips parsing at
 * start-up; it needs `--format=esm` because main.ts uses top-level await. Measured with
 * `scripts/bench/startup.ts --compare-bytecode` (Bun 1.4.4, linux-x64): spawn → initialize → exit
 * takes about half as long (0.47–0.61×) for 3 MB more binary, so releases use it.
 *
 * `--splitting` keeps what a command imports only on demand (`import()`: the HTTP and
 * authorization servers, the stdio transport, `install`, the BOJ chart page, shared state) in
 * chunks of their own inside the binary, which a start that never imports them never loads: `--version` 8.3 vs
 * 11.9 ms, `mcpkit call` on an empty directory 14.7 vs 17.8 ms (medians of 41 interleaved rounds).
 */
import { prebuildNativeWalk } from "./prebuilt-walk.ts";
import { STARTUP_JIT_POLICY } from "../../src/core/jit-policy.ts";

/** The Bun targets mcpkit is released for, keyed by the os-arch suffix of the archive name. */
export const TARGETS = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64",
} as const;

export type TargetName = keyof typeof TARGETS;
export const TARGET_NAMES = Object.keys(TARGETS) as TargetName[];

/**
 * A compiled Bun binary by default reads `.env` files and `bunfig.toml` from the directory it is
 * started in, and runs a bunfig's `preload` scripts before main. MCP clients start mcpkit in the
 * user's workspace, which may be a repository nobody has reviewed: its `.env` could widen
 * `MCPKIT_ROOTS` or set the cursor secret, its bunfig run code inside the server. The binary reads
 * only its command line and the environment its client gives it, so every autoload is off (the
 * tsconfig and package.json ones are off by default; named so a changed default cannot turn them on).
 */
export const NO_AUTOLOAD_FLAGS = [
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
] as const;

export const COMPILE_FLAGS = [
  "--compile",
  "--splitting",
  "--minify",
  "--bytecode",
  "--format=esm",
  // JIT tier-up thresholds scaled while the code of a start runs once (src/core/jit-policy.ts).
  `--compile-jit-policy=${STARTUP_JIT_POLICY}`,
  ...NO_AUTOLOAD_FLAGS,
] as const;

/**
 * Files mcpkit loads as separate modules at run time, which `bun build --compile` embeds only when
 * they are named as entry points: the fs stat worker thread and the thread that compiles the native
 * walk (a build without them still works: every stat on the main thread, the native walk compiled
 * by the search). Must sit under src/, beside main.ts's tree, for the binary to find them.
 */
export const MCPKIT_EXTRA_ENTRIES = [
  "src/toolsets/fs/stat-worker-thread.ts",
  "src/toolsets/fs/native-compile-thread.ts",
] as const;

/**
 * Every shipped tool's JSON Schemas converted ahead (`frozen-schemas.ts`), as JSON text. In a
 * process of its own: it loads every toolset's code, which the build process need not.
 */
async function frozenJsonSchemasText(cwd: string): Promise<string> {
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? cwd };
  const { stdout, stderr, code } = await output([process.execPath, "scripts/release/frozen-schemas.ts"], cwd, env);
  if (code !== 0) throw new Error(`converting the tools' JSON Schemas failed (exit ${code}):\n${stderr}`);
  return stdout;
}

/** Runs `command` in `cwd` to its end, with what it printed. */
async function output(
  command: string[],
  cwd: string,
  env?: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const child = Bun.spawn(command, { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}

/** The release target of the machine running this, or undefined when mcpkit has no build for it. */
export function hostTarget(): TargetName | undefined {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const name = `${os}-${process.arch}`;
  return name in TARGETS ? (name as TargetName) : undefined;
}

export function isWindows(target: TargetName): boolean {
  return target.startsWith("windows-");
}

/**
 * Compiles ENTRY into OUTFILE for TARGET (the host when omitted) with bun build, in CWD.
 * Throws with bun's own output when the build fails, since that names the broken import.
 * For mcpkit itself, resolves to how its native walk ships: `prebuiltBy` the compiler that built it
 * in, else `notPrebuilt` saying why (a target without the native walk, or no compiler for it here).
 */
export async function compile(options: {
  entry: string;
  outfile: string;
  cwd: string;
  target?: TargetName;
  flags?: readonly string[];
  /** Embed what mcpkit's build embeds (native walk, frozen schemas, extra entries); default: for src/main.ts. */
  mcpkitBuild?: boolean;
}): Promise<{ prebuiltBy?: string; notPrebuilt?: string }> {
  const mcpkit = options.mcpkitBuild ?? options.entry === "src/main.ts";
  const prebuilt = mcpkit ? prebuildNativeWalk(options.cwd, options.target) : undefined;
  const frozenSchemas = mcpkit ? await frozenJsonSchemasText(options.cwd) : undefined;
  const command = [
    process.execPath,
    "build",
    options.entry,
    ...(mcpkit ? MCPKIT_EXTRA_ENTRIES : []),
    // Read by native-thread.ts and native-compile.ts; absent, `typeof` finds it undefined.
    ...(prebuilt && "library" in prebuilt
      ? ["--define", `MCPKIT_PREBUILT_NATIVE_WALK=${JSON.stringify(Buffer.from(prebuilt.library).toString("base64"))}`]
      : []),
    // Read by src/core/json-schema.ts: the JSON text itself, an object literal in the bytecode,
    // which a start builds in about half the time JSON.parse of the same text as a string took.
    ...(frozenSchemas ? ["--define", `MCPKIT_FROZEN_JSON_SCHEMAS=${frozenSchemas}`] : []),
    ...(options.flags ?? COMPILE_FLAGS),
    ...(options.target ? [`--target=${TARGETS[options.target]}`] : []),
    "--outfile",
    options.outfile,
  ];
  const { stdout, stderr, code } = await output(command, options.cwd);
  if (code !== 0) {
    throw new Error(`bun build failed for ${options.target ?? "the host"} (exit ${code}):\n${stderr || stdout}`);
  }
  if (!prebuilt) return {};
  return "library" in prebuilt ? { prebuiltBy: prebuilt.compiler } : { notPrebuilt: prebuilt.reason };
}
