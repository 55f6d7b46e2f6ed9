/**
 * The directory walk: depth-first, synchronous listing with file types (no per-call promise
 * overhead), never following symbolic links, skipping unreadable directories. Directories are
 * reached through `directories.ts`: anchored to open descriptors where the platform allows it, so
 * a directory swapped for a link mid-walk cannot lead outside the root.
 *
 * Memory holds only the directories still to visit and one listing chunk at a time; descriptors
 * stay O(depth). Names stay raw bytes unless a glob or a subdirectory needs them (`listing.ts`).
 * The walk pauses every few milliseconds so the event loop can deliver cancellation, progress and
 * other requests, and it stops at the call's deadline.
 */
import {
  type DirectoryAccess,
  type DirectoryHandle,
  type DirectoryReader,
  directoryAccess,
  outOfDescriptors,
} from "./directories.ts";
import { DT_DIR, DT_LNK, DT_REG } from "./entry-stat.ts";
import type { EntryKind, GlobMatcher } from "./glob.ts";
import { stayBelowFtl } from "./jit.ts";
import { EntryBatch, type Listing } from "./listing.ts";

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
   * BATCH_SIZE at a time). The batch (its raw names in particular) is only valid during the call,
   * and so is the directory: `retain()` it to use it later (then `release()` it).
   */
  accept(directory: DirectoryHandle, relativePrefix: string, batch: EntryBatch): void;
  /**
   * Hands the rest of a long walk over (the native walk, `native-walk.ts`): at the first directory
   * boundary where `due` says so, the directories still to visit go to `run`, their parents open
   * until it returns. Its outcome is added to this one; undefined when it could not take them (then
   * this walk goes on).
   */
  handOff?: HandOff;
}

export interface HandOff {
  /** Whether to hand over now, given the ms walked so far. */
  due(walkedMs: number): boolean;
  run(pending: readonly PendingDirectory[], scannedSoFar: number): Promise<WalkOutcome | undefined>;
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
  /** Some of them because the process had no file descriptor left (EMFILE/ENFILE), not permissions. */
  outOfDescriptors: boolean;
  /**
   * Directories listed whose entries could not be stat'ed (EACCES, EPERM: readable, not
   * searchable), each once, and those entries, left out: their times are unknown. The walk counts
   * what it stats itself (entries of unknown type, the native walk); the collector counts the rest
   * (`Collected`), and `search.ts` adds the two.
   */
  unsearchableDirectories: number;
  unsearchableEntries: number;
  /**
   * Directories whose names are not valid UTF-8, skipped with everything below them: no path
   * could name them faithfully, and reopening one by a lossy name would open another directory.
   */
  undecodableDirectories: number;
  /** Other entries left out for their names by the walk itself (readdir fallbacks only). */
  undecodableEntries: number;
  /** The start directory itself could not be opened (it changed since it was checked). */
  startUnreadable: boolean;
  /** Entries the native walk sent to be ranked here (`native-walk.ts`; the debug log shows it). */
  nativeRecords: number;
}

export const PROGRESS_INTERVAL_MS = 100;
/** How long the walk may hold the event loop before letting other work (cancellation) in. */
const SLICE_MS = 15;
/**
 * Entries between two clock reads without a glob. With one the clock is read after every entry: an
 * accepted pattern (two globstars around a segment with two wildcards) can still take hundreds of
 * milliseconds a match on a 16 KB path (64 levels of 250-byte names), and the 32 matches that
 * used to run between two reads had taken a search 24 s past its 2 s budget. A read costs tens of
 * nanoseconds; a glob's match, a microsecond or more.
 */
const CHECK_EVERY = 256;
/** Largest batch handed to `accept`, so a huge directory is still processed in slices. */
const BATCH_SIZE = 512;

/** How far `Walker.readDirectory` got. */
type Reading = 0 | 1 | 2;
const DONE = 0;
const STOP = 1;
const PAUSE = 2;

export interface PendingDirectory {
  /** The open parent; this entry holds one reference to it. */
  parent: DirectoryHandle;
  name: string;
  relative: string;
  level: number;
}

/**
 * The directories still to visit, depth-first. Each holds its open parent (so the child is opened
 * relative to it, never by a path from the root), and this stack alone keeps those references: a
 * rule deciding which directories to enter only calls `push`.
 */
