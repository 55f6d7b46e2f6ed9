/**
 * One `fs.search_by_time` call once the root and start directory are known: argument semantics,
 * the walk, ranking, paging and the result the seed describes.
 */
import { lstatSync } from "node:fs";
import { errorResult, type ToolContext, type ToolResult } from "../../core/tool.ts";
import { type CollectorConfig, collectorProgram } from "./collector.ts";
import type { CursorCodec, CursorState } from "./cursor.ts";
import { compileGlob } from "./glob.ts";
import type { StartPoint } from "./roots.ts";
import type { SearchArguments, SearchMatch, SearchOutput } from "./schema.ts";
import { formatIso, parseDateTime } from "./time.ts";
import type { StatJob, StatWorker } from "./stat-worker.ts";
import { walk } from "./walk.ts";

const program = collectorProgram(lstatSync);
/** A walk still running after this long hands part of its stat calls to the worker thread. */
const HELPER_AFTER_MS = 10;
/** Longest lag of the kernel's coarse clock behind the real time (one tick at HZ=100), plus margin. */
const CLOCK_TICK_MS = 12;

export const INVALID_RANGE = "Invalid range: 'from' must be earlier than 'to'.";

export interface SearchLimits {
  /** The server's maximum depth (--fs-max-depth). */
  maxDepth: number;
  /** Per-call time budget in ms (--fs-time-budget-ms). */
  budgetMs: number;
}

