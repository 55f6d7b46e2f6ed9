/**
 * Starting the stat worker thread (`stat-worker.ts`), and starting it early for a one-shot
 * `mcpkit call fs.search_by_time`: loading the thread takes about 8 ms, as long as the rest of the
 * process's start-up, so `src/main.ts` starts it before the command line and the toolsets load
 * (`prestartStatThread`), and the search finds it ready when its walk begins instead of walking
 * the first milliseconds on one thread. Servers and other commands never start it early.
 *
 * This module imports nothing: main.ts loads it for every command, so it must cost nothing to load.
 */

/**
 * Where an fs thread's module `name` is: beside `moduleUrl` (a module of src/toolsets/fs) in the
 * sources, under the bundle's root when compiled (`scripts/release/compile.ts` MCPKIT_EXTRA_ENTRIES).
 */
export function fsThreadUrl(name: string, moduleUrl: string): URL {
  return moduleUrl.endsWith(".ts")
    ? new URL(`./${name}.ts`, moduleUrl)
    : new URL(`./toolsets/fs/${name}.js`, moduleUrl);
}

/** Where the stat thread's module is. */
export function workerUrl(moduleUrl: string = import.meta.url): URL {
  return fsThreadUrl("stat-worker-thread", moduleUrl);
}

export interface StatThread {
  worker: Worker;
  /** Counters shared with this thread (see `stat-worker.ts`): a new thread gets new ones. */
  shared: Int32Array<SharedArrayBuffer>;
  /** Set when the thread failed to load before its owner took it (its error event is gone by then). */
  failed: boolean;
}

/**
 * Starts the thread (unreferenced: an idle thread must not keep the process alive) and sends it its
 * counters. `moduleUrl` is the thread's program (tests give one that cannot load).
 */
export function startStatThread(moduleUrl: string = workerUrl().href): StatThread {
  const worker = new Worker(moduleUrl);
  const thread: StatThread = { worker, shared: new Int32Array(new SharedArrayBuffer(8)), failed: false };
  worker.onerror = () => {
    thread.failed = true;
  };
  worker.postMessage({ type: "init", shared: thread.shared.buffer });
  worker.unref();
  return thread;
}

/** The names `mcpkit call` accepts for the fs search (`TOOL_NAME` and `SEED_NAME` in `search-by-time-tool.ts`). */
const FS_TOOL_NAMES = new Set(["fs_search_by_time", "fs.search_by_time"]);

/**
 * Whether a command line is a one-shot fs search (`mcpkit [options] call fs.search_by_time …`),
 * read before the option parser: the first `call` followed by the fs tool, and no request for help.
 * A misreading costs only an idle thread; a server's command line has no `call` and never matches.
 */
export function isFsCall(argv: readonly string[]): boolean {
  const call = argv.indexOf("call");
  if (call === -1 || !FS_TOOL_NAMES.has(argv[call + 1] ?? "")) return false;
  return !argv.some((arg) => arg === "--help" || arg === "-h" || arg === "help");
}

let prestarted: StatThread | undefined;

/** Starts the thread now for a process that is about to search (see the top of this file). */
export function prestartStatThread(): void {
  try {
    prestarted ??= startStatThread();
  } catch {
    // No thread here (a build without its entry point): the search stats on its own thread.
  }
}

/** The thread `prestartStatThread` started, handed over once; undefined when none was. */
export function takePrestartedStatThread(): StatThread | undefined {
  const thread = prestarted;
  prestarted = undefined;
  return thread;
}
