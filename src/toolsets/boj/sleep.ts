/** A timer that an AbortSignal cuts short, rejecting with the signal's reason. */
import { setTimeout as delay } from "node:timers/promises";

/**
 * node:timers/promises does the timing and the listener bookkeeping; it rejects with a generic
 * AbortError, and the callers (retries, pacing) report why they stopped, which is the signal's reason.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  // A timer past 2^31 − 1 ms fires after 1 ms (with a TimeoutOverflowWarning): a pacing slot that
  // far away (a shared row set by hand) let a request go at once. Capped, it waits instead.
  return delay(Math.min(ms, MAX_TIMER_MS), undefined, { signal }).catch((error: unknown) => {
    throw signal.aborted ? signal.reason : error;
  });
}

/** The longest delay a timer keeps (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
