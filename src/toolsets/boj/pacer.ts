/**
 * Spacing between requests to one BOJ host, shared by every session of the process: BOJ forbids
 * high-frequency access and may cut off or suspend a client that does it (manual p.2, p.11).
 * Each request reserves the next free slot, so concurrent callers queue in arrival order.
 */
import { sleep } from "./sleep.ts";

/** How the client waits for its turn: this process's `awaitTurn`, or the fleet's (shared-state.ts). */
export type Pacer = (
  origin: string,
  intervalMs: number,
  signal: AbortSignal,
  onWait?: (ms: number) => void,
) => Promise<void>;

/** The clock a pacer reads and waits on; tests pass a fake one to check slots without waiting. */
export interface PacerClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const realClock: PacerClock = { now: () => performance.now(), sleep };

/** A caller waiting for its slot, which moves earlier when a caller ahead of it gives its own back. */
interface Waiter {
  slot: number;
  /** Ends the current wait early, to wait again for the (new) slot. */
  reschedule: AbortController;
}

/** One origin's queue: the next free slot, and the callers waiting, in slot order. */
interface Line {
  next: number;
  waiting: Waiter[];
}

/**
 * A pacer with its own slots: waits until a request to `origin` may start, at least `intervalMs`
 * after the previous one. `onWait` hears how long the wait will be before it starts (only when
 * there is one). A cancelled caller sends nothing and gives its slot back: every caller behind it
 * moves one slot earlier (so still one interval after the caller before it), instead of only the
 * last one freeing the end of the queue, which left a phantom slot for each caller cancelled
 * ahead of others: ten callers cancelled in arrival order held the next one back ten intervals.
 */
export function createPacer(clock: PacerClock = realClock): Pacer {
  const lines = new Map<string, Line>();
  return async (origin, intervalMs, signal, onWait) => {
    if (intervalMs <= 0) return;
    let line = lines.get(origin);
    if (!line) lines.set(origin, (line = { next: 0, waiting: [] }));
    const now = clock.now();
    const slot = Math.max(now, line.next);
    line.next = slot + intervalMs;
    if (slot <= now) return;
    onWait?.(Math.ceil(slot - now));
    const waiter: Waiter = { slot, reschedule: new AbortController() };
    line.waiting.push(waiter);
    try {
      for (;;) {
        waiter.reschedule = new AbortController();
        try {
          await clock.sleep(
            Math.max(0, waiter.slot - clock.now()),
            AbortSignal.any([signal, waiter.reschedule.signal]),
          );
          return;
        } catch (error) {
          if (signal.aborted) throw error;
          // Moved earlier: wait again, for the new slot.
        }
      }
    } catch (error) {
      // Only a slot still ahead is given back: every caller behind it waits for a later one, so none has gone yet.
      if (waiter.slot > clock.now()) {
        for (const later of line.waiting.slice(line.waiting.indexOf(waiter) + 1)) {
          later.slot -= intervalMs;
          later.reschedule.abort();
        }
        line.next -= intervalMs;
      }
      throw error;
    } finally {
      line.waiting.splice(line.waiting.indexOf(waiter), 1);
      if (line.waiting.length === 0 && line.next <= clock.now()) lines.delete(origin);
    }
  };
}

/** This process's pacer, which every session's client shares. */
export const awaitTurn: Pacer = createPacer();
