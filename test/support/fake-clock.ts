/**
 * A clock that moves only when a test says so, for code that takes `now` and `sleep` as
 * parameters (the BOJ pacer and retry backoff): the test reads which waits were asked for and
 * advances time past them, instead of sleeping through them.
 */
export class FakeClock {
  private time = 0;
  private readonly sleepers: { until: number; wake: () => void }[] = [];
  private readonly sleepWatchers: ((ms: number) => void)[] = [];
  /** Every wait asked for, in milliseconds, in order. */
  readonly waits: number[] = [];

  /** Resolves with the length of the next wait asked for: the moment the code under test starts waiting. */
  nextSleep(): Promise<number> {
    return new Promise((resolve) => this.sleepWatchers.push(resolve));
  }

  now = (): number => this.time;

  /** Resolves once `advance` moves past `ms` from now; rejects with the signal's reason when it aborts first. */
  sleep = (ms: number, signal: AbortSignal): Promise<void> => {
    this.waits.push(ms);
    for (const watcher of this.sleepWatchers.splice(0)) watcher(ms);
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const sleeper = {
        until: this.time + ms,
        wake: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  };

  /** How many sleeps are still waiting. */
  get sleeping(): number {
    return this.sleepers.length;
  }

  /** Moves time forward by `ms`, waking (in order) every sleep that is then due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.sleepers.filter((sleeper) => sleeper.until <= this.time).sort((a, b) => a.until - b.until);
    for (const sleeper of due) {
      this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
      sleeper.wake();
    }
  }
}

/** A `sleep` that records the wait and returns at once: for code whose waits are only to be counted. */
export function recordingSleep(waits: number[]): (ms: number, signal: AbortSignal) => Promise<void> {
  return async (ms, signal) => {
    waits.push(ms);
    if (signal.aborted) throw signal.reason;
  };
}
