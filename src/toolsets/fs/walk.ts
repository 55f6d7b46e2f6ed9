/**
 * The directory walk: depth-first, synchronous listing with file types (Bun's fastest path; no
 * per-call promise overhead), never following symbolic links, skipping unreadable directories.
 * Directories are reached through `directories.ts`: anchored to open descriptors where the
 * platform allows it, so a directory swapped for a link mid-walk cannot lead outside the root.
 *
 * Memory holds only the directories still to visit and one directory listing at a time;
 * descriptors stay O(depth). The walk pauses every few milliseconds so the event loop can deliver
 * cancellation, progress and other requests, and it stops at the call's deadline.
 */
import type { Dirent } from "node:fs";
import { type DirectoryAccess, type DirectoryHandle, directoryAccess } from "./directories.ts";
import type { GlobMatcher } from "./glob.ts";

export interface WalkRequest {
  /** Real absolute path of the root. */
  root: string;
  /** The start directory relative to the root (`/`-separated, no links; "" for the root). */
  start: string;
  /** How directories are opened; default: the platform's (see `directories.ts`). */
  access?: DirectoryAccess;
  /** Deepest level reported; direct children of the start are level 1. */
  maxDepth: number;
  /** Whether `maxDepth` is the server's limit rather than the caller's (decides `depthLimited`). */
  maxDepthIsServerLimit: boolean;
  glob: GlobMatcher | undefined;
  includeFiles: boolean;
  includeDirectories: boolean;
  /** `performance.now()` value at which the call's time budget runs out. */
  deadline: number;
  signal: AbortSignal;
  /** Called with the entries scanned so far, at most every PROGRESS_INTERVAL_MS. */
  onProgress?(scanned: number): void;
  /**
   * Receives the entries of one directory that are of a wanted type and match the glob (at most
   * BATCH_SIZE at a time): `names[i]` is a directory when `directories[i]`. The directory stays
   * open for the duration of the call; `retain()` it to use it later (then `release()` it).
   */
  accept(directory: DirectoryHandle, relativePrefix: string, names: string[], directories: boolean[]): void;
}

export interface WalkOutcome {
  scannedFiles: number;
  scannedDirectories: number;
  /** The walk ran out of time and covered only part of the tree. */
  budgetExhausted: boolean;
  /** Directories below the server's maximum depth were not read. */
  depthLimited: boolean;
  cancelled: boolean;
  /** Directories that could not be opened or listed (permissions, or gone), skipped as find does. */
  unreadableDirectories: number;
  /** The start directory itself could not be opened (it changed since it was checked). */
  startUnreadable: boolean;
}

export const PROGRESS_INTERVAL_MS = 100;
/** How long the walk may hold the event loop before letting other work (cancellation) in. */
const SLICE_MS = 15;
/** Entries between two clock reads; fewer with a glob, whose matching costs more per entry. */
const CHECK_EVERY = 256;
const CHECK_EVERY_WITH_GLOB = 32;
/** Largest batch handed to `accept`, so a huge directory is still processed in slices. */
const BATCH_SIZE = 512;

interface PendingDirectory {
  /** The open parent; this entry holds one reference to it. */
  parent: DirectoryHandle;
  name: string;
  relative: string;
  level: number;
}

export async function walk(request: WalkRequest): Promise<WalkOutcome> {
  const outcome: WalkOutcome = {
    scannedFiles: 0,
    scannedDirectories: 0,
    budgetExhausted: false,
    depthLimited: false,
    cancelled: false,
    unreadableDirectories: 0,
    startUnreadable: false,
  };
  if (request.maxDepth < 1) return outcome;
  const access = request.access ?? directoryAccess();
  let start: DirectoryHandle;
  try {
    start = access.openStart(request.root, request.start);
  } catch {
    outcome.startUnreadable = true;
    return outcome;
  }
  const pending: PendingDirectory[] = [];
  try {
    await visit(request, access, start, pending, outcome);
  } finally {
    // Cancelled, out of time or failed: whatever is still waiting gives its parent back.
    for (const directory of pending) directory.parent.release();
  }
  return outcome;
}

