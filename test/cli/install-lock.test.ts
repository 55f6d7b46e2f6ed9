/**
 * The install lock's takeover of a stale lock, with two contenders interleaved step by step in process: both judge
 * the same lock stale, one takes it over and locks, then the other acts on what it saw.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "bun:test";
import { breakStaleLock, isStale, seeLock, tryLock, withLock } from "../../src/cli/install/lock.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A config path whose lock a killed run left behind a minute ago. */
function staleLock(): { file: string; lock: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpkit-lock-"));
  dirs.push(dir);
  const file = path.join(dir, "mcp.json");
  const lock = `${file}.lock`;
  fs.writeFileSync(lock, "");
  const minuteAgo = new Date(Date.now() - 60_000);
  fs.utimesSync(lock, minuteAgo, minuteAgo);
  return { file, lock };
}

test("the second of two waiters that saw the same stale lock leaves the first one's new lock alone", () => {
  const { lock } = staleLock();
  const seenByA = seeLock(lock);
  const seenByB = seeLock(lock);
  if (!seenByA || !seenByB) throw new Error("the planted lock is missing");
  expect([isStale(seenByA), isStale(seenByB)]).toEqual([true, true]);

  expect(breakStaleLock(lock, seenByA)).toBe(true);
  const heldByA = tryLock(lock);
  expect(heldByA).toBeDefined();

  expect(breakStaleLock(lock, seenByB)).toBe(false);
  const now = seeLock(lock);
  expect({ ino: now?.ino, mtimeNs: now?.mtimeNs }).toEqual({ ino: heldByA?.ino, mtimeNs: heldByA?.mtimeNs });
  expect(tryLock(lock)).toBeUndefined();
  // No takeover guard is left behind.
  expect(fs.readdirSync(path.dirname(lock))).toEqual([path.basename(lock)]);
});

test("withLock takes a stale lock over, and on the way out removes only its own lock", () => {
  const { file, lock } = staleLock();
  let ran = false;
  withLock(file, () => {
    ran = true;
    // Meanwhile another run takes this (slow) run's lock over and locks: that lock is not ours to remove.
    fs.rmSync(lock);
    fs.writeFileSync(lock, "");
  });
  expect(ran).toBe(true);
  expect(fs.existsSync(lock)).toBe(true);
  fs.rmSync(lock);
  withLock(file, () => undefined);
  expect(fs.existsSync(lock)).toBe(false);
});
