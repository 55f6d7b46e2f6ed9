/**
 * One `fs_search_by_time` call once the root and start directory are known: argument semantics,
 * the walk, ranking, paging and the result docs/contracts/fs-search-by-time.md describes.
 */
import { spanEvent, telemetryOn } from "../../core/telemetry/index.ts";
import { argumentErrorResult, errorResult, type ToolContext, type ToolResult } from "../../core/tool.ts";
import { type Candidate, type Collected, type CollectorConfig, comparatorFor } from "./collector.ts";
import type { CursorCodec, CursorState } from "./cursor.ts";
import { type DirectoryAccess, directoryAccess, reportUnanchoredWalk } from "./directories.ts";
import { compileGlob, type GlobMatcher } from "./glob.ts";
import { presentResult } from "./result-text.ts";
import { risingProgress } from "./progress.ts";
import { type StartPoint, openingPath } from "./roots.ts";
import type { SearchArguments, SearchMatch, SearchOutput } from "./schema.ts";
import {
  type NativeSearch,
  type NativeWalkSetting,
  nativeCompiledBy,
  nativeHandOffDue,
  nativeWalk,
} from "./native-walk.ts";
import { openStatSink, type StatSink } from "./stat-sink.ts";
import type { StatWorker } from "./stat-worker.ts";
import { formatIso, parseDateTime } from "./time.ts";
import { type HandOff, type WalkOutcome, type WalkRequest, walk } from "./walk.ts";

/** Longest lag of the kernel's coarse clock behind the real time (one tick at HZ=100), plus margin. */
const CLOCK_TICK_MS = 12;

export const INVALID_RANGE = "Invalid range: 'from' must be earlier than 'to'.";

export interface SearchLimits {
  /** The server's maximum depth (--fs-max-depth). */
  maxDepth: number;
  /** Per-call time budget in ms (--fs-time-budget-ms), covering every phase of the call. */
  budgetMs: number;
}

export interface SearchDependencies {
  limits: SearchLimits;
  cursors: CursorCodec;
  /** Shares the stat calls of long searches; undefined to stat on the calling thread only. */
  statWorker: StatWorker | undefined;
  /** When a long search hands over to the native walk (`--fs-native-walk`). */
  nativeWalk: NativeWalkSetting;
}

/** Everything a call's arguments decide, checked and parsed. */
export interface Query {
  args: SearchArguments;
  start: StartPoint;
  from: number | null;
  to: number | null;
  glob: GlobMatcher | undefined;
  /** Depth actually walked: the caller's, capped by the server's. */
  maxDepth: number;
  /** Whether the server's cap (not the caller's maxDepth) decided `maxDepth`. */
  depthCappedByServer: boolean;
  resume: CursorState | undefined;
  /** Entries whose inode changes at or after this (ms) are left out of later pages. */
  since: number;
  /** `performance.now()` at which the time budget runs out. */
  deadline: number;
}

