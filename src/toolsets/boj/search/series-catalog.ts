/**
 * Keeps the series catalogue (store.ts) filled and fresh: one getMetadata request per database,
 * through the boj client (paced by --boj-min-interval-ms, shared with the answer cache), one
 * database at a time so a build never holds more than one database's metadata in memory.
 *
 * BOJ refreshes its metadata daily at about 08:50 JST, so a database indexed before the last
 * 09:00 JST (00:00 UTC) is stale: it still answers (the result says its date) while a background
 * round fetches it again; a round also starts each day at that hour once the catalogue has been
 * used. A database whose refresh fails keeps its last copy and is not asked for again within
 * RETRY_FAILED_AFTER_MS. Nothing is fetched until the first search: a server that is never asked
 * to search never calls BOJ for it.
 */
import { hostname } from "node:os";
import type { Logger } from "../../../core/log.ts";
import { stripControl } from "../../../core/text.ts";
import { BojError } from "../errors.ts";
import type { MetadataEntry } from "../schemas.ts";
import type { CatalogStore, DatabaseState } from "./store.ts";

const DAY_MS = 86_400_000;
/** A failed database is asked for again after this long (BOJ may be down for maintenance). */
const RETRY_FAILED_AFTER_MS = 15 * 60_000;
/** A round stops after this many failures in a row: BOJ is unreachable, and every request would fail too. */
const MAX_FAILURES_IN_A_ROW = 3;
/**
 * How long a claim on the refresh lasts without progress (two processes on one cache folder); a
 * claim of a process on this host that no longer runs is void at once.
 */
const CLAIM_MS = 5 * 60_000;

export interface MetadataAnswer {
  entries: readonly MetadataEntry[];
  /** BOJ's DATE: when BOJ made this metadata. */
  date: string | null;
}

/** One database's metadata as a fleet keeps it (--boj-shared-state), with when it was fetched. */
export interface CatalogCopy extends MetadataAnswer {
  fetchedAt: number;
}

/** The fleet's copies (shared-state.ts): a copy fetched since `since`, or undefined; and storing one. */
export interface CatalogCopies {
  get(db: string, since: number): Promise<CatalogCopy | undefined>;
  put(db: string, copy: CatalogCopy): Promise<void>;
}

export interface SeriesCatalogDeps {
  /** Opens the store on first use. */
  store: () => CatalogStore;
  /** getMetadata of one database through the boj client and answer cache. */
  fetchMetadata: (db: string, signal: AbortSignal) => Promise<MetadataAnswer>;
  /** The databases to index, in order. */
  databases: readonly string[];
  log: Logger;
  /** --boj-min-interval-ms: how long each missing database will take, for "ask again in". */
  intervalMs: number;
  now?: () => number;
  /** Schedules the daily round; returns a cancel function. Tests pass their own. */
  schedule?: (run: () => void, ms: number) => () => void;
}

export interface CatalogStatus {
  total: number;
  indexed: string[];
  /** Never indexed (yet). */
  missing: string[];
  /** Indexed before BOJ's last daily refresh. */
  stale: string[];
  failed: { db: string; failure: string }[];
  seriesCount: number;
  /** The oldest indexing time among the indexed databases (the catalogue is at least this recent). */
  oldestIndexedAt: number | null;
  refreshing: boolean;
}

export interface RoundProgress {
  done: number;
  total: number;
  db: string;
}

/** "API_ERROR 503 M181091S: …": what a failed refresh records, for the result's `failed` list. */
function describeFailure(error: unknown): string {
  if (!(error instanceof BojError)) return error instanceof Error ? error.message : String(error);
  const status = error.details.status === undefined ? "" : ` ${error.details.status}`;
  const id = error.details.message_id ? ` ${error.details.message_id}` : "";
  return `${error.type}${status}${id}: ${stripControl(error.message)}`;
}

/** The most recent 09:00 JST (00:00 UTC) at or before `now`: BOJ's metadata of that day is out by then. */
export function lastDailyRefresh(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

/** Whether the process behind a claim may still be refreshing: not when it ran on this host and is gone. */
function holderAlive(holder: string): boolean {
  const [host, pid] = holder.split(":");
  if (host !== hostname() || !/^\d+$/.test(pid ?? "")) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"; // alive, but another user's
  }
}

