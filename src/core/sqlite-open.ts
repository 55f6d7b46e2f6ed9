/**
 * Opening a SQLite file that other processes open at the same moment (servers started together on
 * one cache folder, a fleet on one volume). `busy_timeout` makes SQLite wait for a lock, but in a
 * few short windows it answers SQLITE_BUSY at once instead: two connections turning one new file
 * to WAL (each holds what the other waits for, and SQLite fails one rather than deadlock), the last
 * connection cleaning up the WAL as it closes, another's recovery after a crash
 * (https://sqlite.org/wal.html, "Sometimes Queries Return SQLITE_BUSY In WAL Mode"). An open that
 * lost such a race is run again after a pause, a bounded number of times: about a second in all.
 * Once a connection is open, none of those windows applies to it.
 */

/** Attempts in all, the first included. */
export const OPEN_ATTEMPTS = 20;

/** The pause after failed attempt `n` (1-based): 5 ms more each time, at most 100 ms; 950 ms over all 19. */
export function pauseAfter(attempt: number): number {
  return Math.min(5 * attempt, 100);
}

/** Whether SQLite answered SQLITE_BUSY (or one of its extended forms) rather than failing for good. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Runs `open` until it does not fail with SQLITE_BUSY, at most OPEN_ATTEMPTS times (bun:sqlite, synchronous). */
export function openRetryingSync<T>(open: () => T, pause: (ms: number) => void = Bun.sleepSync): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return open();
    } catch (error) {
      if (!isSqliteBusy(error) || attempt >= OPEN_ATTEMPTS) throw error;
      pause(pauseAfter(attempt));
    }
  }
}

/** The same for an open that awaits (Bun.SQL's SQLite adapter). */
export async function openRetrying<T>(
  open: () => Promise<T>,
  pause: (ms: number) => Promise<void> = Bun.sleep,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (error) {
      if (!isSqliteBusy(error) || attempt >= OPEN_ATTEMPTS) throw error;
      await pause(pauseAfter(attempt));
    }
  }
}
