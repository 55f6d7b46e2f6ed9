/**
 * The native walks' threads across every search of the process (issue 34 H3): each walk starts a
 * few POSIX threads (`native-walk.ts`) and holds about 2 MiB of buffers, so 400 concurrent searches
 * once meant 1,030 threads and 733 MB. A walk takes its threads from one budget before it starts
 * and gives them back once it is finished; a walk that finds the budget spent waits for it, in the
 * order the walks came, rather than failing. A waiting walk that is cancelled, or whose call runs
 * out of time, leaves the line at once.
 */
import { availableParallelism } from "node:os";

/**
 * POSIX threads all native walks of the process may run at once: 4 a core, 8 to 32. More threads
 * than that only take the cores from the thread that answers requests: with 32 on 2 cores, 400
 * concurrent searches kept /healthz waiting up to 2.1 s, with 8 up to 0.7 s, and took no longer.
 */
export const NATIVE_THREAD_BUDGET = Math.min(32, Math.max(8, 4 * availableParallelism()));

/** Threads held by one walk; give them back with `release`, once (again does nothing). */
export interface ThreadLease {
  release(): void;
}

/** Why a walk got no threads: its call was cancelled, or its deadline came first. */
export type NoThreads = "cancelled" | "deadline";

class Lease implements ThreadLease {
  private released = false;

  constructor(
    private readonly budget: ThreadBudget,
    readonly threads: number,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.giveBack(this.threads);
  }
}

interface Waiting {
  threads: number;
  grant(lease: ThreadLease): void;
}

export class ThreadBudget {
  private held = 0;
  private mostHeld = 0;
  private readonly line = new Set<Waiting>();

  constructor(readonly total: number) {}

  /** Threads held now. */
  get inUse(): number {
    return this.held;
  }

  /** The most threads ever held at once (what tests check the cap by). */
  get peak(): number {
    return this.mostHeld;
  }

  /** Walks waiting for threads now. */
  get waiting(): number {
    return this.line.size;
  }

  /**
   * `threads` (at most the total) for one walk: at once when they are free and nobody waits
   * before it, else once enough are given back; `signal` aborting or `waitMs` passing first ends
   * the wait.
   */
  acquire(threads: number, signal: AbortSignal, waitMs: number): ThreadLease | Promise<ThreadLease | NoThreads> {
    const wanted = Math.min(threads, this.total);
    if (this.line.size === 0 && this.held + wanted <= this.total) return this.take(wanted);
    if (signal.aborted) return Promise.resolve("cancelled");
    return new Promise((resolve) => {
      const stop = (why: NoThreads) => {
        if (!this.line.delete(waiting)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(why);
        // Leaving may let the walks behind it start.
        this.serve();
      };
      const onAbort = () => stop("cancelled");
      const timer = setTimeout(() => stop("deadline"), Math.max(0, waitMs));
      const waiting: Waiting = {
        threads: wanted,
        grant: (lease) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve(lease);
        },
      };
      this.line.add(waiting);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  giveBack(threads: number): void {
    this.held -= threads;
    this.serve();
  }

  /** Grants waiting walks in order while the first one fits. */
  private serve(): void {
    for (const waiting of this.line) {
      if (this.held + waiting.threads > this.total) return;
      this.line.delete(waiting);
      waiting.grant(this.take(waiting.threads));
    }
  }

  private take(threads: number): ThreadLease {
    this.held += threads;
    if (this.held > this.mostHeld) this.mostHeld = this.held;
    return new Lease(this, threads);
  }
}

/** The one budget of this process. */
export const nativeThreads = new ThreadBudget(NATIVE_THREAD_BUDGET);
