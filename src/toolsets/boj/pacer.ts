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

/**
 * A pacer with its own slots: waits until a request to `origin` may start, at least `intervalMs`
 * after the previous one. `onWait` hears how long the wait will be before it starts (only when
 * there is one).
 */
export function createPacer(clock: PacerClock = realClock): Pacer {
  const nextFreeSlot = new Map<string, number>();
  return async (origin, intervalMs, signal, onWait) => {
    if (intervalMs <= 0) return;
    const now = clock.now();
    const slot = Math.max(now, nextFreeSlot.get(origin) ?? 0);
    nextFreeSlot.set(origin, slot + intervalMs);
    if (slot <= now) return;
    onWait?.(Math.ceil(slot - now));
    try {
      await clock.sleep(slot - now, signal);
    } catch (error) {
      // A cancelled caller sends nothing: if nobody queued behind it, free its slot so the next
      // caller is not held back by a request that never went out.
      if (nextFreeSlot.get(origin) === slot + intervalMs) nextFreeSlot.set(origin, slot);
      throw error;
    }
  };
}

/** This process's pacer, which every session's client shares. */
export const awaitTurn: Pacer = createPacer();