/** The walk proper; `pending` is the caller's so it can release what is left when this stops. */
async function visit(
  request: WalkRequest,
  access: DirectoryAccess,
  start: DirectoryHandle,
  pending: PendingDirectory[],
  outcome: WalkOutcome,
): Promise<void> {
  const walker = new Walker(request, pending, outcome);
  let current: DirectoryHandle | undefined = start;
  let relative = "";
  let level = 0;
  for (;;) {
    const directory = current;
    let entries: Dirent[] | undefined;
    try {
      entries = access.list(directory);
    } catch {
      outcome.unreadableDirectories++;
    }
    try {
      if (entries && !(await walker.listEntries(directory, relative, level, entries))) return;
    } finally {
      directory.release();
    }
    if (!(await walker.checkpoint())) return;
    current = undefined;
    while (!current && pending.length > 0) {
      const next = pending.pop() as PendingDirectory;
      current = access.openChild(next.parent, next.name);
      next.parent.release();
      if (!current) outcome.unreadableDirectories++;
      relative = next.relative;
      level = next.level;
    }
    if (!current) return;
  }
}

/** The per-walk state between checkpoints: clock, progress, and how each listing is sorted. */
class Walker {
  private readonly checkEvery: number;
  private untilCheck: number;
  private sliceStarted = performance.now();
  private lastProgress = this.sliceStarted;

  constructor(
    private readonly request: WalkRequest,
    private readonly pending: PendingDirectory[],
    private readonly outcome: WalkOutcome,
  ) {
    this.checkEvery = request.glob ? CHECK_EVERY_WITH_GLOB : CHECK_EVERY;
    this.untilCheck = this.checkEvery;
  }

  /** Returns false when the walk must stop. Yields to the event loop when the slice is used up. */
  async checkpoint(): Promise<boolean> {
    const { request, outcome } = this;
    this.untilCheck = this.checkEvery;
    const now = performance.now();
    if (now >= request.deadline) {
      outcome.budgetExhausted = true;
      return false;
    }
    if (request.onProgress && now - this.lastProgress >= PROGRESS_INTERVAL_MS) {
      this.lastProgress = now;
      request.onProgress(outcome.scannedFiles + outcome.scannedDirectories);
    }
    if (now - this.sliceStarted >= SLICE_MS) {
      await new Promise<void>((resume) => setImmediate(resume));
      this.sliceStarted = performance.now();
    }
    if (request.signal.aborted) {
      outcome.cancelled = true;
      return false;
    }
    return true;
  }

  /** Sorts one listing into pending directories and accepted entries; false when the walk must stop. */
  async listEntries(
    directory: DirectoryHandle,
    relative: string,
    parentLevel: number,
    entries: Dirent[],
  ): Promise<boolean> {
    const { request, outcome, pending } = this;
    const { glob, includeFiles, includeDirectories, maxDepth } = request;
    outcome.scannedDirectories++;
    const level = parentLevel + 1;
    const prefix = relative === "" ? "" : `${relative}/`;
    let names: string[] = [];
    let kinds: boolean[] = [];
    for (const entry of entries) {
      if (--this.untilCheck === 0 && !(await this.checkpoint())) return false;
      if (entry.isSymbolicLink()) continue; // never followed, never reported
      const isDirectory = entry.isDirectory();
      if (isDirectory) {
        if (level < maxDepth) {
          const childRelative = prefix + entry.name;
          if (!glob || glob.mayMatchBelow(childRelative, entry)) {
            directory.retain();
            pending.push({ parent: directory, name: entry.name, relative: childRelative, level });
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
        request.accept(directory, prefix, names, kinds);
        names = [];
        kinds = [];
      }
    }
    if (names.length > 0) request.accept(directory, prefix, names, kinds);
    return true;
  }
}