class PendingDirectories {
  private readonly stack: PendingDirectory[] = [];

  push(parent: DirectoryHandle, name: string, relative: string, level: number): void {
    parent.retain();
    this.stack.push({ parent, name, relative, level });
  }

  /**
   * Opens the next directory that can still be opened (counting those that cannot), or returns
   * undefined when none is left.
   */
  openNext(access: DirectoryAccess, outcome: WalkOutcome): Opened | undefined {
    for (let next = this.stack.pop(); next; next = this.stack.pop()) {
      const directory = access.openChild(next.parent, next.name);
      next.parent.release();
      if (directory) return { directory, relative: next.relative, level: next.level };
      outcome.unreadableDirectories++;
      outcome.outOfDescriptors ||= outOfDescriptors();
    }
    return undefined;
  }

  /** The directories still waiting (for a hand-off; they stay here, and keep their parents, until `releaseAll`). */
  get waiting(): readonly PendingDirectory[] {
    return this.stack;
  }

  /** Done, cancelled, out of time or failed: whatever is still waiting gives its parent back. */
  releaseAll(): void {
    for (const directory of this.stack.splice(0)) directory.parent.release();
  }
}

interface Opened {
  directory: DirectoryHandle;
  relative: string;
  /** Of its parent: direct children of the start are at level 1. */
  level: number;
}

/** An outcome with nothing walked yet. */
export function emptyOutcome(): WalkOutcome {
  return {
    scannedFiles: 0,
    scannedDirectories: 0,
    budgetExhausted: false,
    depthLimited: false,
    cancelled: false,
    unreadableDirectories: 0,
    outOfDescriptors: false,
    unsearchableDirectories: 0,
    unsearchableEntries: 0,
    undecodableDirectories: 0,
    undecodableEntries: 0,
    startUnreadable: false,
    nativeRecords: 0,
  };
}

export async function walk(request: WalkRequest): Promise<WalkOutcome> {
  const outcome = emptyOutcome();
  if (request.maxDepth < 1) return outcome;
  const access = request.access ?? directoryAccess();
  let start: DirectoryHandle;
  try {
    start = access.openStart(request.root, request.start);
  } catch {
    outcome.startUnreadable = true;
    return outcome;
  }
  const pending = new PendingDirectories();
  try {
    await visit(new Walker(request, pending, outcome, access.newListing()), access, start, pending);
  } finally {
    pending.releaseAll();
  }
  return outcome;
}

/** The walk proper: each directory in turn, read by `walker`, until none is left or the walk stops. */
async function visit(
  walker: Walker,
  access: DirectoryAccess,
  start: DirectoryHandle,
  pending: PendingDirectories,
): Promise<void> {
  let next: Opened | undefined = { directory: start, relative: "", level: 0 };
  while (next) {
    const { directory, relative, level } = next;
    try {
      let state = walker.readDirectory(access, directory, relative, level);
      // Awaits only when the slice is used up (a promise per directory costs more than a small listing).
      while (state === PAUSE) state = (await walker.pause()) ? walker.readOn() : STOP;
      if (state === STOP) return;
    } finally {
      directory.release();
    }
    if (walker.handOffDue() && pending.waiting.length > 0) {
      const { outcome } = walker;
      const rest = await walker.handOff(pending.waiting);
      if (rest) return addOutcome(outcome, rest);
    }
    next = pending.openNext(access, walker.outcome);
  }
}

/** Adds what a hand-off walked to what this walk did. */
function addOutcome(outcome: WalkOutcome, rest: WalkOutcome): void {
  outcome.scannedFiles += rest.scannedFiles;
  outcome.scannedDirectories += rest.scannedDirectories;
  outcome.unreadableDirectories += rest.unreadableDirectories;
  outcome.unsearchableDirectories += rest.unsearchableDirectories;
  outcome.unsearchableEntries += rest.unsearchableEntries;
  outcome.undecodableDirectories += rest.undecodableDirectories;
  outcome.undecodableEntries += rest.undecodableEntries;
  outcome.nativeRecords += rest.nativeRecords;
  outcome.budgetExhausted ||= rest.budgetExhausted;
  outcome.depthLimited ||= rest.depthLimited;
  outcome.cancelled ||= rest.cancelled;
  outcome.outOfDescriptors ||= rest.outOfDescriptors;
}

