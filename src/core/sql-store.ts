/**
 * The one way mcpkit opens a SQL store (the authorization server's state, BOJ's shared answers
 * and pacing): Postgres with a bounded wait for a connection, or a SQLite file private to its
 * owner that several processes can share. Both stores were opened by hand before and drifted
 * (only one waited for SQLite's lock); this keeps their setup identical.
 */
import { basename, dirname } from "node:path";
import { privateSqliteFile, sqlitePathOf, sqliteStoreRule } from "./private-sqlite-file.ts";
import { openRetrying } from "./sqlite-open.ts";
// The global, not `import { SQL } from "bun"`: a compiled binary hoists that import and loads
// Bun's SQL clients at every start-up, which costs a stdio start 2 ms even when no database is used.
import type { SQL } from "bun";

export type Dialect = "postgres" | "sqlite";

export interface SqlStore {
  sql: SQL;
  dialect: Dialect;
}

export interface StoreSchema {
  /** A Postgres advisory-lock key, one per store: instances that start together create tables one at a time. */
  lockKey: number;
  /** `create … if not exists` statements, run in order. */
  statements: (dialect: Dialect) => readonly string[];
  /** Columns added by later releases: [table, column, type]. */
  addedColumns?: readonly (readonly [string, string, string])[];
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//i.test(url) ? "postgres" : "sqlite";
}

/**
 * Opens `postgres://…` or `sqlite:PATH` and creates what the schema names; closes it again if that
 * fails. On Postgres `timeoutMs` bounds the wait for a connection and, on the server, each
 * statement and lock wait, so a request that outlived its caller does not run on. A SQLite file
 * that is not private to the user is refused with `UnsafeSqliteFile`, whose fix names `flag`, the
 * option that gave the URL (`--state (MCPKIT_STATE)`).
 */
export async function openSqlStore(
  url: string,
  schema: StoreSchema,
  timeoutMs = 5000,
  flag?: string,
): Promise<SqlStore> {
  const dialect = dialectOf(url);
  const sql =
    dialect === "postgres"
      ? new Bun.SQL(url, {
          max: 4,
          // A database that accepts no connection must fail a request in seconds, not hang it.
          connectionTimeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
          connection: { statement_timeout: timeoutMs, lock_timeout: timeoutMs },
        })
      : openSqliteFile(url, flag);
  try {
    if (dialect === "postgres") {
      await sql.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(${schema.lockKey})`;
        for (const statement of schema.statements(dialect)) await tx.unsafe(statement);
        for (const [table, column, type] of schema.addedColumns ?? []) {
          await tx.unsafe(`alter table ${table} add column if not exists ${column} ${type}`);
        }
      });
    } else {
      // Several processes write one file: wait for the lock instead of failing with SQLITE_BUSY,
      // and let readers go on while one writes.
      // Run again over the moments SQLite fails an open at once all the same (core/sqlite-open.ts).
      await openRetrying(async () => {
        await sql.unsafe("pragma busy_timeout = 5000");
        if (!url.endsWith(":memory:")) await sql.unsafe("pragma journal_mode = wal");
        // No transaction: SQLite runs on this thread, so a transaction held open across an await
        // would make any other handle on the file block the thread until busy_timeout. Each
        // `if not exists` statement is atomic on its own.
        for (const statement of schema.statements(dialect)) await sql.unsafe(statement);
        for (const [table, column, type] of schema.addedColumns ?? []) await addSqliteColumn(sql, table, column, type);
      });
    }
  } catch (error) {
    await sql.close().catch(() => {});
    throw error;
  }
  return { sql, dialect };
}

/** SQLite has no `add column if not exists`; another process may add it between the check and the change. */
async function addSqliteColumn(sql: SQL, table: string, column: string, type: string): Promise<void> {
  if ((await sql.unsafe(`select 1 from pragma_table_info('${table}') where name = '${column}'`)).length) return;
  try {
    await sql.unsafe(`alter table ${table} add column ${column} ${type}`);
  } catch (error) {
    if (!/duplicate column/i.test(error instanceof Error ? error.message : String(error))) throw error;
  }
}

/**
 * The file is the operator's and may hold secrets: created owner-only, in a folder only they can
 * change, and never a link or another user's file (core/private-sqlite-file.ts): a database or
 * -wal planted by another user would be read as mcpkit's own.
 */
function openSqliteFile(url: string, flag: string | undefined): SQL {
  const path = sqlitePathOf(url);
  const filename =
    path === ":memory:" ? path : privateSqliteFile(dirname(path), basename(path), sqliteStoreRule(path, flag));
  return new Bun.SQL({ adapter: "sqlite", filename });
}
