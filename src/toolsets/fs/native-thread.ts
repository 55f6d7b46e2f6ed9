/**
 * Compiling the native walk (`native-walk.ts`) on a thread of its own while a one-shot
 * `mcpkit call fs.search_by_time` starts: compiling takes 5–8 ms, as long as the rest of the
 * process's start-up, so `src/main.ts` starts the thread before the command line and the toolsets
 * load (`prestartNativeCompile`), and the search links the compiled functions (about 0.1 ms) when it
 * hands its walk over instead of compiling them itself. The thread stays for the process's life:
 * the compiled code is its memory. Servers compile on their first long search instead.
 *
 * It imports only `stat-thread.ts` and `private-directory.ts`, which import nothing at load (node's
 * modules are required when used): main.ts loads it for every command, so it must cost nothing to load.
 */
import { makePrivateDirectory } from "./private-directory.ts";
import { fsThreadUrl } from "./stat-thread.ts";

/** `state[STATE]`: 0 while compiling, then COMPILED (the addresses are in `pointers`) or COMPILE_FAILED. */
export const STATE = 0;
export const COMPILED = 1;
export const COMPILE_FAILED = 2;

export interface NativeThreadMessage {
  state: SharedArrayBuffer;
  pointers: SharedArrayBuffer;
  /** A fresh private directory for the C source (`compileNativeWalk`). */
  directory: string;
}

export interface NativeCompile {
  state: Int32Array<SharedArrayBuffer>;
  /** The three functions' addresses (native-compile.ts `NativePointers`). */
  pointers: Float64Array<SharedArrayBuffer>;
}

/**
 * Whether a one-shot fs search will likely hand its walk to the native walk, read from the raw
 * command line like `isFsCall` (`stat-thread.ts`): on Linux, without a glob (which only the
 * JavaScript walk matches), unless the native walk is off or the arguments come from stdin.
 */
export function likelyNativeWalk(argv: readonly string[], env: Record<string, string | undefined>): boolean {
  if (process.platform !== "linux" || env.MCPKIT_FS_NATIVE_WALK?.trim() === "off") return false;
  return !argv.some(
    (arg, index) =>
      arg === "-" ||
      arg.includes('"glob"') ||
      arg === "--fs-native-walk=off" ||
      (arg === "--fs-native-walk" && argv[index + 1] === "off"),
  );
}

/**
 * Whether the walk comes compiled inside this binary (a Linux release built where a C compiler
 * was: `native-compile.ts` `loadPrebuiltNativeWalk`), so no thread compiles it, unless
 * `MCPKIT_FS_NATIVE_PREBUILT=off` asks for TinyCC (to compare the two, or to step around a library that misbehaves).
 */
export function prebuiltNativeWalk(env: Record<string, string | undefined> = process.env): boolean {
  return typeof MCPKIT_PREBUILT_NATIVE_WALK === "string" && env.MCPKIT_FS_NATIVE_PREBUILT?.trim() !== "off";
}

let started: NativeCompile | undefined;

/**
 * Starts the compiling thread now, once (see the top of this file), unless the binary has the walk
 * prebuilt; a failure only costs the search the compile.
 */
export function prestartNativeCompile(): void {
  if (started || prebuiltNativeWalk()) return;
  try {
    const compile: NativeCompile = {
      state: new Int32Array(new SharedArrayBuffer(4)),
      pointers: new Float64Array(new SharedArrayBuffer(24)),
    };
    const directory = privateDirectoryUntilExit();
    if (!directory) return; // nowhere safe to write the C: the search stays in JavaScript
    const worker = new Worker(fsThreadUrl("native-compile-thread", import.meta.url).href);
    worker.onerror = () => {
      // A thread that failed to load; once compiled it has nothing left to fail.
      Atomics.compareExchange(compile.state, STATE, 0, COMPILE_FAILED);
      Atomics.notify(compile.state, STATE);
    };
    worker.postMessage({
      state: compile.state.buffer,
      pointers: compile.pointers.buffer,
      directory,
    } satisfies NativeThreadMessage);
    worker.unref();
    started = compile;
  } catch {
    // No thread here (a build without its entry point): the search compiles when it hands over.
  }
}

/**
 * A fresh private directory (`private-directory.ts`) for the compiling thread's copy of the C,
 * which this thread removes when the process exits: a search that ends while the thread still
 * compiles exits the process under it, and the thread's own removal never runs. SIGTERM, which
 * would end the process without its exit listeners, exits through them (status 143, as the signal).
 */
function privateDirectoryUntilExit(): string | undefined {
  const directory = makePrivateDirectory("mcpkit-walk-");
  if (!directory) return undefined;
  process.once("exit", () => {
    try {
      (require("node:fs") as typeof import("node:fs")).rmSync(directory, { recursive: true, force: true });
    } catch {
      // a few kilobytes left in the temporary directory; never a failed command
    }
  });
  process.once("SIGTERM", () => process.exit(143));
  return directory;
}

/** The compile `prestartNativeCompile` started, if any. */
export function prestartedNativeCompile(): NativeCompile | undefined {
  return started;
}
