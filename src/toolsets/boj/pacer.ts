/**
 * Spacing between requests to one BOJ host, shared by every session of the process: BOJ forbids
 * high-frequency access and may cut off or suspend a client that does it (manual p.2, p.11).
 * Each request reserves the next free slot, so concurrent callers queue in arrival order.
 */
import { sleep } from "./sleep.ts";

const nextFreeSlot = new Map<string, number>();

/** How the client waits for its turn: this process's `awaitTurn`, or the fleet's (shared-state.ts). */
export type Pacer = (
  origin: string,
  intervalMs: number,
  signal: AbortSignal,
  onWait?: (ms: number) => void,
) => Promise<void>;

/**
 * Waits until a request to `origin` may start, at least `intervalMs` after the previous one.
 * `onWait` hears how long the wait will be before it starts (only when there is one).
 */
export const awaitTurn: Pacer = async (origin, intervalMs, signal, onWait) => {
  if (intervalMs <= 0) return;
  const now = performance.now();
  const slot = Math.max(now, nextFreeSlot.get(origin) ?? 0);
  nextFreeSlot.set(origin, slot + intervalMs);
  if (slot <= now) return;
  onWait?.(Math.ceil(slot - now));
  try {
    await sleep(slot - now, signal);
  } catch (error) {
    // A cancelled caller sends nothing: if nobody queued behind it, free its slot so the next
    // caller is not held back by a request that never went out.
    if (nextFreeSlot.get(origin) === slot + intervalMs) nextFreeSlot.set(origin, slot);
    throw error;
  }
};