export async function searchByTime(
  args: SearchArguments,
  start: StartPoint,
  dependencies: SearchDependencies,
  context: ToolContext,
  startedAt: number,
): Promise<ToolResult> {
  const query = readQuery(args, start, dependencies, startedAt);
  if (typeof query === "string") return argumentErrorResult(query);
  const { outcome, collected } = await collect(query, dependencies, context);
  if (outcome.startUnreadable) {
    return errorResult(
      `'path' "${args.path ?? ""}" could not be opened under the root ${start.root.given} (it changed or is unreadable); check it and call again.`,
    );
  }
  reportLimits(query, outcome, dependencies.limits, context);
  const kept = collected.kept.sort(comparatorFor(args.sort));
  const last = kept.at(-1);
  const nextCursor =
    collected.offered > args.limit && last
      ? dependencies.cursors.encode(queryKey(query, args.limit), { position: last, since: query.since })
      : null;
  if (!query.resume && nextCursor !== null) {
    // File systems stamp ctime from a clock that lags by up to one kernel tick, so a change made
    // right after this page could carry a ctime below `since`. Answering no sooner than one tick
    // after `since` makes every later change's ctime land at or after it.
    const settle = query.since + CLOCK_TICK_MS - Date.now();
    if (settle > 0) await Bun.sleep(settle);
  }
  const structured: SearchOutput = {
    timeField: args.timeField,
    range: {
      from: query.from === null ? null : formatIso(query.from),
      to: query.to === null ? null : formatIso(query.to),
    },
    matches: kept.map(toMatch),
    nextCursor,
    stats: {
      scannedFiles: outcome.scannedFiles,
      scannedDirectories: outcome.scannedDirectories,
      returned: kept.length,
      // Only when some were, as the text says it (clients that show a model only this half).
      ...(outcome.unsearchableDirectories > 0
        ? {
            unsearchableDirectories: outcome.unsearchableDirectories,
            unsearchableEntries: outcome.unsearchableEntries,
          }
        : {}),
    },
    // Both halves state it, for a model to compute `from` and `to` from: Claude Code and VS Code
    // show it only structuredContent.
    serverTime: formatIso(Math.floor(Date.now() / 1000) * 1000),
  };
  return presentResult({
    query,
    outcome,
    structured,
    unknownTimeSkipped: collected.unknownTimeSkipped,
    undecodableSkipped: collected.undecodableSkipped + outcome.undecodableEntries,
    limits: dependencies.limits,
    outputBudget: context.outputBudget,
    // The cursor that continues right after the i-th match, for a page shortened to the output budget.
    cursorAfter: (shown) =>
      dependencies.cursors.encode(queryKey(query, args.limit), { position: kept[shown - 1], since: query.since }),
  });
}

/** Parses dates, the glob, depth and the cursor; a string is the isError sentence. */
function readQuery(
  args: SearchArguments,
  start: StartPoint,
  dependencies: SearchDependencies,
  startedAt: number,
): Query | string {
  const from = readDate(args.from, "from");
  if (typeof from === "string") return from;
  const to = readDate(args.to, "to");
  if (typeof to === "string") return to;
  if (from !== null && to !== null && from >= to) return INVALID_RANGE;
  const requestedDepth = args.recursive ? (args.maxDepth ?? Number.POSITIVE_INFINITY) : 1;
  const maxDepth = Math.min(requestedDepth, dependencies.limits.maxDepth);
  // The depth bounds what a glob may cost: a "**" tries every split of a path, and deeper paths have more.
  const glob = args.glob === undefined ? undefined : compileGlob(args.glob, maxDepth);
  if (typeof glob === "string") return glob;
  const query: Query = {
    args,
    start,
    from,
    to,
    glob,
    maxDepth,
    depthCappedByServer: dependencies.limits.maxDepth < requestedDepth,
    resume: undefined,
    // +1: every entry that existed unchanged before this call has a ctime below it.
    since: Date.now() + 1,
    deadline: startedAt + dependencies.limits.budgetMs,
  };
  if (args.cursor !== undefined) {
    const decoded = dependencies.cursors.decode(queryKey(query, args.limit), args.cursor);
    if (!decoded.ok) return decoded.message;
    query.resume = decoded.state;
    query.since = decoded.state.since;
  }
  return query;
}

/** Everything that decides the result set and its order; a cursor only fits the same query. */
function queryKey({ args, start, from, to }: Query, limit: number): string {
  return JSON.stringify([
    start.root.real,
    start.relative,
    args.timeField,
    from,
    to,
    args.glob ?? null,
    args.recursive,
    args.maxDepth ?? null,
    args.includeFiles,
    args.includeDirectories,
    args.sort,
    limit,
    args.includeUnknownTime,
  ]);
}

/**
 * Walks and ranks, as build -> run -> join: the walk feeds one sink (`stat-sink.ts`), which stats
 * on this thread or shares the work with the worker thread; joining it merges both shares. A long
 * walk without a glob hands the rest over to the native walk (`native-walk.ts`), whose records go
 * to the same sink.
 */
