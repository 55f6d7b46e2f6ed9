/** One mcpkit writer per config file at a time: `<file>.lock`, created with O_EXCL, taken over when stale. */
import fs from "node:fs";
import path from "node:path";
import { WriteRefused } from "./write.ts";

const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a killed run: nobody still holds it, and it would block every later one. */
export const STALE_LOCK_MS = 30_000;

const { O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** Which lock file this is: a removed lock's inode can be reused, its modification time not to the nanosecond. */
export type LockIdentity = Pick<fs.BigIntStats, "ino" | "mtimeNs">;

function sameLock(a: LockIdentity | undefined, b: LockIdentity): boolean {
  return a !== undefined && a.ino === b.ino && a.mtimeNs === b.mtimeNs;
}

/** Creates `lock` unless any file (a link included) has that name: its identity, or undefined when taken. */
export function tryLock(lock: string): LockIdentity | undefined {
  let fd: number;
  try {
    fd = fs.openSync(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
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

export function isStale(seen: fs.BigIntStats, now = Date.now()): boolean {
  return now - Number(seen.mtimeMs) > STALE_LOCK_MS;
}

/**
 * Removes `lock` if it is still the stale file `seen`; true when it did. Two waiters may judge the same lock stale,
 * and the later one must not remove the lock the first has just created in its place: a guard named after `seen`'s
 * identity (O_EXCL) lets one waiter at a time check that the lock is still that file and remove it, and a waiter
 * that finds the guard taken leaves the takeover to its holder.
 */
export function breakStaleLock(lock: string, seen: LockIdentity): boolean {
  const guard = `${lock}.${seen.ino}-${seen.mtimeNs}.takeover`;
  if (!tryLock(guard)) return false;
  try {
    if (!sameLock(seeLock(lock), seen)) return false;
    fs.rmSync(lock, { force: true });
    return true;
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/** Runs `work` while holding `<file>.lock`, so a second mcpkit waits instead of racing. */
export function withLock<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let told = false;
  let held = tryLock(lock);
  while (!held) {
    const seen = seeLock(lock);
    if (seen && isStale(seen) && breakStaleLock(lock, seen)) {
      held = tryLock(lock);
      continue;
    }
    if (Date.now() > deadline)
      throw new WriteRefused(`${lock} is held by another mcpkit install; remove it if none is running`);
    if (!told) process.stderr.write(`mcpkit: waiting for ${lock}: another mcpkit install is writing this file\n`);
    told = true;
    Bun.sleepSync(20);
    held = tryLock(lock);
  }
  try {
    return work();
  } finally {
    // Only our own lock: had a slow run's lock been taken over, removing by name would free the new holder's.
    if (sameLock(seeLock(lock), held)) fs.rmSync(lock, { force: true });
  }
}
