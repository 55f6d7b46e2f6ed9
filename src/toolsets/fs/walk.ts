/**
 * The directory walk: depth-first, synchronous `readdir` with file types (Bun's fastest path; no
 * per-call promise overhead), never following symbolic links, skipping unreadable directories.
 *
 * Memory holds only the directories still to visit and one directory listing at a time. The walk
 * pauses every few milliseconds so the event loop can deliver cancellation and progress
 * notifications, and it stops at the time budget.
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import type { GlobMatcher } from "./glob.ts";

export interface WalkRequest {
  /** Real absolute path of the start directory. */
  start: string;
  /** Deepest level reported; direct children of the start are level 1. */
  maxDepth: number;
  /** Whether `maxDepth` is the server's limit rather than the caller's (decides `depthLimited`). */
  maxDepthIsServerLimit: boolean;
  glob: GlobMatcher | undefined;
  includeFiles: boolean;
  includeDirectories: boolean;
  budgetMs: number;
  signal: AbortSignal;
  /** Called with the entries scanned so far, at most every PROGRESS_INTERVAL_MS. */
  onProgress?(scanned: number): void;
  /**
   * Receives the entries of one directory that are of a wanted type and match the glob (at most
   * BATCH_SIZE at a time): `names[i]` is a directory when `directories[i]`.
   */
  accept(absolutePrefix: string, relativePrefix: string, names: string[], directories: boolean[]): void;
}

export interface WalkOutcome {
  scannedFiles: number;
  scannedDirectories: number;
  /** The walk ran out of time and covered only part of the tree. */
  budgetExhausted: boolean;
  /** Directories below the server's maximum depth were not read. */
  depthLimited: boolean;
  cancelled: boolean;
}

export const PROGRESS_INTERVAL_MS = 100;
/** How long the walk may hold the event loop before letting other work (cancellation) in. */
const SLICE_MS = 15;
/** Entries between two clock reads. */
const CHECK_EVERY = 256;
/** Largest batch handed to `accept`, so a huge directory is still processed in slices. */
const BATCH_SIZE = 512;

interface PendingDirectory {
  absolute: string;
  relative: string;
  level: number;
}

export async function walk(request: WalkRequest): Promise<WalkOutcome> {
  const outcome: WalkOutcome = { scannedFiles: 0, scannedDirectories: 0, budgetExhausted: false, depthLimited: false, cancelled: false };
  const { glob, includeFiles, includeDirectories, maxDepth, signal } = request;
  const started = performance.now();
  let sliceStarted = started;
  let lastProgress = started;
  let untilCheck = CHECK_EVERY;

  /** Returns false when the walk must stop. Yields to the event loop when the slice is used up. */
  const checkpoint = async (): Promise<boolean> => {
    untilCheck = CHECK_EVERY;
    const now = performance.now();
    if (now - started >= request.budgetMs) {
      outcome.budgetExhausted = true;
      return false;
    }
    if (request.onProgress && now - lastProgress >= PROGRESS_INTERVAL_MS) {
      lastProgress = now;
      request.onProgress(outcome.scannedFiles + outcome.scannedDirectories);
    }
    if (now - sliceStarted >= SLICE_MS) {
      await new Promise<void>((resume) => setImmediate(resume));
      sliceStarted = performance.now();
    }
    if (signal.aborted) {
      outcome.cancelled = true;
      return false;
    }
    return true;
  };

  if (maxDepth < 1) return outcome;
  const pending: PendingDirectory[] = [{ absolute: request.start, relative: "", level: 0 }];
  while (pending.length > 0) {
    const directory = pending.pop() as PendingDirectory;
    let entries: Dirent[];
    try {
      // A directory swapped for a symbolic link since it was listed would lead outside the root.
      // (Closing this race fully needs openat with O_NOFOLLOW, which Node's fs API lacks.)
      if (directory.level > 0 && lstatSync(directory.absolute).isSymbolicLink()) continue;
      entries = readdirSync(directory.absolute, { withFileTypes: true });
    } catch {
      continue; // unreadable (permissions) or gone since it was listed: skip, as find does
    }
    outcome.scannedDirectories++;
    const level = directory.level + 1;
    const prefix = directory.relative === "" ? "" : `${directory.relative}/`;
    const absolutePrefix = directory.absolute.endsWith("/") ? directory.absolute : `${directory.absolute}/`;
    let names: string[] = [];
    let kinds: boolean[] = [];
    for (const entry of entries) {
      if (--untilCheck === 0 && !(await checkpoint())) return outcome;
      if (entry.isSymbolicLink()) continue; // never followed, never reported
      const isDirectory = entry.isDirectory();
      if (isDirectory) {
        if (level < maxDepth) {
          const relative = prefix + entry.name;
          if (!glob || glob.mayMatchBelow(relative, entry)) {
            pending.push({ absolute: absolutePrefix + entry.name, relative, level });
          }
        } else if (request.maxDepthIsServerLimit && (!glob || glob.mayMatchBelow(prefix + entry.name, entry))) {
          outcome.depthLimited = true;
        }
        if (!includeDirectories) continue;
      } else {
        outcome.scannedFiles++;
        if (!includeFiles || !entry.isFile()) continue; // only regular files count as "files", like find -type f
      }
      if (glob && !glob.matches(prefix + entry.name, entry)) continue;
      names.push(entry.name);
      kinds.push(isDirectory);
      if (names.length === BATCH_SIZE) {
        request.accept(absolutePrefix, prefix, names, kinds);
        names = [];
        kinds = [];
      }
    }
    if (names.length > 0) request.accept(absolutePrefix, prefix, names, kinds);
    if (!(await checkpoint())) return outcome;
  }
  return outcome;
}
