/**
 * The time search's walk in C (`native-walk.c`), which takes over a long search without a glob on
 * Linux with glibc: the fast path. A one-shot search of 200,000 files spends most of its time in
 * JavaScript's cold start, not in the kernel: every entry passes interpreted code and FFI calls
 * before the JIT has compiled them, the JIT's threads take a core to compile them, and the second
 * thread is a whole JavaScript VM to start. Here POSIX threads list and stat the tree, and
 * JavaScript sees only the entries whose time is in the range, already stat'ed (`scripts/bench/
 * fs-search.ts` times both).
 *
 * A search starts in JavaScript (`walk.ts`) and hands the directories still to visit over as soon
 * as the C is ready: at once when the binary embeds it compiled ahead (a Linux release), else once
 * compiled by the thread a one-shot search starts with its process (`native-thread.ts`), or by an
 * earlier search of a server. Otherwise it compiles it itself after `HAND_OFF_MS` of walking
 * (5–8 ms, more than a small search takes). `--fs-native-walk N` hands over after N ms, `off` keeps
 * every search in JavaScript. The native walk walks as `walk.ts` does, and tests hold the two to
 * the same answers (`test/fs/native-walk.test.ts`): each directory opened relative to its open
 * parent without following a link, links never followed nor reported, directories whose names are
 * not UTF-8 skipped, unreadable ones counted, and so are entries whose stat is refused (a directory
 * listed but not searchable) and their directories. Ranking, paging and the filters' exact edges stay in
 * `collector.ts`; C drops only what is out of the range by whole seconds. Compiling is
 * `native-compile.ts`'s; where it fails (no glibc, no TinyCC, no writable temporary directory) the
 * JavaScript walk simply goes on.
 *
 * The threads walk while this thread waits for records in slices (`DRAIN_WAIT_MS`), yielding to
 * the event loop between them, so cancellation, progress and other requests go on, and the walk
 * stops at the call's deadline. Memory stays bounded: the threads wait when the record buffer
 * (1 MB) is full until this thread has drained it.
 */
import { availableParallelism } from "node:os";
import type { StatedBatch, StatFields } from "./collector.ts";
import { type DirectoryAccess, OPEN_CHILD_CLOEXEC } from "./directories.ts";
import { STATX_FLAGS, STATX_MASK, STATX_WORD, StatxFields } from "./entry-stat.ts";
import { libc } from "./libc.ts";
import { exactNameText } from "./listing.ts";
import {
  compileNativeWalk,
  linkNativeWalk,
  loadPrebuiltNativeWalk,
  type NativePointers,
  type NativeSymbols,
  pointerOf,
} from "./native-compile.ts";
import { COMPILED, type NativeCompile, prebuiltNativeWalk, prestartedNativeCompile, STATE } from "./native-thread.ts";
import { nativeThreads } from "./native-budget.ts";
import type { StatSink } from "./stat-sink.ts";
import { emptyOutcome, type WalkOutcome, type WalkRequest } from "./walk.ts";

/**
 * How long a search walks in JavaScript before the native walk takes over when it must compile it
 * itself (see the top): a search of a few thousand files is over by then.
 */
const HAND_OFF_MS = 10;
/** Longest wait for the compiling thread (`native-thread.ts`) before compiling here instead. */
const COMPILE_THREAD_WAIT_MS = 1_000;
/**
 * Deepest walk taken here: a record's path must fit the C side's 64 KiB stage, and a name takes up
 * to 765 bytes (255 UTF-16 units on exFAT, vfat, NTFS). The default --fs-max-depth.
 */
export const NATIVE_MAX_DEPTH = 64;
/**
 * Threads one walk starts. Four at least, whatever the cores: with a cold page cache each waits on
 * the disk, and 4 walked 200k files in 595 ms where 2 took 670 (warm, 4 on 2 cores cost nothing
 * measurable: 178 vs 174 ms). All walks together stay within `NATIVE_THREAD_BUDGET`.
 */
