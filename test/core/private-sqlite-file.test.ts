/**
 * A `sqlite:PATH` store (core/sql-store.ts, core/private-sqlite-file.ts): the authorization
 * server's state and BOJ's shared state open a SQLite file only in a folder that is the user's own
 * and that nobody else can change, and never through a link or another user's database or
 * companion. Before, openSqliteFile trusted whatever was at PATH: a database another user planted in
 * /tmp was served as mcpkit's cache, a link at the database's name was followed, and -wal and -shm
 * files of another user next to a private database were used.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, lchownSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { UnsafeSqliteFile } from "../../src/core/private-sqlite-file.ts";
import { openStore } from "../../src/mcp/auth-server/store.ts";
import { linkSharedState } from "../../src/toolsets/boj/shared-link.ts";
import { openSharedState } from "../../src/toolsets/boj/shared-state.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-private-sqlite-");
const isRoot = process.getuid?.() === 0;
const quiet = createLogger("off", () => {});

/** Opens the authorization server's state at `path` and closes it again. */
async function openAuth(path: string): Promise<void> {
  const store = await openStore(`sqlite:${path}`);
  await store.close();
}

/** Opens BOJ's shared state at `path` (as the first call does), writes an answer, and closes it again. */
async function openBoj(path: string): Promise<void> {
  const state = await openSharedState({
    url: `sqlite:${path}`,
    cacheBytes: 10_000,
    upstream: "http://boj.test",
    log: quiet,
    flag: "--boj-shared-state (BOJ_SHARED_STATE)",
  });
  try {
    await state.cache?.set("/key", { output: { n: 1 }, raw: () => "raw", storedAt: 1 }, 10, 60_000);
  } finally {
    await state.close();
  }
}

/** The start-up check of --boj-shared-state: what `mcpkit` runs before it serves (toolset.ts builds the link). */
function linkBoj(path: string): void {
  const link = linkSharedState(`sqlite:${path}`, { cacheBytes: 0, upstream: "http://boj.test", log: quiet });
  void link.close();
}

const STORES = [
  { name: "the authorization server's state", open: openAuth, flag: "--state (MCPKIT_STATE)" },
  { name: "BOJ's shared state", open: openBoj, flag: "--boj-shared-state (BOJ_SHARED_STATE)" },
] as const;

/** The refusal `open` gives: an UnsafeSqliteFile naming the path, the reason and the fix. */
async function refusal(open: () => Promise<void> | void): Promise<string> {
  let thrown: unknown;
  try {
    await open();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(UnsafeSqliteFile);
  return (thrown as Error).message;
}

describe.each(STORES)("$name on sqlite:PATH", ({ open, flag }) => {
  test("a fresh folder of the user's works: made 0700, the database 0600", async () => {
    const dir = join(scratch(), "state");
    const path = join(dir, "mcpkit.db");
    await open(path);
    await open(path); // and again, on the file it made
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test(":memory: still works", async () => {
    await open(":memory:");
  });

  test.each(["mcpkit.db", "mcpkit.db-wal"])(
    "a link planted at %s is refused, naming it and the fix; its target stays as it was",
    async (name) => {
      const dir = scratch();
      const target = join(scratch(), "private-notes.txt");
      writeFileSync(target, "");
      symlinkSync(target, join(dir, name));
      const message = await refusal(() => open(join(dir, "mcpkit.db")));
      expect(message).toContain(`cannot use the SQLite file ${join(dir, "mcpkit.db")}`);
      expect(message).toContain(`${join(dir, name)} is a symbolic link`);
      expect(message).toContain(`pass ${flag} a sqlite: path in a folder of your own that only you can write`);
      expect(readFileSync(target, "utf8")).toBe("");
    },
  );

  test.each(["0777", "01777"])("a folder others can write (mode %s, /tmp is 01777) is refused", async (mode) => {
    const dir = scratch();
    chmodSync(dir, Number.parseInt(mode, 8));
    const message = await refusal(() => open(join(dir, "mcpkit.db")));
    expect(message).toContain(`the folder ${dir} is writable by other users (mode ${mode})`);
    expect(message).toContain(flag);
    // Shared on purpose (sticky, as /tmp): no advice to chmod it.
    expect(message.includes("chmod go-w")).toBe(mode === "0777");
  });

  test("a folder below a folder others can write (not sticky) is refused, made or not", async () => {
    const shared = scratch();
    chmodSync(shared, 0o777);
    const message = await refusal(() => open(join(shared, "mine", "mcpkit.db")));
    expect(message).toContain(`the folder ${shared}, above the database folder ${join(shared, "mine")}`);
  });

  test.each(["mcpkit.db", "mcpkit.db-wal", "mcpkit.db-shm", "mcpkit.db-journal"])(
    "%s of another user, world-writable, next to the user's database is refused (root only)",
    async (name) => {
      if (!isRoot) {
        console.log("skipped: only root can give a file to another user");
        return;
      }
      const dir = scratch();
      const path = join(dir, "mcpkit.db");
      await open(path);
      writeFileSync(join(dir, name), "", { flag: "a" });
      chmodSync(join(dir, name), 0o666);
      lchownSync(join(dir, name), 65534, 65534);
      const message = await refusal(() => open(path));
      expect(message).toContain(`${join(dir, name)} belongs to another user (uid 65534)`);
    },
  );
});

describe("--boj-shared-state sqlite:PATH is checked at start-up, before the first call opens it", () => {
  test("an unsafe path stops the start: a link, a shared folder, and one above a missing folder", async () => {
    const withLink = scratch();
    symlinkSync(join(scratch(), "elsewhere.db"), join(withLink, "boj.db-wal"));
    expect(await refusal(() => linkBoj(join(withLink, "boj.db")))).toContain("boj.db-wal is a symbolic link");
    const shared = scratch();
    chmodSync(shared, 0o1777);
    expect(await refusal(() => linkBoj(join(shared, "boj.db")))).toContain(
      "pass --boj-shared-state (BOJ_SHARED_STATE) a sqlite: path in a folder of your own that only you can write",
    );
    chmodSync(shared, 0o777);
    expect(await refusal(() => linkBoj(join(shared, "new", "boj.db")))).toContain(`the folder ${shared}, above`);
  });

  test("a safe path, made or not, and :memory: start without making anything", () => {
    const dir = scratch();
    linkBoj(join(dir, "state", "boj.db"));
    linkBoj(":memory:");
    mkdirSync(join(dir, "made"), { mode: 0o700 });
    linkBoj(join(dir, "made", "boj.db"));
    expect(() => statSync(join(dir, "state"))).toThrow();
    expect(() => statSync(join(dir, "made", "boj.db"))).toThrow();
  });

  test("a database of another user is refused at start-up (root only)", async () => {
    if (!isRoot) {
      console.log("skipped: only root can give a file to another user");
      return;
    }
    const dir = scratch();
    writeFileSync(join(dir, "boj.db"), "");
    lchownSync(join(dir, "boj.db"), 65534, 65534);
    expect(await refusal(() => linkBoj(join(dir, "boj.db")))).toContain("belongs to another user (uid 65534)");
  });
});