async function collect(
  query: Query,
  { statWorker, nativeWalk: nativeWalkSetting }: SearchDependencies,
  context: ToolContext,
): Promise<{ outcome: WalkOutcome; collected: Collected }> {
  const access = directoryAccess();
  const startPrefix = query.start.relative === "" ? "" : `${query.start.relative}/`;
  const due = nativeHandOffDue({ glob: query.glob, maxDepth: query.maxDepth }, access, nativeWalkSetting);
  // Only a recursive walk can be long enough to need the second thread, and not one the native
  // walk will take over: loading the thread would take CPU from the compile and the hand-off.
  const sink = openStatSink(collectorConfig(query), startPrefix, query.maxDepth > 1 && !due ? statWorker : undefined);
  const walkStarted = performance.now();
  const request = walkRequest(query, context, sink, access);
  const native = { handedOff: false };
  if (due) request.handOff = nativeHandOff(query, startPrefix, request, due, sink, native);
  const walked = await walk(request).catch((failure: unknown) => ({ failure }));
  // Also after a failure (see `StatSink.join`).
  const collected = await sink.join();
  if ("failure" in walked) throw walked.failure;
  if (!collected) throw new Error("the stat worker stopped unexpectedly");
  // The walk counted what it stat'ed itself (types, the native walk), the collector the rest. A directory is in
  // both only if some of its entries were typed by the listing and others not, which no file system here does.
  walked.unsearchableEntries += collected.unsearchableEntries;
  walked.unsearchableDirectories += collected.unsearchableDirectories.length;
  logWalk(context, walked, sink, native.handedOff, performance.now() - walkStarted);
  if (walked.cancelled) throw new Error("search cancelled by the client");
  return { outcome: walked, collected };
}

/**
 * How a long walk hands the directories still to visit to the native walk once `due`, its records
 * going to `sink`; `taken.handedOff` records that it did.
 */
function nativeHandOff(
  { args, from, to, resume }: Query,
  startPrefix: string,
  request: WalkRequest,
  due: HandOff["due"],
  sink: StatSink,
  taken: { handedOff: boolean },
): HandOff {
  const search: Omit<NativeSearch, "scannedBefore"> = {
    ranking: sink,
    startPrefix,
    timeField: args.timeField,
    from,
    to,
    oldestFirst: args.sort === "time_asc",
    pagingSince: resume?.since ?? null,
    keeps: resume || args.sort === "path_asc" ? undefined : args.limit,
  };
  return {
    due,
    async run(pending, scannedBefore) {
      const starts = pending.map(({ parent, relative, level }) => ({
        fd: parent.fd,
        direct: false,
        relative,
        depth: level + 1,
      }));
      const outcome = await nativeWalk(request, starts, { ...search, scannedBefore });
      taken.handedOff = outcome !== undefined;
      return outcome;
    },
  };
}

function collectorConfig({ args, from, to, resume }: Query): CollectorConfig {
  return {
    timeField: args.timeField,
    from,
    to,
    includeUnknownTime: args.includeUnknownTime,
    sort: args.sort,
    limit: args.limit,
    resume: resume ?? null,
  };
}

/** What to walk and which entries to hand to `sink`: the query's start, depth, glob, types and deadline. */
function walkRequest(query: Query, context: ToolContext, sink: StatSink, access: DirectoryAccess): WalkRequest {
  const { args, start } = query;
  reportUnanchoredWalk((message) => context.log.warn(message));
  return {
    ...openingPath(start.root, start.relative),
    access,
    maxDepth: query.maxDepth,
    maxDepthIsServerLimit: query.depthCappedByServer,
    glob: query.glob,
    includeFiles: args.includeFiles,
    includeDirectories: args.includeDirectories,
    deadline: query.deadline,
    signal: context.signal,
    onProgress: risingProgress((scanned) =>
      context.reportProgress({ progress: scanned, message: `Scanned ${scanned} entries so far` }),
    ),
    accept: (directory, relativePrefix, batch) => sink.accept(directory, relativePrefix, batch),
  };
}