const THREADS_PER_WALK = Math.min(8, Math.max(4, availableParallelism()));
/** How long this thread waits for records before it looks at the clock, the signal and progress again. */
const DRAIN_WAIT_MS = 10;
const PROGRESS_INTERVAL_MS = 100;
/** As in native-walk.c. */
const MAX_THREADS = 8;
const RECORD_BYTES = 1 << 20;
const COUNTS_BYTES = 4096;
const HEADER = 16;
const STATX_BYTES = 256;
const SLOT = {
  scannedFiles: 0,
  scannedDirectories: 1,
  unreadable: 2,
  undecodableDirectories: 3,
  outOfDescriptors: 4,
  depthLimited: 5,
  finished: 6,
  behind: 7,
  keptBound: 8,
  since: 9,
  unsearchableEntries: 10,
  unsearchableDirectories: 11,
  count: 12,
} as const;

/** The walk's functions, and where they were compiled (for the debug log; tests read it). */
export interface CompiledWalk {
  symbols: NativeSymbols;
  compiledBy: "prebuilt" | "compile thread" | "search";
  /** Loaded or compiled here: the library, referenced for the process's life as its code must be. */
  library?: unknown;
}

let compiled: CompiledWalk | null | undefined;

/**
 * The compiled walk, or undefined where it cannot run (see the top of this file), once per process:
 * the binary's prebuilt one, else the compiling thread's when one was started (waiting for it if
 * it is not done yet), else compiled here.
 */
function native(): CompiledWalk | undefined {
  if (compiled !== undefined) return compiled ?? undefined;
  compiled = null;
  if (process.platform !== "linux" || !libc()) return undefined;
  compiled = loadedPrebuilt() ?? fromCompileThread() ?? compiledHere() ?? null;
  return compiled ?? undefined;
}

function loadedPrebuilt(): CompiledWalk | undefined {
  const loaded = prebuiltNativeWalk() ? loadPrebuiltNativeWalk() : undefined;
  return loaded && { symbols: loaded.symbols, compiledBy: "prebuilt", library: loaded.library };
}

function fromCompileThread(): CompiledWalk | undefined {
  const thread = prestartedNativeCompile();
  if (!thread) return undefined;
  Atomics.wait(thread.state, STATE, 0, COMPILE_THREAD_WAIT_MS);
  if (Atomics.load(thread.state, STATE) !== COMPILED) return undefined;
  const symbols = linkNativeWalk([...thread.pointers] as NativePointers);
  return symbols && { symbols, compiledBy: "compile thread" };
}

function compiledHere(): CompiledWalk | undefined {
  const here = compileNativeWalk();
  return here && { symbols: here.symbols, compiledBy: "search", library: here.library };
}

/** Where the walk's code came from, once a search has used it (undefined before). */
export function nativeCompiledBy(): CompiledWalk["compiledBy"] | undefined {
  return compiled ? compiled.compiledBy : undefined;
}

/** `--fs-native-walk`: `auto`, `off`, or after how many ms of walking in JavaScript to hand over. */
export type NativeWalkSetting = "auto" | "off" | number;

/**
 * When `request` hands over to the native walk, as a test of the ms it has walked in JavaScript,
 * or undefined when it cannot (a glob, which only the JavaScript walk matches; too deep; no
 * descriptor walk; not Linux; `off`; a compile that failed). `auto`: at once when the code is ready (prebuilt,
 * compiled by an earlier search of a server, or by the compiling thread of a one-shot search), else
 * after `HAND_OFF_MS`. Nothing is compiled yet.
 */
export function nativeHandOffDue(
  request: Pick<WalkRequest, "glob" | "maxDepth">,
  access: DirectoryAccess,
  setting: NativeWalkSetting,
): ((walkedMs: number) => boolean) | undefined {
  // `compiled === null`: it could not be compiled here, so the search keeps its worker thread instead.
  if (setting === "off" || process.platform !== "linux" || compiled === null) return undefined;
  if (request.glob !== undefined || request.maxDepth > NATIVE_MAX_DEPTH || access.kind !== "descriptor")
    return undefined;
  if (typeof setting === "number") return (walkedMs) => walkedMs >= setting;
  const thread: NativeCompile | undefined = prestartedNativeCompile();
  const prebuilt = prebuiltNativeWalk();
  return (walkedMs) =>
    compiled !== undefined ||
    prebuilt ||
    (thread !== undefined && Atomics.load(thread.state, STATE) !== 0) ||
    walkedMs >= HAND_OFF_MS;
}

