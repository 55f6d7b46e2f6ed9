/** One SQL store setup (core/sql-store.ts) for the authorization server's state and BOJ's shared state. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { openSqlStore } from "../../src/core/sql-store.ts";
import { openStore } from "../../src/mcp/auth-server/store.ts";
import { openSharedState } from "../../src/toolsets/boj/shared-state.ts";

const dir = mkdtempSync(join(tmpdir(), "mcpkit-sql-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function pragmas(path: string) {
  const { sql } = await openSqlStore(`sqlite:${path}`, { lockKey: 1, statements: () => [] });
  try {
    const [{ journal_mode }] = await sql.unsafe("pragma journal_mode");
    return { journal: journal_mode as string, mode: statSync(path).mode & 0o777 };
  } finally {
    await sql.close();
  }
}

describe("one SQL store setup", () => {
  test("the authorization server's state and BOJ's shared state are both WAL files, owner-only", async () => {
    const authPath = join(dir, "auth", "state.db");
    const auth = await openStore(`sqlite:${authPath}`);
    const bojPath = join(dir, "boj", "answers.db");
    const boj = await openSharedState({
      url: `sqlite:${bojPath}`,
      cacheBytes: 1024,
      upstream: "http://127.0.0.1:9",
      log: createLogger("off"),
    });
    try {
      expect(await pragmas(authPath)).toEqual({ journal: "wal", mode: 0o600 });
      expect(await pragmas(bojPath)).toEqual({ journal: "wal", mode: 0o600 });
    } finally {
      await auth.close();
      await boj.close();
    }
  });

  test("a busy file is waited for (busy_timeout), and added columns are added once however often it is opened", async () => {
    const path = join(dir, "columns.db");
    const schema = {
      lockKey: 1,
      statements: () => ["create table if not exists t (a text)"],
      addedColumns: [["t", "b", "integer not null default 0"]] as const,
    };
    const first = await openSqlStore(`sqlite:${path}`, schema);
    const second = await openSqlStore(`sqlite:${path}`, schema);
    try {
      const [{ timeout }] = await second.sql.unsafe("pragma busy_timeout");
      expect(timeout).toBe(5000);
      const columns = await second.sql.unsafe("select name from pragma_table_info('t')");
      expect(columns.map((row: { name: string }) => row.name)).toEqual(["a", "b"]);
    } finally {
      await first.sql.close();
      await second.sql.close();
    }
  });
});
