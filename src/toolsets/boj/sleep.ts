/** A timer that an AbortSignal cuts short, rejecting with the signal's reason. */
import { setTimeout as delay } from "node:timers/promises";

/**
 * node:timers/promises does the timing and the listener bookkeeping; it rejects with a generic
 * AbortError, and the callers (retries, pacing) report why they stopped, which is the signal's reason.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch((error: unknown) => {
    throw signal.aborted ? signal.reason : error;
  });
}
