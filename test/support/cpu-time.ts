/**
 * CPU time instead of the wall clock, for tests whose point is "this takes little work" (a costly
 * glob refused before it is expanded, a matcher that does not backtrack). Other processes on a busy
 * machine stretch the wall-clock time of the same work many times over; they add nothing to the CPU
 * time the work itself used.
 */
import { readFileSync } from "node:fs";

/** The CPU time (user and system, all threads) this process has used so far, in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The CPU time `work` used in this process, in ms, with its result. */
export function cpuCost<T>(work: () => T): { result: T; cpuMs: number } {
  const before = ownCpuMs();
  const result = work();
  return { result, cpuMs: ownCpuMs() - before };
}

/** Linux counts another process's CPU time in clock ticks of 10 ms (getconf CLK_TCK: 100). */
const TICK_MS = 10;

/**
 * The CPU time another process has used so far, in ms (10 ms steps), from /proc/PID/stat;
 * undefined where that is missing (not Linux).
 */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}