/** A directory the native walk starts from. */
export interface NativeStart {
  /** Open (the caller keeps it open until `nativeWalk` returns): the directory itself when `direct`, else its parent. */
  fd: number;
  direct: boolean;
  /** The directory's path below the search's start ("" for the start); its last segment is the name opened. */
  relative: string;
  /** The level of its entries (the start's are at 1). */
  depth: number;
}

/** The starts as native-walk.c's `queue_items` reads them. */
function encodeStarts(starts: readonly NativeStart[]): Uint8Array {
  const paths = starts.map((start) => Buffer.from(start.relative));
  const bytes = new Uint8Array(4 + paths.reduce((sum, path) => sum + 20 + ((path.length + 3) & ~3), 0));
  const view = new DataView(bytes.buffer);
  view.setInt32(0, starts.length, true);
  let at = 4;
  starts.forEach((start, index) => {
    const path = paths[index];
    const slash = path.lastIndexOf(0x2f);
    for (const value of [start.fd, start.direct ? 1 : 0, start.depth, path.length, slash + 1]) {
      view.setInt32(at, value, true);
      at += 4;
    }
    bytes.set(path, at);
    at += (path.length + 3) & ~3;
  });
  return bytes;
}

/** native-walk.c's `struct settings`: twelve 32-bit integers, then four doubles (at 48), in this machine's byte order. */
const SETTINGS_BYTES = 80;

/** What the walk is asked, as native-walk.c `struct settings` reads it. */
function encodeSettings(request: NativeRequest, { timeField, from, to, oldestFirst, keeps }: NativeSearch): Uint8Array {
  const bytes = new Uint8Array(SETTINGS_BYTES);
  new Int32Array(bytes.buffer, 0, 12).set([
    OPEN_CHILD_CLOEXEC,
    STATX_FLAGS,
    STATX_MASK,
    request.maxDepth,
    request.maxDepthIsServerLimit ? 1 : 0,
    request.includeFiles ? 1 : 0,
    request.includeDirectories ? 1 : 0,
    timeField === "created" ? STATX_WORD.btime : STATX_WORD.mtime,
    oldestFirst ? -1 : 1,
    THREADS_PER_WALK,
    keeps ?? 0,
    0,
  ]);
  new Float64Array(bytes.buffer, 48, 4).set([
    // Whole seconds that may hold a time in the range, then (count_from, count_to) those that surely
    // do. A time in ms is seconds * 1000 + ns / 1e6 in a double (`statxWordsMs`), which rounds a
    // time just below the next second up to it: a second each way is left to JavaScript.
    from === null ? Number.NEGATIVE_INFINITY : Math.floor(from / 1000) - 1,
    to === null ? Number.POSITIVE_INFINITY : Math.ceil(to / 1000),
    from === null ? Number.NEGATIVE_INFINITY : Math.ceil(from / 1000),
    to === null ? Number.POSITIVE_INFINITY : Math.floor(to / 1000) - 1,
  ]);
  return bytes;
}

/** The records of one drain, read in place: the batch a collector ranks, and each entry's stat. */
class Records implements StatedBatch {
  count = 0;
  private readonly starts: number[] = [];
  private readonly fields: StatxFields;
  private readonly words: Uint32Array;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly startPrefix: string,
  ) {
    this.fields = new StatxFields(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }

  /** Indexes the records in the first `length` bytes. */
  fill(length: number): this {
    const { starts, words } = this;
    starts.length = 0;
    for (let at = 0; at < length; at += words[at / 4]) starts.push(at);
    this.count = starts.length;
    return this;
  }

  select(index: number): StatFields {
    this.fields.base = this.starts[index] + HEADER;
    return this.fields;
  }

  exactName(index: number): string | undefined {
    const at = this.starts[index];
    const path = this.bytes.subarray(at + HEADER + STATX_BYTES, at + HEADER + STATX_BYTES + this.words[at / 4 + 1]);
    try {
      return this.startPrefix + exactNameText.decode(path);
    } catch {
      return undefined; // not valid UTF-8: no path names it faithfully (the collector counts it)
    }
  }

  hasExactName(index: number): boolean {
    return this.words[this.starts[index] / 4 + 3] === 0; // native-walk.c checks the name
  }

  isDirectory(index: number): boolean {
    return this.words[this.starts[index] / 4 + 2] === 1;
  }
}