const realSchedule = (run: () => void, ms: number) => {
  const timer = setTimeout(run, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

export class SeriesCatalog {
  private round: Promise<void> | undefined;
  private readonly listeners = new Set<(progress: RoundProgress) => void>();
  private readonly stop = new AbortController();
  private cancelDaily: (() => void) | undefined;
  private readonly holder = `${hostname()}:${process.pid}:${crypto.randomUUID()}`;
  private readonly now: () => number;

  constructor(private readonly deps: SeriesCatalogDeps) {
    this.now = deps.now ?? Date.now;
  }

  store(): CatalogStore {
    return this.deps.store();
  }

  status(): CatalogStatus {
    return this.statusOf(this.store().states(), this.now());
  }

  private statusOf(states: Map<string, DatabaseState>, now: number): CatalogStatus {
    const boundary = lastDailyRefresh(now);
    const indexed: string[] = [];
    const missing: string[] = [];
    const stale: string[] = [];
    const failed: CatalogStatus["failed"] = [];
    let seriesCount = 0;
    let oldest: number | null = null;
    for (const db of this.deps.databases) {
      const state = states.get(db);
      if (state?.failure) failed.push({ db, failure: state.failure });
      if (state?.indexedAt == null) {
        missing.push(db);
        continue;
      }
      indexed.push(db);
      seriesCount += state.seriesCount;
      oldest = oldest === null ? state.indexedAt : Math.min(oldest, state.indexedAt);
      if (state.indexedAt < boundary) stale.push(db);
    }
    return {
      total: this.deps.databases.length,
      indexed,
      missing,
      stale,
      failed,
      seriesCount,
      oldestIndexedAt: oldest,
      refreshing: this.round !== undefined,
    };
  }

  /** Starts a background round when a database is missing or stale (and not failed just now), unless one runs. */
  refreshIfDue(): void {
    this.scheduleDaily();
    if (this.round || this.stop.signal.aborted) return;
    const due = this.dueDatabases();
    if (due.length === 0) return;
    const store = this.store();
    // Another live process on this folder is at it: its progress shows in the shared file.
    if (!store.claimRefresh(this.holder, this.now(), this.now() + CLAIM_MS, holderAlive)) return;
    this.round = this.runRound(due).finally(() => {
      this.round = undefined;
      store.releaseRefresh(this.holder);
    });
  }

  /**
   * Resolves when the running round ends, `waitMs` passes or `signal` aborts, whichever is first;
   * `onProgress` hears of each database indexed meanwhile.
   */
  async waitForRound(
    waitMs: number,
    signal: AbortSignal,
    onProgress: (progress: RoundProgress) => void,
  ): Promise<void> {
    const round = this.round;
    if (!round || waitMs <= 0) return;
    this.listeners.add(onProgress);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        round,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, waitMs);
        }),
        new Promise<void>((resolve) => {
          onAbort = resolve;
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      this.listeners.delete(onProgress);
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /** The running round, for tests and the benchmark: resolves when it ends. */
  settled(): Promise<void> {
    return this.round ?? Promise.resolve();
  }

  close(): void {
    this.stop.abort(new Error("the server is shutting down"));
    this.cancelDaily?.();
  }

  private dueDatabases(): string[] {
    const states = this.store().states();
    const now = this.now();
    const recentlyFailed = (state: DatabaseState | undefined) =>
      state?.failedAt != null && now - state.failedAt < RETRY_FAILED_AFTER_MS;
    const { missing, stale } = this.statusOf(states, now);
    // Missing databases first: a search waits for them, not for stale ones.
    return [...missing, ...stale].filter((db) => !recentlyFailed(states.get(db)));
  }

  private async runRound(due: string[]): Promise<void> {
    const store = this.store();
    const signal = this.stop.signal;
    let failuresInARow = 0;
    const started = this.now();
    this.deps.log.info("BOJ series catalogue: indexing", { databases: due.length });
    for (const [index, db] of due.entries()) {
      if (signal.aborted) return;
      try {
        const answer = await this.deps.fetchMetadata(db, signal);
        store.replaceDatabase(db, answer.entries, this.now(), answer.date);
        failuresInARow = 0;
        // One database's decoded metadata is garbage now; collecting it before the next keeps the
        // build's peak near one database's worth instead of however many the collector let pile up.
        Bun.gc(false);
      } catch (error) {
        if (signal.aborted) return;
        const message = describeFailure(error);
        store.recordFailure(db, this.now(), message);
        this.deps.log.warn("BOJ series catalogue: a database could not be indexed; its last copy is kept", {
          db,
          error: message,
        });
        if (++failuresInARow >= MAX_FAILURES_IN_A_ROW) {
          this.deps.log.warn("BOJ series catalogue: stopping this round after failures in a row", {
            failures: failuresInARow,
          });
          return;
        }
      }
      store.claimRefresh(this.holder, this.now(), this.now() + CLAIM_MS, holderAlive);
      for (const listener of this.listeners) listener({ done: index + 1, total: due.length, db });
    }
    const status = this.status();
    this.deps.log.info("BOJ series catalogue: indexed", {
      databases: status.indexed.length,
      series: status.seriesCount,
      ms: this.now() - started,
    });
  }

  /** After the first use, a round at each next 09:00 JST for as long as the process runs. */
  private scheduleDaily(): void {
    if (this.cancelDaily || this.stop.signal.aborted) return;
    const schedule = this.deps.schedule ?? realSchedule;
    const arm = () => {
      const wait = lastDailyRefresh(this.now()) + DAY_MS - this.now() + 60_000;
      this.cancelDaily = schedule(() => {
        this.refreshIfDue();
        arm();
      }, wait);
    };
    arm();
  }

  /**
   * The expected wait until the missing databases are in, for "ask again in about N s": their
   * paced requests, and first the rest of RETRY_FAILED_AFTER_MS for one whose fetch failed just now
   * (it is not asked for again before, so "ask again in 6 s" would send a client back for nothing).
   */
  secondsToComplete(missing: readonly string[]): number {
    const states = this.store().states();
    const now = this.now();
    const retryInMs = missing.map((db) => {
      const failedAt = states.get(db)?.failedAt;
      return failedAt != null ? Math.max(0, failedAt + RETRY_FAILED_AFTER_MS - now) : 0;
    });
    const pacedMs = missing.length * Math.max(this.deps.intervalMs, 500);
    return Math.max(5, Math.ceil((Math.max(0, ...retryInMs) + pacedMs) / 1000) + 5);
  }
}