export async function searchByTime(
  args: SearchArguments,
  start: StartPoint,
  limits: SearchLimits,
  cursors: CursorCodec,
  helper: StatWorker | undefined,
  context: ToolContext,
): Promise<ToolResult> {
  const from = readDate(args.from, "from");
  if (typeof from === "string") return errorResult(from);
  const to = readDate(args.to, "to");
  if (typeof to === "string") return errorResult(to);
  if (from !== null && to !== null && from >= to) return errorResult(INVALID_RANGE);

  const glob = args.glob === undefined ? undefined : compileGlob(args.glob);
  if (typeof glob === "string") return errorResult(glob);

  const requestedDepth = args.recursive ? (args.maxDepth ?? Number.POSITIVE_INFINITY) : 1;
  const maxDepth = Math.min(requestedDepth, limits.maxDepth);

  // Everything that decides the result set and its order; a cursor only fits the same query.
  const query = JSON.stringify([
    start.root.real, start.relative, args.timeField, from, to, args.glob ?? null, args.recursive,
    args.maxDepth ?? null, args.includeFiles, args.includeDirectories, args.sort, args.limit, args.includeUnknownTime,
  ]);
  let resume: CursorState | undefined;
  if (args.cursor !== undefined) {
    const decoded = cursors.decode(query, args.cursor);
    if (!decoded.ok) return errorResult(decoded.message);
    resume = decoded.state;
  }
  // Entries whose inode changes (ctime) at or after `since` are left out of later pages. +1: every
  // entry that existed unchanged before this call has a ctime below it.
  const since = resume?.since ?? Date.now() + 1;

  const collectorConfig: CollectorConfig = {
    timeField: args.timeField,
    from,
    to,
    includeUnknownTime: args.includeUnknownTime,
    sort: args.sort,
    limit: args.limit,
    resume: resume ?? null,
  };
  const local = program.createCollector(collectorConfig);
  const prefix = start.relative === "" ? "" : `${start.relative}/`;
  const walkStarted = performance.now();
  let job: StatJob | undefined;
  let helperTried = false;

  const outcome = await walk({
    start: start.directory,
    maxDepth,
    maxDepthIsServerLimit: limits.maxDepth < requestedDepth,
    glob,
    includeFiles: args.includeFiles,
    includeDirectories: args.includeDirectories,
    budgetMs: limits.budgetMs,
    signal: context.signal,
    onProgress: (scanned) => context.reportProgress({ progress: scanned, message: `Scanned ${scanned} entries so far` }),
    accept(absolutePrefix, relativePrefix, names, directories) {
      // Small searches stay on this thread; a long one shares the stat calls with the worker.
      if (!helperTried && performance.now() - walkStarted >= HELPER_AFTER_MS) {
        helperTried = true;
        job = helper?.begin(collectorConfig);
      }
      if (job?.hasRoom(1)) job.post(absolutePrefix, prefix + relativePrefix, names, directories);
      else local.add(absolutePrefix, prefix + relativePrefix, names, directories);
    },
  });
  context.log.debug("fs.search_by_time walked", {
    ms: Math.round(performance.now() - walkStarted),
    scannedFiles: outcome.scannedFiles,
    scannedDirectories: outcome.scannedDirectories,
    workerBatches: job?.batches ?? 0,
  });
  if (job) {
    const remote = await job.finish();
    if (!remote) throw new Error("the stat worker stopped unexpectedly");
    if (!outcome.cancelled) local.merge(remote);
  }
  if (outcome.cancelled) {
    context.log.info("fs.search_by_time cancelled", { scannedFiles: outcome.scannedFiles, scannedDirectories: outcome.scannedDirectories });
    throw new Error("search cancelled by the client");
  }

  const collected = local.result();
  const unknownTimeSkipped = collected.unknownTimeSkipped;
  const kept = collected.kept.sort(program.comparatorFor(args.sort));
  const matches: SearchMatch[] = kept.map((entry) => ({
    path: entry.path,
    isDirectory: entry.isDirectory,
    sizeBytes: entry.sizeBytes,
    modifiedAt: formatIso(entry.modifiedMs),
    createdAt: entry.createdMs === null ? null : formatIso(entry.createdMs),
  }));
  const last = kept.at(-1);
  const nextCursor = collected.offered > args.limit && last ? cursors.encode(query, { position: { time: last.time, path: last.path }, since }) : null;
  if (!resume && nextCursor !== null) {
    // File systems stamp ctime from a clock that lags by up to one kernel tick, so a change made
    // right after this page could carry a ctime below `since`. Answering no sooner than one tick
    // after `since` makes every later change's ctime land at or after it.
    const settle = since + CLOCK_TICK_MS - Date.now();
    if (settle > 0) await Bun.sleep(settle);
  }
  const structured: SearchOutput = {
    timeField: args.timeField,
    range: { from: from === null ? null : formatIso(from), to: to === null ? null : formatIso(to) },
    matches,
    nextCursor,
    stats: { scannedFiles: outcome.scannedFiles, scannedDirectories: outcome.scannedDirectories, returned: matches.length },
  };
  const summary = summarize(args, matches.length, nextCursor !== null, outcome, maxDepth, unknownTimeSkipped, limits);
  return {
    content: [
      { type: "text", text: summary },
      { type: "text", text: JSON.stringify(structured) },
    ],
    structuredContent: structured as unknown as Record<string, unknown>,
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

/** The one-line summary: what was found, in which order, and anything that limited the search. */
function summarize(
  args: SearchArguments,
  count: number,
  hasMore: boolean,
  outcome: { budgetExhausted: boolean; depthLimited: boolean },
  maxDepth: number,
  unknownTimeSkipped: number,
  limits: SearchLimits,
): string {
  const noun = args.includeFiles && args.includeDirectories ? ["entry", "entries"] : args.includeDirectories ? ["directory", "directories"] : ["file", "files"];
  const order = args.sort === "path_asc" ? "path" : `${args.timeField} ${args.sort === "time_desc" ? "desc" : "asc"}`;
  const parts = [`Found ${count} ${count === 1 ? noun[0] : noun[1]} (sorted by ${order}).`];
  if (!args.includeFiles && !args.includeDirectories) parts.push("Both includeFiles and includeDirectories are false, so nothing can match.");
  if (hasMore) parts.push("More results exist: call again with the same arguments and 'cursor' set to nextCursor.");
  if (unknownTimeSkipped > 0) {
    parts.push(
      `${unknownTimeSkipped} ${unknownTimeSkipped === 1 ? "entry was" : "entries were"} left out because the file system records no created time for them; set includeUnknownTime=true to include them (createdAt null).`,
    );
  }
  if (outcome.budgetExhausted) {
    parts.push(
      `The search stopped at the server's time budget of ${limits.budgetMs} ms, so only part of the tree was examined and results may be incomplete; narrow 'path' or 'glob', or set a smaller 'maxDepth'.`,
    );
  }
  if (outcome.depthLimited) {
    parts.push(`Directories deeper than ${maxDepth} levels below the start were not searched (the server's maximum depth); narrow 'path' to reach deeper entries.`);
  }
  return parts.join(" ");
}
