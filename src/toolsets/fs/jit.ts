/**
 * A hint to JavaScriptCore for the few loops every listed entry passes through (the getdents64
 * parse, the walk's chunk sort, the parcel copy, the collector's raw loop and the worker's parcel
 * loop): optimize them no further than its DFG tier. FTL, the top tier, spends about 5 ms of a JIT
 * thread's CPU on them in a one-shot search of 200,000 files, taken from the two cores the search's
 * own threads keep busy, for loops whose time goes to one system call per entry, where DFG code
 * is nearly as fast (one-shot wall time about 2.5 ms less; `bun scripts/bench/fs-search.ts`).
 * The same holds for the ranking of the native walk's records (`collector.ts` `qualifyingTime` and
 * `consider`, `StatxFields`), which runs while the native threads keep both cores busy: FTL spent
 * 29 ms of JIT CPU on them in a one-shot search of 200,000 files, 1.4 ms with the hint
 * (`BUN_JSC_reportCompileTimes=1`).
 *
 * `noFTL` is Bun's (`bun:jsc`); where it is missing the loops simply tier up as usual.
 */
type NoFtl = (fn: (...args: never[]) => unknown) => void;

let noFtl: NoFtl | null | undefined;

/** The functions the hint was applied to (for tests). */
const hinted = new Set<unknown>();

export function stayBelowFtl(fn: (...args: never[]) => unknown): void {
  if (noFtl === undefined) {
    try {
      const jsc = require("bun:jsc") as { noFTL?: NoFtl };
      noFtl = typeof jsc.noFTL === "function" ? jsc.noFTL : null;
    } catch {
      noFtl = null;
    }
  }
  if (!noFtl) return;
  noFtl(fn);
  hinted.add(fn);
}

/** The names of the functions that got the hint in this thread (for tests). */
export function belowFtlNames(): string[] {
  return [...hinted].map((fn) => (fn as { name: string }).name);
}
