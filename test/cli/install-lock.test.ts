/**
 * The install lock's takeover of a stale lock, with two contenders interleaved step by step in process: both judge
 * the same lock stale, one takes it over and locks, then the other acts on what it saw.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "bun:test";
import { breakStaleLock, isStale, seeLock, tryLock, withLock } from "../../src/cli/install/lock.ts";
import { cli, tempHome } from "./install-helpers.ts";

/** A config path whose lock a killed run left behind a minute ago. */
function staleLock(): { file: string; lock: string } {
  const dir = tempHome();
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

describe("a lock a killed run left, through the real CLI", () => {
  /** Cursor's config in a new home, and its lock path. */
  function cursorHome(): { home: string; file: string; lock: string } {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    return { home, file, lock: `${file}.lock` };
  }

  test("a lock dated in the future is stale, not held forever", async () => {
    const { home, file, lock } = cursorHome();
    fs.writeFileSync(lock, "");
    const future = new Date("2099-01-01T00:00:00Z");
    fs.utimesSync(lock, future, future);
    const result = await cli(home, "install", "cursor");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).mcpServers.mcpkit).toBeDefined();
    expect(fs.existsSync(lock)).toBe(false);
  });

  test("a takeover guard a killed run left expires as a lock does, and is removed", async () => {
    const { home, file, lock } = cursorHome();
    fs.writeFileSync(lock, "");
    const longAgo = new Date(Date.now() - 120_000);
    fs.utimesSync(lock, longAgo, longAgo);
    const seen = fs.statSync(lock, { bigint: true });
    const guard = `${lock}.${seen.ino}-${seen.mtimeNs}.takeover`;
    fs.writeFileSync(guard, "");
    fs.utimesSync(guard, longAgo, longAgo);
    const result = await cli(home, "install", "cursor");
    expect(result.code, result.stderr).toBe(0);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["mcp.json"]);
  });

  test("a lock that is a directory is refused in one line that names it", async () => {
    const { home, file, lock } = cursorHome();
    fs.mkdirSync(lock);
    const longAgo = new Date(Date.now() - 120_000);
    fs.utimesSync(lock, longAgo, longAgo);
    const result = await cli(home, "install", "cursor");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `mcpkit install: ${lock} is a directory, not a lock mcpkit made; if no mcpkit install is running, remove it (rmdir ${lock}) and run again\n`,
    );
    expect(fs.existsSync(file)).toBe(false);
  });
});