/**
 * The per-walk state between checkpoints: clock, progress, and how each listing is sorted.
 * Everything runs synchronously (a promise per directory would cost more than listing a small
 * one); the walk awaits only when its slice of the event loop is used up.
 */
class Walker {
  static {
    stayBelowFtl(Walker.prototype.sortChunk); // see jit.ts
  }

  private readonly checkEvery: number;
  private untilCheck: number;
  private sliceStarted = performance.now();
  private readonly started = this.sliceStarted;
  private lastProgress = this.sliceStarted;
  /** Set once a hand-off was offered (taken or not: it is not offered again). */
  private handedOff = false;
  /** Set by `check` when the slice is used up: the walk yields at the next chunk boundary. */
  private pauseDue = false;
  /** The directory being read (between `readDirectory` and DONE). */
  private reader: DirectoryReader | undefined;
  private directory: DirectoryHandle | undefined;
  private prefix = "";
  private level = 0;
  private chunks = 0;

  private readonly batch = new EntryBatch(BATCH_SIZE);
  private readonly entryView = new EntryView();

  constructor(
    private readonly request: WalkRequest,
    private readonly pending: PendingDirectories,
    readonly outcome: WalkOutcome,
    private readonly listing: Listing,
  ) {
    this.checkEvery = request.glob ? 1 : CHECK_EVERY;
    this.untilCheck = this.checkEvery;
  }

  /** Reads the clock: false when the walk must stop (deadline, cancellation); notes a due pause. */
  private check(): boolean {
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
    if (request.signal.aborted) {
      outcome.cancelled = true;
      return false;
    }
    if (now - this.sliceStarted >= SLICE_MS) this.pauseDue = true;
    return true;
  }

  /** Whether the rest of the walk should be offered to `request.handOff` now. */
  handOffDue(): boolean {
    const { handOff } = this.request;
    return handOff !== undefined && !this.handedOff && handOff.due(performance.now() - this.started);
  }

  /** Offers the directories still waiting to `request.handOff` (once). */
  handOff(waiting: readonly PendingDirectory[]): Promise<WalkOutcome | undefined> {
    this.handedOff = true;
    const { outcome } = this;
    return (this.request.handOff as HandOff).run(waiting, outcome.scannedFiles + outcome.scannedDirectories);
  }

  /** Lets the event loop in (cancellation, progress, other requests); false when cancelled meanwhile. */
  async pause(): Promise<boolean> {
    await new Promise<void>((resume) => setImmediate(resume));
    this.pauseDue = false;
    this.sliceStarted = performance.now();
    return this.check();
  }

  /**
   * Starts reading one directory and sorts its chunks until it is done (DONE), the walk must stop
   * (STOP), or the slice is used up (PAUSE: `pause`, then `readOn` to go on where it left off).
   */
  readDirectory(access: DirectoryAccess, directory: DirectoryHandle, relative: string, parentLevel: number): Reading {
    if (!this.check()) return STOP;
    try {
      this.reader = access.read(directory, this.listing);
    } catch {
      this.reader = undefined;
      this.outcome.unreadableDirectories++;
      return this.pauseDue ? PAUSE : DONE;
    }
    this.directory = directory;
    this.prefix = relative === "" ? "" : `${relative}/`;
    this.level = parentLevel + 1;
    this.chunks = 0;
    this.outcome.scannedDirectories++; // also when empty: readdir's reader has nothing to hand out
    return this.readOn();
  }

  readOn(): Reading {
    const reader = this.reader;
    if (!reader) return DONE;
    for (;;) {
      try {
        if (!reader.next()) break;
        this.chunks++;
      } catch {
        // Unreadable after all (getdents64 fails only here); part-way (removed, say), what was read still counts.
        if (this.chunks === 0) this.outcome.scannedDirectories--;
        this.outcome.unreadableDirectories++;
        break;
      }
      if (!this.sortChunk(this.directory as DirectoryHandle, this.prefix, this.level)) {
        this.countUnsearchable(reader);
        return STOP;
      }
      if (this.pauseDue) return PAUSE;
    }
    this.countUnsearchable(reader);
    this.reader = undefined;
    return this.pauseDue ? PAUSE : DONE;
  }

