/**
 * Turning listed entries into ranked matches: stat, the time filter, the cursor position and a
 * bounded top-k, in one place. The main thread and the stat worker thread
 * (`stat-worker-thread.ts`) both import this module, so both sides filter and rank identically.
 *
 * Every listed entry costs one stat and a look at one time field; everything else (its name, its
 * path, the other fields) is read only for the entries that pass the time filter and can still
 * make the top `limit`, typically a small fraction.
 */
import {
  DT_LNK,
  type EntryStat,
  isRefusal,
  type RawStatx,
  S_IFLNK,
  S_IFMT,
  STATX_BTIME,
  STATX_FLAGS,
  STATX_MASK,
  STATX_WORD,
  statRefused,
  statxWordsMs,
} from "./entry-stat.ts";
import { stayBelowFtl } from "./jit.ts";
import type { StatBatch } from "./listing.ts";

export type SortOrder = "time_desc" | "time_asc" | "path_asc";

/** Where an entry sits in the total order: its sort time (null = unknown) and its root-relative path. */
export interface Position {
  time: number | null;
  path: string;
}

export interface Candidate extends Position {
  isDirectory: boolean;
  sizeBytes: number | null;
  modifiedMs: number;
  createdMs: number | null;
}

export interface CollectorConfig {
  timeField: "modified" | "created";
  from: number | null;
  to: number | null;
  includeUnknownTime: boolean;
  sort: SortOrder;
  limit: number;
  /** Set when continuing from a cursor: only entries after `position`, unchanged since `since`. */
  resume: { position: Position; since: number } | null;
}

export interface Collected {
  /** The best `limit` candidates seen, in no particular order. */
  kept: Candidate[];
  /** How many entries qualified in total (kept or not). */
  offered: number;
  /** Entries left out because their created time is unknown. */
  unknownTimeSkipped: number;
  /** Qualifying entries left out because their names are not valid UTF-8 (no path names them faithfully), all of them. */
  undecodableSkipped: number;
  /**
   * Entries listed but not stat'ed because the stat was refused (EACCES, EPERM: their directory
   * grants no search permission), so their times are unknown and they are left out.
   */
  unsearchableEntries: number;
  /**
   * The directories those entries are in, each once (relative prefixes): a directory's batches
   * may be stat'ed on both threads, so the count is of distinct ones after merging.
   */
  unsearchableDirectories: string[];
}

/** What ranking reads of an entry already stat'ed. */
export type StatFields = Pick<EntryStat, "type" | "size" | "mtimeMs" | "birthtimeMs" | "ctimeMs">;

export interface KeptBound {
  time: number;
  descending: boolean;
}

/** Entries stat'ed before they reach the collector (the native walk, `native-walk.ts`). */
export interface StatedBatch extends Pick<StatBatch, "count" | "exactName" | "hasExactName" | "isDirectory"> {
  /** The fields of entry `index` (valid until the next call). */
  select(index: number): StatFields;
}

export interface Collector {
  /**
   * Entries of one directory. The directory is open as `fd` (-1 on path walks) and reachable as
   * `directoryPrefix` without resolving it again from the root (see `directories.ts`).
   */
  add(fd: number, directoryPrefix: string, relativePrefix: string, batch: StatBatch): void;
  /** Entries already stat'ed, each path (`exactName`) relative to the root. */
  addStated(batch: StatedBatch): void;
  /**
   * For a search ranked in part elsewhere (the native walk): once `limit` entries are kept, the
   * time (ms) an entry must beat to be kept, earlier ones behind it when `descending` (later ones
   * otherwise); undefined while nothing is settled so (not full yet, by path). On a cursor's page an
   * entry behind it counts only if unchanged since paging began (`CursorState.since`), else it is dropped.
   */
  keptBound(): KeptBound | undefined;
  /** Counts qualifying entries found behind `keptBound` elsewhere, as `consider` counts its own. */
  addBehind(count: number): void;
  merge(other: Collected): void;
  result(): Collected;
}

/**
 * The total order: every sort ends with the path, so no two entries tie. Unknown times come
 * after all known ones in both time orders, so paging over them stays deterministic.
 */
