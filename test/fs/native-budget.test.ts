/**
 * The native walks' threads across concurrent searches (issue 34 H3): however many searches hand
 * over at once, the walks running together never hold more than NATIVE_THREAD_BUDGET threads; the
 * others wait their turn and then walk the same tree to the same counts. In process, with the
 * budget's own counters (no timing): every walk below is started in the same turn, so without the
 * budget all of them would start their threads at once. The budget itself is checked first, alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { directoryAccess } from "../../src/toolsets/fs/directories.ts";
import { libc } from "../../src/toolsets/fs/libc.ts";
import {
  NATIVE_THREAD_BUDGET,
  ThreadBudget,
  type ThreadLease,
  nativeThreads,
} from "../../src/toolsets/fs/native-budget.ts";
import { nativeWalk } from "../../src/toolsets/fs/native-walk.ts";
import { quietSearch, walkRequest } from "./support.ts";

const hasNativeWalk = process.platform === "linux" && libc() !== undefined;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-budget-"));
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(root, `d${d}`));
    for (let f = 0; f < 50; f++) writeFileSync(join(root, `d${d}`, `f${f}.txt`), "x");
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test.skipIf(!hasNativeWalk)(
  "concurrent walks stay within the thread budget, the rest wait and then walk the whole tree",
  async () => {
    const walks = 3 * (NATIVE_THREAD_BUDGET / 4);
    const starts = Array.from({ length: walks }, () => directoryAccess().openStart(root, ""));
    try {
      const outcomes = starts.map((start) =>
        nativeWalk(walkRequest(root, { maxDepth: 64 }), [{ fd: start.fd, direct: true, relative: "", depth: 1 }], {
          ...quietSearch,
        }),
      );
      // Every walk has asked by now (each runs to its first wait in this turn): some had to wait.
      expect(nativeThreads.waiting).toBeGreaterThan(0);
      expect(nativeThreads.inUse).toBeLessThanOrEqual(NATIVE_THREAD_BUDGET);
      const done = await Promise.all(outcomes);
      expect(done.map((outcome) => outcome?.scannedFiles)).toEqual(Array(walks).fill(1000));
      expect(nativeThreads.peak).toBeLessThanOrEqual(NATIVE_THREAD_BUDGET);
      expect({ inUse: nativeThreads.inUse, waiting: nativeThreads.waiting }).toEqual({ inUse: 0, waiting: 0 });
    } finally {
      for (const start of starts) start.release();
    }
  },
  60_000,
);

const live = new AbortController().signal;

describe("the native walks' thread budget", () => {
  test("walks beyond the budget wait in order and start as threads are given back; the peak never exceeds it", async () => {
    const budget = new ThreadBudget(8);
    const a = budget.acquire(4, live, 60_000) as ThreadLease;
    const b = budget.acquire(4, live, 60_000) as ThreadLease;
    const c = budget.acquire(4, live, 60_000);
    const d = budget.acquire(4, live, 60_000);
    expect([c, d].map((waiting) => waiting instanceof Promise)).toEqual([true, true]);
    expect({ inUse: budget.inUse, waiting: budget.waiting }).toEqual({ inUse: 8, waiting: 2 });
    a.release();
    a.release();
    const leaseC = (await c) as ThreadLease;
    expect({ inUse: budget.inUse, waiting: budget.waiting }).toEqual({ inUse: 8, waiting: 1 });
    b.release();
    leaseC.release();
    ((await d) as ThreadLease).release();
    expect({ inUse: budget.inUse, peak: budget.peak }).toEqual({ inUse: 0, peak: 8 });
  });

  test("a waiting walk that is cancelled leaves the line, and the one behind it moves up", async () => {
    const budget = new ThreadBudget(4);
    const held = budget.acquire(4, live, 60_000) as ThreadLease;
    const aborter = new AbortController();
    const cancelled = budget.acquire(4, aborter.signal, 60_000);
    const behind = budget.acquire(2, live, 60_000);
    aborter.abort();
    expect(await cancelled).toBe("cancelled");
    expect(budget.waiting).toBe(1);
    held.release();
    expect(typeof (await behind)).toBe("object");
  });
});