function logWalk(context: ToolContext, outcome: WalkOutcome, sink: StatSink, handedOff: boolean, ms: number): void {
  const scanned = { scannedFiles: outcome.scannedFiles, scannedDirectories: outcome.scannedDirectories };
  context.log.debug(`${context.calledAs} walked`, {
    ms: Math.round(ms),
    ...scanned,
    // Tests read it: the native walk took over (the fast path), compiled by whom.
    walker: handedOff ? "javascript+native" : "javascript",
    // Tests read it too: on a first page C sends about `limit` of the matches (native-walk.c `keep`).
    ...(handedOff ? { compiledBy: nativeCompiledBy(), nativeRecords: outcome.nativeRecords } : {}),
    workerBatches: sink.workerBatches,
    workerParcels: sink.workerParcels,
  });
  if (outcome.cancelled) context.log.info(`${context.calledAs} cancelled`, scanned);
  if (!telemetryOn()) return;
  spanEvent("mcpkit.fs.walk", {
    "mcpkit.walk_ms": Math.round(ms),
    "mcpkit.scanned_files": outcome.scannedFiles,
    "mcpkit.scanned_directories": outcome.scannedDirectories,
  });
}

/** Tells the client's log what limited this search (one message each, never one per directory). */
function reportLimits(query: Query, outcome: WalkOutcome, limits: SearchLimits, context: ToolContext): void {
  const data = { scannedFiles: outcome.scannedFiles, scannedDirectories: outcome.scannedDirectories };
  if (outcome.budgetExhausted) {
    context.notify(
      "warning",
      "fs",
      `${context.calledAs}: stopped at the time budget of ${limits.budgetMs} ms; results are partial.`,
      data,
    );
  }
  if (outcome.depthLimited) {
    context.notify(
      "warning",
      "fs",
      `${context.calledAs}: directories deeper than ${query.maxDepth} levels were not searched (server limit --fs-max-depth).`,
      data,
    );
  }
  if (outcome.unreadableDirectories > 0) {
    const count = outcome.unreadableDirectories;
    context.notify(
      "info",
      "fs",
      outcome.outOfDescriptors
        ? `${context.calledAs}: skipped ${count} ${count === 1 ? "directory" : "directories"}: the server ran out of file descriptors (EMFILE, too many open files); raise its limit with ulimit -n.`
        : `${context.calledAs}: skipped ${count} unreadable ${count === 1 ? "directory" : "directories"} (permissions, or removed during the search).`,
      { count },
    );
  }
  if (outcome.unsearchableDirectories > 0) {
    const directories = outcome.unsearchableDirectories;
    const entries = outcome.unsearchableEntries;
    context.notify(
      "info",
      "fs",
      `${context.calledAs}: left out ${entries} ${entries === 1 ? "entry" : "entries"} of ${directories} ${directories === 1 ? "directory" : "directories"} that could be listed but not searched (no search/execute permission, x, for the server's user); grant it (chmod +x) or narrow 'path'.`,
      { directories, entries },
    );
  }
}

function toMatch(entry: Candidate): SearchMatch {
  return {
    path: entry.path,
    isDirectory: entry.isDirectory,
    sizeBytes: entry.sizeBytes,
    modifiedAt: formatIso(entry.modifiedMs),
    createdAt: entry.createdMs === null ? null : formatIso(entry.createdMs),
  };
}

function readDate(text: string | undefined, field: "from" | "to"): number | null | string {
  if (text === undefined) return null;
  const ms = parseDateTime(text);
  if (ms === undefined) {
    return `Invalid '${field}': "${text}" is not a valid ISO 8601 date-time. Use a form like 2025-12-15T00:00:00Z or 2025-12-15T09:00:00+09:00.`;
  }
  return ms;
}