/** What the native walk needs of the search: the JavaScript walk's request without its consumer. */
export type NativeRequest = Omit<WalkRequest, "accept" | "root" | "start" | "access">;

/** Where the native walk's finds go: a collector, or the search's stat sink in front of one. */
export type NativeRanking = Pick<StatSink, "acceptStated" | "keptBound" | "addBehind">;

/** What the native walk is to find, besides the walk itself. */
export interface NativeSearch {
  ranking: NativeRanking;
  /** Goes before every path: the search's start below the root ("" or ending in "/"). */
  startPrefix: string;
  timeField: "modified" | "created";
  from: number | null;
  to: number | null;
  /**
   * Oldest first: entries later than the worst kept one are behind it (else earlier ones). Whether
   * any is settled so at all is the ranking's call (`keptBound`: not by path).
   */
  oldestFirst: boolean;
  /**
   * On a cursor's page, when paging began (ms, `CursorState.since`): an entry behind the kept ones
   * counts only if its status changed before then, and one changed since is dropped (collector.ts
   * `consider`); null on a first page.
   */
  pagingSince: number | null;
  /** Entries the JavaScript walk scanned before, added to progress. */
  scannedBefore: number;
  /**
   * On a first page ranked by time, how many entries the ranking keeps (the page's limit): C then
   * also counts, without sending, what is behind the best that many it has sent itself, so this
   * thread ranks about `keeps` records rather than every match (native-walk.c `note_sent`). Only
   * where every sent entry whose time is surely in the range is ranked: never on a cursor's page
   * (which drops entries of earlier pages and ones changed since), nor by path.
   */
  keeps?: number;
}

/**
 * Walks the directories below `starts` with the native walk, ranking what it finds; undefined when
 * the native walk cannot run here (then nothing was walked). C drops what is out of the range by
 * whole seconds, and counts without sending what the ranking already leaves behind (`keptBound`),
 * so only the entries that may make the page cross to JavaScript.
 */
export async function nativeWalk(
  request: NativeRequest,
  starts: readonly NativeStart[],
  search: NativeSearch,
): Promise<WalkOutcome | undefined> {
  const compiledWalk = native();
  if (!compiledWalk) return undefined;
  const outcome = emptyOutcome();
  // Threads (and the buffers below) only once the process-wide budget has them (`native-budget.ts`).
  const granted = nativeThreads.acquire(THREADS_PER_WALK, request.signal, request.deadline - performance.now());
  const lease = granted instanceof Promise ? await granted : granted;
  if (lease === "cancelled") outcome.cancelled = true;
  if (lease === "deadline") outcome.budgetExhausted = true;
  if (typeof lease === "string") return outcome;
  try {
    return await leasedWalk(request, starts, search, compiledWalk, outcome);
  } finally {
    lease.release();
  }
}

/** `nativeWalk` once its threads are granted. */
async function leasedWalk(
  request: NativeRequest,
  starts: readonly NativeStart[],
  search: NativeSearch,
  firstCompiled: CompiledWalk,
  outcome: WalkOutcome,
): Promise<WalkOutcome | undefined> {
  let compiledWalk: CompiledWalk | undefined = firstCompiled;
  const { oldestFirst } = search;
  // The walk's counts and its record area, written by its threads: this thread's memory (large
  // enough to lie outside the garbage-collected heap, so it never moves), held until walk_finish.
  const shared = new ArrayBuffer(COUNTS_BYTES + RECORD_BYTES);
  const counts = new Float64Array(shared, 0, (MAX_THREADS + 1) * SLOT.count);
  const records = new Records(new Uint8Array(shared, COUNTS_BYTES, RECORD_BYTES), search.startPrefix);
  // Nothing behind yet, unless the ranking already keeps `limit` (the JavaScript walk's share).
  counts[SLOT.keptBound] = oldestFirst ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  // In seconds, as C compares it with ctime's (before walk_start: its threads read it unlocked).
  counts[SLOT.since] = search.pagingSince === null ? Number.POSITIVE_INFINITY : search.pagingSince / 1000;
  publishKeptBound(counts, search.ranking);
  // Referenced until walk_start has read them: a buffer only its address points to could be collected first.
  const items = encodeStarts(starts);
  const settings = encodeSettings(request, search);
  const start = ({ symbols }: CompiledWalk) =>
    symbols.walk_start(pointerOf(items), pointerOf(settings), pointerOf(new Uint8Array(shared)));
  let walk = start(compiledWalk);
  if (!walk && compiledWalk.compiledBy === "prebuilt") {
    // A library that loads but cannot start a walk (built for another libc, say): TinyCC's from now on.
    compiled = compiledHere() ?? null;
    compiledWalk = compiled ?? undefined;
    walk = compiledWalk ? start(compiledWalk) : 0;
  }
  items.fill(0); // read (and their use keeps them alive until here)
  settings.fill(0);
  if (!walk || !compiledWalk) return undefined; // no memory or no thread: the JavaScript walk goes on
  const { symbols } = compiledWalk;
  try {
    await drain(request, symbols, walk, counts, records, search, outcome);
  } finally {
    symbols.walk_finish(walk);
    readCounts(counts, outcome);
    search.ranking.addBehind(sumOf(counts, SLOT.behind));
  }
  return outcome;
}

