/**
 * The series catalogue on disk: one SQLite file (bun:sqlite) with every database's series and an
 * FTS5 trigram index over their normalised names and notes. Each database is replaced in one
 * transaction, so a crash or a failed refresh leaves the previous copy whole; a database whose
 * refresh fails keeps its last copy and records why. `:memory:` serves `--boj-catalog-dir off`.
 */
import { Database, type Statement } from "bun:sqlite";
import { openRetryingSync } from "../../../core/sqlite-open.ts";
import type { MetadataEntry } from "../schemas.ts";
import { shortFrequency } from "../metadata-filter.ts";
import { normalizeDocument } from "./normalize.ts";

/** Bumped when the tables change: an older file is rebuilt rather than misread. */
const SCHEMA_VERSION = "1";

export interface DatabaseState {
  db: string;
  /** Date.now() of the last successful indexing, or null when it never succeeded. */
  indexedAt: number | null;
  /** BOJ's DATE of that metadata (its own creation time, as sent). */
  bojDate: string | null;
  seriesCount: number;
  /** Date.now() of the last failed refresh since the last success, with what went wrong. */
  failedAt: number | null;
  failure: string | null;
}

export interface StoredSeries {
  id: number;
  db: string;
  code: string;
  name_en: string | null;
  name_ja: string | null;
  unit_en: string | null;
  unit_ja: string | null;
  frequency: string | null;
  category_en: string | null;
  category_ja: string | null;
  first_period: string | null;
  last_period: string | null;
  last_update: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS catalog_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS catalog_databases (
  db TEXT PRIMARY KEY, indexed_at INTEGER, boj_date TEXT, series_count INTEGER NOT NULL DEFAULT 0,
  failed_at INTEGER, failure TEXT);
CREATE TABLE IF NOT EXISTS catalog_series (
  id INTEGER PRIMARY KEY, db TEXT NOT NULL, code TEXT NOT NULL,
  name_en TEXT, name_ja TEXT, unit_en TEXT, unit_ja TEXT, frequency TEXT, frequency_code TEXT,
  category_en TEXT, category_ja TEXT, category_norm TEXT NOT NULL,
  first_period TEXT, last_period TEXT, last_update TEXT);
CREATE INDEX IF NOT EXISTS catalog_series_db ON catalog_series (db);
CREATE INDEX IF NOT EXISTS catalog_series_code ON catalog_series (code COLLATE NOCASE);
CREATE VIRTUAL TABLE IF NOT EXISTS catalog_text USING fts5 (names, more, tokenize = 'trigram');
`;

export class CatalogStore {
  readonly db: Database;
  private readonly insertSeries: Statement;
  private readonly insertText: Statement;

  constructor(readonly path: string) {
    this.db = new Database(path, { create: true, strict: true });
    // Opened again over the moments SQLite fails an open at once though busy_timeout says wait
    // (core/sqlite-open.ts): 1 in 32 opens of one new file by 8 processes failed so on a busy CI machine.
    openRetryingSync(() => {
      this.db.run("PRAGMA busy_timeout = 5000");
      if (path !== ":memory:") this.db.run("PRAGMA journal_mode = WAL");
      this.db.run("PRAGMA synchronous = NORMAL");
      this.migrate();
    });
    this.insertSeries = this.db.prepare(
      `INSERT INTO catalog_series (db, code, name_en, name_ja, unit_en, unit_ja, frequency, frequency_code,
         category_en, category_ja, category_norm, first_period, last_period, last_update)
       VALUES ($db, $code, $name_en, $name_ja, $unit_en, $unit_ja, $frequency, $frequency_code,
         $category_en, $category_ja, $category_norm, $first, $last, $last_update)`,
    );
    this.insertText = this.db.prepare("INSERT INTO catalog_text (rowid, names, more) VALUES ($id, $names, $more)");
  }

  /**
   * Every transaction that writes takes the write lock first (IMMEDIATE), where busy_timeout
   * waits for it: a deferred one that read first and then found another process had committed
   * fails at once with "database is locked" (its snapshot is stale; waiting cannot help), which
   * left servers started together on one new file without it.
   */
  private writing<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  private migrate(): void {
    this.writing(() => {
      this.db.run("CREATE TABLE IF NOT EXISTS catalog_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      const version = this.db.query("SELECT value FROM catalog_meta WHERE key = 'schema'").get() as {
        value: string;
      } | null;
      if (version && version.value !== SCHEMA_VERSION) {
        this.db.run("DROP TABLE IF EXISTS catalog_text");
        this.db.run("DROP TABLE IF EXISTS catalog_series");
        this.db.run("DROP TABLE IF EXISTS catalog_databases");
      }
      for (const statement of SCHEMA.split(";")
        .map((s) => s.trim())
        .filter(Boolean))
        this.db.run(statement);
      this.db.run("INSERT OR REPLACE INTO catalog_meta (key, value) VALUES ('schema', ?)", [SCHEMA_VERSION]);
    });
  }

  /** Every database's state, including ones never indexed only if a failure was recorded. */
  states(): Map<string, DatabaseState> {
    const rows = this.db
      .query(
        "SELECT db, indexed_at AS indexedAt, boj_date AS bojDate, series_count AS seriesCount, failed_at AS failedAt, failure FROM catalog_databases",
      )
      .all() as DatabaseState[];
    return new Map(rows.map((row) => [row.db, row]));
  }

  /**
   * Replaces database `db` with `entries` in one transaction (heading rows, those without a
   * series code, are never stored): readers see the old copy or the new one, never a mix.
   */
  replaceDatabase(db: string, entries: readonly MetadataEntry[], at: number, bojDate: string | null): number {
    let count = 0;
    this.writing(() => {
      this.db.run("DELETE FROM catalog_text WHERE rowid IN (SELECT id FROM catalog_series WHERE db = ?)", [db]);
      this.db.run("DELETE FROM catalog_series WHERE db = ?", [db]);
      for (const entry of entries) {
        const code = entry.series_code?.trim();
        if (!code) continue;
        const { lastInsertRowid } = this.insertSeries.run({
          db,
          code,
          name_en: entry.name_of_time_series,
          name_ja: entry.name_of_time_series_j,
          unit_en: entry.unit,
          unit_ja: entry.unit_j,
          frequency: entry.frequency,
          frequency_code: shortFrequency(entry.frequency) ?? null,
          category_en: entry.category,
          category_ja: entry.category_j,
          category_norm: normalizeDocument(entry.category, entry.category_j),
          first: entry.start_of_the_time_series,
          last: entry.end_of_the_time_series,
          last_update: entry.last_update,
        });
        this.insertText.run({
          id: Number(lastInsertRowid),
          // The code twice: as written (for a pasted code) and folded like any word.
          names: `${code.toLowerCase()} ${normalizeDocument(code, entry.name_of_time_series, entry.name_of_time_series_j)}`,
          more: normalizeDocument(
            entry.category,
            entry.category_j,
            entry.unit,
            entry.unit_j,
            entry.notes,
            entry.notes_j,
          ),
        });
        count++;
      }
      this.db.run(
        `INSERT INTO catalog_databases (db, indexed_at, boj_date, series_count, failed_at, failure)
         VALUES (?, ?, ?, ?, NULL, NULL)
         ON CONFLICT (db) DO UPDATE SET indexed_at = excluded.indexed_at, boj_date = excluded.boj_date,
           series_count = excluded.series_count, failed_at = NULL, failure = NULL`,
        [db, at, bojDate, count],
      );
    });
    return count;
  }

  /** Records a failed refresh; the database's last copy stays as it was. */
  recordFailure(db: string, at: number, failure: string): void {
    this.db.run(
      `INSERT INTO catalog_databases (db, failed_at, failure) VALUES (?, ?, ?)
       ON CONFLICT (db) DO UPDATE SET failed_at = excluded.failed_at, failure = excluded.failure`,
      [db, at, failure.slice(0, 500)],
    );
  }

  /**
   * Claims the refresh for `holder` until `until` unless another process holds an unexpired
   * claim: two processes on one cache folder do not both ask BOJ for the same catalogue.
   */
  claimRefresh(holder: string, now: number, until: number, alive: (holder: string) => boolean): boolean {
    return this.writing(() => {
      const row = this.db.query("SELECT value FROM catalog_meta WHERE key = 'refresh_claim'").get() as {
        value: string;
      } | null;
      const [other = "", expires = "0"] = row?.value.split(" ") ?? [];
      if (other !== holder && Number(expires) > now && alive(other)) return false;
      this.db.run("INSERT OR REPLACE INTO catalog_meta (key, value) VALUES ('refresh_claim', ?)", [
        `${holder} ${until}`,
      ]);
      return true;
    });
  }

  releaseRefresh(holder: string): void {
    this.db.run("DELETE FROM catalog_meta WHERE key = 'refresh_claim' AND value LIKE ?", [`${holder} %`]);
  }

  close(): void {
    this.db.close();
  }
}