export function comparatorFor(sort: SortOrder): (a: Position, b: Position) => number {
  const byPath = (a: Position, b: Position) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  if (sort === "path_asc") return byPath;
  const direction = sort === "time_desc" ? -1 : 1;
  return (a, b) => {
    if (a.time !== b.time) {
      if (a.time === null) return 1;
      if (b.time === null) return -1;
      return direction * (a.time - b.time);
    }
    return byPath(a, b);
  };
}

/**
 * Keeps the first `capacity` items in `compare` order in O(capacity) memory: a max-heap whose
 * top is the worst item kept, so an item that does not qualify costs one comparison.
 */
export class TopK<T> {
  readonly heap: T[] = [];
  offered = 0;
  constructor(
    readonly capacity: number,
    readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    this.offered++;
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push(item);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (this.compare(heap[index], heap[parent]) <= 0) break;
        [heap[index], heap[parent]] = [heap[parent], heap[index]];
        index = parent;
      }
    } else if (this.compare(item, heap[0]) < 0) {
      heap[0] = item;
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        const right = left + 1;
        let largest = index;
        if (left < heap.length && this.compare(heap[left], heap[largest]) > 0) largest = left;
        if (right < heap.length && this.compare(heap[right], heap[largest]) > 0) largest = right;
        if (largest === index) break;
        [heap[index], heap[largest]] = [heap[largest], heap[index]];
        index = largest;
      }
    }
  }
}

/**
 * Whether an entry with sort time `time` comes after `than` whatever their paths (so a full top-k
 * cannot take it, or a cursor has already passed it); false when only the paths can tell.
 */
function laterInTime(sort: SortOrder, time: number | null, than: number | null): boolean {
  if (sort === "path_asc" || time === than) return false;
  if (time === null) return true; // unknown times come after all known ones
  if (than === null) return false;
  return sort === "time_desc" ? time < than : time > than;
}