/** Ranks the walk's records as they come, until it ends, runs out of time or is cancelled. */
async function drain(
  request: NativeRequest,
  symbols: NativeSymbols,
  walk: number,
  counts: Float64Array,
  records: Records,
  { ranking, scannedBefore }: NativeSearch,
  outcome: WalkOutcome,
): Promise<void> {
  let lastProgress = performance.now();
  for (;;) {
    const now = performance.now();
    if (now >= request.deadline) {
      outcome.budgetExhausted = true;
      return;
    }
    if (request.signal.aborted) {
      outcome.cancelled = true;
      return;
    }
    if (request.onProgress && now - lastProgress >= PROGRESS_INTERVAL_MS) {
      lastProgress = now;
      readCounts(counts, outcome);
      request.onProgress(scannedBefore + outcome.scannedFiles + outcome.scannedDirectories);
    }
    const length = symbols.walk_drain(walk, Math.max(1, Math.min(DRAIN_WAIT_MS, Math.ceil(request.deadline - now))));
    if (length > 0) {
      ranking.acceptStated(records.fill(length));
      outcome.nativeRecords += records.count;
      publishKeptBound(counts, ranking);
    }
    if (counts[SLOT.finished] === 1) return;
    // Lets the event loop in (cancellation, progress, other requests) between two waits.
    await new Promise<void>((resume) => setImmediate(resume));
  }
}

/**
 * Tells C the whole second (native-walk.c KEPT_BOUND) before which (newest first) or after which
 * (oldest first) an entry is surely behind the worst kept time, once the ranking keeps `limit`.
 * Newest first, a second is left to JavaScript: a time just below a second rounds up to it (see
 * `nativeWalk`).
 */
function publishKeptBound(counts: Float64Array, ranking: NativeRanking): void {
  const bound = ranking.keptBound();
  if (bound) counts[SLOT.keptBound] = Math.floor(bound.time / 1000) - (bound.descending ? 1 : 0);
}

/** One count summed over the threads' rows (after the walk's own). */
function sumOf(counts: Float64Array, slot: number): number {
  let total = 0;
  for (let row = 1; row <= MAX_THREADS; row++) total += counts[row * SLOT.count + slot];
  return total;
}

/** The threads' counts, summed into `outcome`. */
function readCounts(counts: Float64Array, outcome: WalkOutcome): void {
  outcome.scannedFiles = sumOf(counts, SLOT.scannedFiles);
  outcome.scannedDirectories = sumOf(counts, SLOT.scannedDirectories);
  outcome.unreadableDirectories = sumOf(counts, SLOT.unreadable);
  outcome.unsearchableDirectories = sumOf(counts, SLOT.unsearchableDirectories);
  outcome.unsearchableEntries = sumOf(counts, SLOT.unsearchableEntries);
  outcome.undecodableDirectories = sumOf(counts, SLOT.undecodableDirectories);
  outcome.outOfDescriptors = sumOf(counts, SLOT.outOfDescriptors) > 0;
  outcome.depthLimited = sumOf(counts, SLOT.depthLimited) > 0;
}
