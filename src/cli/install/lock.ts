/** One mcpkit writer per config file at a time: `<file>.lock`, created with O_EXCL, taken over when stale. */
import fs from "node:fs";
import path from "node:path";
import { createExclusive, makeFolder, removeLeftTemps, WriteRefused } from "./write.ts";

const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a killed run: nobody still holds it, and it would block every later one. */
const STALE_LOCK_MS = 30_000;

/** Which lock file this is: a removed lock's inode can be reused, its modification time not to the nanosecond. */
export type LockIdentity = Pick<fs.BigIntStats, "ino" | "mtimeNs">;

function sameLock(a: LockIdentity | undefined, b: LockIdentity): boolean {
  return a !== undefined && a.ino === b.ino && a.mtimeNs === b.mtimeNs;
}

/** Creates `lock` unless any file (a link included) has that name: its identity, or undefined when taken. */
export function tryLock(lock: string): LockIdentity | undefined {
  const fd = createExclusive(lock);
  if (fd === undefined) return undefined;
  try {
    return fs.fstatSync(fd, { bigint: true });
  } finally {
    fs.closeSync(fd);
  }
}

/** The lock file now there, as a waiter sees it. */
export function seeLock(lock: string): fs.BigIntStats | undefined {
  return fs.lstatSync(lock, { bigint: true, throwIfNoEntry: false });
}

/** How far in the future a live lock's time may be (clocks of a network share); beyond it, the lock is stale too. */
const CLOCK_SKEW_MS = 5_000;

/** Left by a killed run: older than STALE_LOCK_MS, or dated in the future (a lock that would never grow old). */
export function isStale(seen: fs.BigIntStats, now = Date.now()): boolean {
  const age = now - Number(seen.mtimeMs);
  return age > STALE_LOCK_MS || age < -CLOCK_SKEW_MS;
}

/** No mcpkit makes a directory there: say what to remove rather than fail at the removal. */
function refuseDirectory(name: string, seen: fs.BigIntStats | undefined): void {
  if (seen?.isDirectory())
    throw new WriteRefused(
      `${name} is a directory, not a lock mcpkit made; if no mcpkit install is running, remove it (rmdir ${name}) and run again`,
    );
}

/**
 * Takes `guard` (an O_EXCL file), also when a takeover killed midway left it behind: a stale guard is removed as a
 * stale lock is, so it cannot block its lock's takeover forever.
 */
function takeGuard(guard: string): LockIdentity | undefined {
  const held = tryLock(guard);
  if (held) return held;
  const seen = seeLock(guard);
  refuseDirectory(guard, seen);
  if (!seen || !isStale(seen)) return undefined;
  fs.rmSync(guard, { force: true });
  return tryLock(guard);
}

/**
 * Removes `lock` if it is still the stale file `seen`; true when it did. Two waiters may judge the same lock stale,
 * and the later one must not remove the lock the first has just created in its place: a guard named after `seen`'s
 * identity (O_EXCL) lets one waiter at a time check that the lock is still that file and remove it, and a waiter
 * that finds the guard taken leaves the takeover to its holder.
 */
export function breakStaleLock(lock: string, seen: LockIdentity): boolean {
  const guard = `${lock}.${seen.ino}-${seen.mtimeNs}.takeover`;
  if (!takeGuard(guard)) return false;
  try {
    if (!sameLock(seeLock(lock), seen)) return false;
    fs.rmSync(lock, { force: true });
    return true;
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/** What to remove when no mcpkit is running: the lock, and any takeover guard beside it. */
function heldMessage(lock: string): string {
  const prefix = `${path.basename(lock)}.`;
  const guards = fs
    .readdirSync(path.dirname(lock))
    .filter((name) => name.startsWith(prefix) && name.endsWith(".takeover"))
    .map((name) => path.join(path.dirname(lock), name));
  return `${lock} is held by another mcpkit install; if none is running, remove ${[lock, ...guards].join(" and ")} and run again`;
}

/** Runs `work` while holding `<file>.lock`, so a second mcpkit waits instead of racing. */
export function withLock<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  makeFolder(path.dirname(file));
  let told = false;
  let held = tryLock(lock);
  while (!held) {
    const seen = seeLock(lock);
    refuseDirectory(lock, seen);
    if (seen && isStale(seen) && breakStaleLock(lock, seen)) {
      held = tryLock(lock);
      continue;
    }
    if (Date.now() > deadline) throw new WriteRefused(heldMessage(lock));
    if (!told) process.stderr.write(`mcpkit: waiting for ${lock}: another mcpkit install is writing this file\n`);
    told = true;
    Bun.sleepSync(20);
    held = tryLock(lock);
  }
  try {
    removeLeftTemps(file);
    return work();
  } finally {
    // Only our own lock: had a slow run's lock been taken over, removing by name would free the new holder's.
    if (sameLock(seeLock(lock), held)) fs.rmSync(lock, { force: true });
  }
}