/** 0 (or nothing) means the file system keeps no birth time: "unknown", never 1970. */
function knownBirth(ms: number): number | null {
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

export function createCollector(config: CollectorConfig, stat: EntryStat): Collector {
  return new RankingCollector(config, stat);
}

class RankingCollector implements Collector {
  static {
    // see jit.ts; every record of the native walk (`addStated`) passes the other two
    stayBelowFtl(RankingCollector.prototype.addRaw);
    stayBelowFtl(RankingCollector.prototype.qualifyingTime);
    stayBelowFtl(RankingCollector.prototype.consider);
  }

  private readonly compare: (a: Position, b: Position) => number;
  private readonly best: TopK<Candidate>;
  private readonly from: number | null;
  private readonly to: number | null;
  private readonly resume: CollectorConfig["resume"];
  private readonly includeUnknownTime: boolean;
  private readonly sort: SortOrder;
  private readonly wantsCreated: boolean;
  /** Whole seconds below this are before `from` whatever their nanoseconds. */
  private readonly fromSeconds: number;
  private unknownTimeSkipped = 0;
  private undecodableSkipped = 0;
  private unsearchableEntries = 0;
  private readonly unsearchableDirectories = new Set<string>();

  constructor(
    config: CollectorConfig,
    private readonly stat: EntryStat,
  ) {
    this.compare = comparatorFor(config.sort);
    this.best = new TopK<Candidate>(config.limit, this.compare);
    ({ from: this.from, to: this.to, resume: this.resume, includeUnknownTime: this.includeUnknownTime } = config);
    this.sort = config.sort;
    this.wantsCreated = config.timeField === "created";
    // A second less than `from`'s: a time in ms is seconds * 1000 + ns / 1e6 in a double, which
    // rounds a time just below a whole second up to it (23:59:59.999999999 becomes 00:00:00.000),
    // and `from` is compared with that rounded time, as every other path and the native walk do.
    this.fromSeconds = this.from === null ? Number.NEGATIVE_INFINITY : Math.floor(this.from / 1000) - 1;
  }

  add(fd: number, directoryPrefix: string, relativePrefix: string, batch: StatBatch): void {
    const { pointer } = batch;
    const { stat } = this;
    if (pointer && stat.raw) {
      this.addRaw(fd, directoryPrefix, relativePrefix, batch, stat.raw);
      return;
    }
    // Raw names are stat'ed where they lie (the batch's pointer), others by name.
    for (let i = 0; i < batch.count; i++) {
      try {
        const found = pointer
          ? stat.atPointer(fd, pointer + batch.offsets[batch.offsetsStart + i])
          : stat.byName(fd, directoryPrefix, batch.name(i));
        if (!found) {
          this.statFailed(directoryPrefix, relativePrefix, batch, i); // removed since the listing, or refused
          continue;
        }
      } catch (error) {
        if (isRefusal(error)) this.noteUnsearchable(relativePrefix);
        continue; // else gone since the directory was listed
      }
      const time = this.qualifyingTime();
      if (time !== undefined) this.consider(batch, i, relativePrefix, time);
    }
  }

  addStated(batch: StatedBatch): void {
    for (let i = 0; i < batch.count; i++) {
      const fields = batch.select(i);
      const time = this.qualifyingTime(fields);
      if (time !== undefined) this.consider(batch, i, "", time, fields);
    }
  }

  keptBound(): KeptBound | undefined {
    const { best, sort } = this;
    // With a cursor an entry behind the bound counts only if unchanged since paging began: whoever
    // settles entries against it must check that too (native-walk.c's `since`).
    if (sort === "path_asc" || best.heap.length < best.capacity) return undefined;
    const worst = best.heap[0].time;
    return worst === null ? undefined : { time: worst, descending: sort === "time_desc" };
  }

  addBehind(count: number): void {
    this.best.offered += count;
  }

  merge(other: Collected): void {
    const { best } = this;
    for (const candidate of other.kept) best.offer(candidate);
    best.offered += other.offered - other.kept.length;
    this.unknownTimeSkipped += other.unknownTimeSkipped;
    this.undecodableSkipped += other.undecodableSkipped;
    this.unsearchableEntries += other.unsearchableEntries;
    for (const prefix of other.unsearchableDirectories) this.unsearchableDirectories.add(prefix);
  }

  result(): Collected {
    const { best, unknownTimeSkipped, undecodableSkipped, unsearchableEntries } = this;
    return {
      kept: best.heap.slice(),
      offered: best.offered,
      unknownTimeSkipped,
      undecodableSkipped,
      unsearchableEntries,
      unsearchableDirectories: [...this.unsearchableDirectories],
    };
  }

  /**
   * Entry `i` could not be stat'ed: gone since the listing (left out without a word), or refused,
   * which `statRefused` tells by lstat'ing it by path. Off the hot path: only failures come here.
   */
  private statFailed(directoryPrefix: string, relativePrefix: string, batch: StatBatch, i: number): void {
    if (statRefused(directoryPrefix + batch.name(i))) this.noteUnsearchable(relativePrefix);
  }

  /** Counts an entry of `relativePrefix` whose stat was refused, and its directory once. */
  private noteUnsearchable(relativePrefix: string): void {
    this.unsearchableEntries++;
    this.unsearchableDirectories.add(relativePrefix);
  }

  /**
   * The loop every listed entry of a large search goes through, as flat as it can be: most of a
   * one-shot search runs before the JIT has optimized anything, where each call costs (and every
   * function called thousands of times is compiled again, on each thread). It reads the statx
   * words itself, settles most entries on their whole seconds and, once `limit` are kept, those
   * behind the worst kept on their time; the few left go to `consider`, which reads the rest
   * through `stat` (the same buffer).
   */
  private addRaw(fd: number, directoryPrefix: string, relativePrefix: string, batch: StatBatch, raw: RawStatx): void {
    const { call, bufferPointer, words, signedWords } = raw;
    const { pointer, offsets, offsetsStart, count } = batch;
    const { best, from, to, resume, sort, wantsCreated, fromSeconds } = this;
    const descending = sort === "time_desc";
    const ascending = sort === "time_asc";
    raw.select();
    for (let i = 0; i < count; i++) {
      if (call(fd, pointer + offsets[offsetsStart + i], STATX_FLAGS, STATX_MASK, bufferPointer) !== 0) {
        this.statFailed(directoryPrefix, relativePrefix, batch, i); // removed since the listing, or refused
        continue;
      }
      if ((words[STATX_WORD.mode] & S_IFMT) === S_IFLNK) continue; // replaced by a link since the listing
      let time: number | null;
      if (wantsCreated) {
        time = knownBirth(
          words[STATX_WORD.mask] & STATX_BTIME ? statxWordsMs(words, signedWords, STATX_WORD.btime) : 0,
        );
        if (time === null) {
          if (this.includeUnknownTime) this.consider(batch, i, relativePrefix, null);
          else this.unknownTimeSkipped++;
          continue;
        }
      } else {
        const seconds = words[STATX_WORD.mtime] + signedWords[STATX_WORD.mtime + 1] * 2 ** 32;
        if (seconds < fromSeconds) continue;
        time = seconds * 1000 + words[STATX_WORD.mtime + 2] / 1e6;
      }
      if ((from !== null && time < from) || (to !== null && time >= to)) continue;
      if (resume !== null && laterInTime(sort, resume.position.time, time)) continue; // on an earlier page
      const { heap } = best;
      if (heap.length === best.capacity) {
        // As in `consider`: behind everything kept, it only counts (unless it changed since paging began).
        const worst = heap[0].time;
        if (worst !== null && (descending ? time < worst : ascending && time > worst)) {
          if (!batch.hasExactName(i)) this.undecodableSkipped++;
          else if (resume === null || statxWordsMs(words, signedWords, STATX_WORD.ctime) < resume.since) best.offered++;
          continue;
        }
      }
      this.consider(batch, i, relativePrefix, time);
    }
  }

  /** The entry just stat'ed, if it passes the filters: its sort time, else undefined. */
  private qualifyingTime(stat: StatFields = this.stat): number | null | undefined {
    const { from, to } = this;
    if (stat.type() === DT_LNK) return undefined; // replaced by a link since the listing
    const time = this.wantsCreated ? knownBirth(stat.birthtimeMs()) : stat.mtimeMs();
    if (time === null) {
      if (this.includeUnknownTime) return null;
      this.unknownTimeSkipped++;
      return undefined;
    }
    if ((from !== null && time < from) || (to !== null && time >= to)) return undefined;
    return time;
  }

  /** Ranks entry `i` of `batch`, just stat'ed, whose sort time `time` passed the filters. */
  private consider(
    batch: Pick<StatBatch, "exactName" | "hasExactName" | "isDirectory">,
    i: number,
    relativePrefix: string,
    time: number | null,
    stat: StatFields = this.stat,
  ): void {
    const { best, resume, sort } = this;
    // On an earlier page: not this page's at all.
    if (resume && laterInTime(sort, resume.position.time, time)) return;
    // Not valid UTF-8: no path could name it faithfully. Counted whether or not it would have made
    // the page, so the count does not depend on the order entries come in (threads vary it).
    if (!batch.hasExactName(i)) {
      this.undecodableSkipped++;
      return;
    }
    // Behind everything kept so far: settled without building the entry.
    if (best.heap.length === best.capacity && laterInTime(sort, time, best.heap[0].time)) {
      if (!resume || stat.ctimeMs() < resume.since) best.offered++;
      return;
    }
    const name = batch.exactName(i) as string;
    const isDirectory = batch.isDirectory(i);
    const candidate: Candidate = {
      time,
      path: relativePrefix + name,
      isDirectory,
      sizeBytes: isDirectory ? null : stat.size(),
      modifiedMs: stat.mtimeMs(),
      createdMs: knownBirth(stat.birthtimeMs()),
    };
    if (resume) {
      if (this.compare(candidate, resume.position) <= 0) return; // on an earlier page
      // Changed since paging began, so it may already have been returned under its old position.
      if (stat.ctimeMs() >= resume.since) return;
    }
    best.offer(candidate);
  }
}