  /** What `reader` could not stat for its type, once the directory is done (its directory counted once). */
  private countUnsearchable(reader: DirectoryReader): void {
    if (reader.unsearchable === 0) return;
    this.outcome.unsearchableEntries += reader.unsearchable;
    this.outcome.unsearchableDirectories++;
  }

  /**
   * Sorts one chunk into pending directories and accepted entries; false when the walk must stop.
   * Every listed entry passes here, mostly before the JIT has optimized it: a raw listing without
   * a glob (every entry of a wanted type is reported) skips the per-entry `reportable` call.
   */
  private sortChunk(directory: DirectoryHandle, prefix: string, level: number): boolean {
    const { request, outcome, listing, batch } = this;
    const { includeFiles, includeDirectories, maxDepth } = request;
    const { types, count } = listing;
    const everyWanted = !request.glob && listing.bytes !== undefined;
    batch.reset(listing);
    for (let index = 0; index < count; index++) {
      if (--this.untilCheck === 0 && !this.check()) return false;
      const type = types[index];
      if (type === DT_LNK) continue; // never followed, never reported
      const isDirectory = type === DT_DIR;
      if (isDirectory) {
        if (level < maxDepth) {
          if (!this.descend(directory, index, prefix, level)) continue;
        } else this.noteDepthLimit(index, prefix);
        if (!includeDirectories) continue;
      } else {
        outcome.scannedFiles++;
        if (!includeFiles || type !== DT_REG) continue; // only regular files count as "files", like find -type f
      }
      if (!everyWanted && !this.reportable(index, prefix, type)) continue;
      batch.add(listing, index, isDirectory);
      if (batch.count === BATCH_SIZE) {
        request.accept(directory, prefix, batch);
        batch.reset(listing);
      }
    }
    if (batch.count > 0) request.accept(directory, prefix, batch);
    return true;
  }

  /**
   * Queues the subdirectory at `index` unless the glob rules out everything below it; false when
   * its name is not valid UTF-8, so neither it nor anything below it can be named (nor reported).
   */
  private descend(directory: DirectoryHandle, index: number, prefix: string, level: number): boolean {
    const { listing, request } = this;
    const name = listing.exactName(index);
    if (name === undefined) {
      this.outcome.undecodableDirectories++;
      return false;
    }
    listing.names[index] = name; // the glob check in `reportable` reads it again: decoded once
    const relative = prefix + name;
    if (!request.glob || request.glob.mayMatchBelow(relative, this.kind(name, DT_DIR))) {
      this.pending.push(directory, name, relative, level);
    }
    return true;
  }

  /** A subdirectory at the deepest level: notes when the server's limit (not the caller's) hid what it holds. */
  private noteDepthLimit(index: number, prefix: string): void {
    const { listing, request } = this;
    if (!request.maxDepthIsServerLimit || this.outcome.depthLimited) return;
    const name = listing.name(index);
    if (!request.glob || request.glob.mayMatchBelow(prefix + name, this.kind(name, DT_DIR))) {
      this.outcome.depthLimited = true;
    }
  }

  /** Whether an entry of a wanted type goes to be stat'ed: it matches the glob and has a name to report. */
  private reportable(index: number, prefix: string, type: number): boolean {
    const { listing, request } = this;
    if (request.glob) {
      const name = listing.name(index);
      if (!request.glob.matches(prefix + name, this.kind(name, type))) return false;
    }
    if (!listing.bytes && listing.undecodable[index] === 1) {
      // A readdir name that is not UTF-8 cannot be stat'ed or reported by its text: counted here
      // (raw names go on, and the collector counts those that would have been reported).
      this.outcome.undecodableEntries++;
      return false;
    }
    return true;
  }

  /** The entry as the glob's filters see it (one reused object: they do not keep it). */
  private kind(name: string, type: number): EntryKind {
    const view = this.entryView;
    view.name = name;
    view.type = type;
    return view;
  }
}

/** A listed entry shaped like the parts of fs.Dirent that fast-glob's filters read. */
class EntryView implements EntryKind {
  name = "";
  type = 0;
  isDirectory(): boolean {
    return this.type === DT_DIR;
  }
  isFile(): boolean {
    return this.type === DT_REG;
  }
  isSymbolicLink(): boolean {
    return this.type === DT_LNK;
  }
}
