/**
 * Opening a SQLite file that other processes open at the same moment (src/core/sqlite-open.ts):
 * SQLite sometimes answers SQLITE_BUSY at once though busy_timeout says wait, and an open that lost
 * such a race is run again. It left a CI run red: 1 of 32 opens of one new BOJ catalogue file by 8
 * processes failed "database is locked" (test/boj/search-store-race.test.ts), and in the product
 * that server would have kept its catalogue in memory and fetched all of BOJ again. Pauses are
 * injected or recorded, never waited on; the stores are checked with a busy answer injected once.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqlStore } from "../../src/core/sql-store.ts";
import { OPEN_ATTEMPTS, isSqliteBusy, openRetrying, openRetryingSync, pauseAfter } from "../../src/core/sqlite-open.ts";
import { CatalogStore } from "../../src/toolsets/boj/search/store.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-sqlite-open-");

/** An error as bun:sqlite and Bun.SQL throw it for SQLITE_BUSY (or an extended form). */
function busy(code = "SQLITE_BUSY"): Error {
  return Object.assign(new Error("database is locked"), { code, errno: 5 });
}

/** An open that fails with `errors` in turn, then returns "open". */
function failingFirst(errors: Error[]): { open: () => string; attempts: () => number } {
  let attempts = 0;
  return {
    open: () => {
      const error = errors[attempts++];
      if (error) throw error;
      return "open";
    },
    attempts: () => attempts,
  };
}

describe("openRetryingSync", () => {
  test("an open that SQLite answered busy is run again, after pauses that grow", () => {
    const { open, attempts } = failingFirst([busy(), busy("SQLITE_BUSY_RECOVERY"), busy("SQLITE_BUSY_SNAPSHOT")]);
    const pauses: number[] = [];
    expect(openRetryingSync(open, (ms) => pauses.push(ms))).toBe("open");
    expect(attempts()).toBe(4);
    expect(pauses).toEqual([5, 10, 15]);
  });

  test("any other failure is thrown at once, without a pause", () => {
    const readonly = Object.assign(new Error("attempt to write a readonly database"), { code: "SQLITE_READONLY" });
    const { open, attempts } = failingFirst([readonly]);
    const pauses: number[] = [];
    expect(() => openRetryingSync(open, (ms) => pauses.push(ms))).toThrow("readonly");
    expect(attempts()).toBe(1);
    expect(pauses).toEqual([]);
  });

  test("a lock that stays taken fails after OPEN_ATTEMPTS tries and about a second of pauses", () => {
    const { open, attempts } = failingFirst(Array.from({ length: 100 }, () => busy()));
    const pauses: number[] = [];
    expect(() => openRetryingSync(open, (ms) => pauses.push(ms))).toThrow("database is locked");
    expect(attempts()).toBe(OPEN_ATTEMPTS);
    expect(pauses).toHaveLength(OPEN_ATTEMPTS - 1);
    expect(pauses.reduce((sum, ms) => sum + ms, 0)).toBe(950);
    expect(Math.max(...pauses)).toBe(pauseAfter(OPEN_ATTEMPTS - 1));
  });

  test("only SQLITE_BUSY and its extended forms count as busy", () => {
    expect(isSqliteBusy(busy())).toBe(true);
    expect(isSqliteBusy(busy("SQLITE_BUSY_TIMEOUT"))).toBe(true);
    expect(isSqliteBusy(Object.assign(new Error("locked"), { code: "SQLITE_LOCKED" }))).toBe(false);
    expect(isSqliteBusy(new Error("database is locked"))).toBe(false);
    expect(isSqliteBusy(null)).toBe(false);
  });
});

test("openRetrying (awaited) retries the same way", async () => {
  const { open, attempts } = failingFirst([busy(), busy()]);
  const pauses: number[] = [];
  expect(
    await openRetrying(
      async () => open(),
      async (ms) => void pauses.push(ms),
    ),
  ).toBe("open");
  expect(attempts()).toBe(3);
  expect(pauses).toEqual([5, 10]);
});

describe("the stores open through it", () => {
  const run = Database.prototype.run;
  afterAll(() => {
    Database.prototype.run = run;
  });

  test("the BOJ catalogue opens when its switch to WAL was answered busy once", () => {
    let injected = 0;
    Database.prototype.run = function (this: Database, ...args: Parameters<Database["run"]>) {
      if (injected === 0 && /journal_mode = WAL/.test(String(args[0]))) {
        injected++;
        throw busy();
      }
      return run.apply(this, args);
    } as Database["run"];
    try {
      const path = join(scratch(), "boj-series-catalog.sqlite");
      const store = new CatalogStore(path);
      try {
        expect(injected).toBe(1);
        expect(store.claimRefresh("test", Date.now(), Date.now() + 60_000, () => true)).toBe(true);
        expect((store.db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
      } finally {
        store.close();
      }
    } finally {
      Database.prototype.run = run;
    }
  });

  test("a SQLite state store (authorization server, BOJ shared state) opens when its schema was answered busy once", async () => {
    let asked = 0;
    const path = join(scratch(), "state.db");
    const { sql } = await openSqlStore(`sqlite:${path}`, {
      lockKey: 1,
      statements: () => {
        if (asked++ === 0) throw busy();
        return ["create table if not exists t (x integer)"];
      },
    });
    try {
      expect(asked).toBe(2);
      expect(await sql.unsafe("select count(*) as n from t")).toEqual([{ n: 0 }]);
    } finally {
      await sql.close();
    }
  });
});
