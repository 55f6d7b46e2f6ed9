/**
 * BOJ's answers and request spacing shared by every mcpkit instance on one database
 * (`--boj-shared-state`, docs/contracts/boj.md "Shared state"): a fleet behind a load balancer
 * then asks BOJ once per request and stays, as a whole, within `--boj-min-interval-ms`.
 *
 * Loaded only when the option is given (see shared-link.ts), so a plain start never pays for it.
 * It talks to the database with Bun's `SQL` on its own connections; the authorization server may
 * use the same database (`--state`), but the two share the database, not code: these tables are
 * all named `boj_…`.
 */
// The global, not `import { SQL } from "bun"`: a compiled binary hoists that import and loads
// Bun's SQL clients at every start-up, which costs a stdio start 2 ms even when no database is used.
import type { SQL } from "bun";
import type { Logger } from "../../core/log.ts";
import { type Dialect, openSqlStore } from "../../core/sql-store.ts";
import { byteLength } from "../../core/text.ts";
import { type AnswerCache, type CachedAnswer, MemoryAnswerCache, approximateBytes } from "./cache.ts";
import type { Pacer } from "./pacer.ts";
import type { CatalogCopies, CatalogCopy } from "./search/series-catalog.ts";
import { sleep } from "./sleep.ts";

export interface SharedStateOptions {
  /** `postgres://…`, `postgresql://…` or `sqlite:PATH` (already checked by the option parser). */
  url: string;
  /** Bound on the cached answers, across the fleet (table) and in this process (memory layer); 0: no cache. */
  cacheBytes: number;
  /** The BOJ base URL: answers of another upstream (a test double, a proxy) are never mixed in. */
  upstream: string;
  log: Logger;
  /** The option that gave `url`, named by the refusal of a SQLite file that is not private to the user. */
  flag?: string;
}

export interface SharedState {
  /** Undefined when `cacheBytes` is 0: the fleet then shares only the pacing. */
  readonly cache: AnswerCache | undefined;
  readonly awaitTurn: Pacer;
  readonly catalog: CatalogCopies;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

const SCHEMA = [
  // `id` is a hash of the request: a request with 1,250 series codes is longer than Postgres
  // accepts in a btree index entry. `request` keeps the whole text to rule out a mix-up.
  `create table if not exists boj_answers (id text primary key, request text not null, output text not null, raw text not null, bytes bigint not null, fetched_at bigint not null, expires_at bigint not null)`,
  `create index if not exists boj_answers_fetched on boj_answers (fetched_at)`,
  `create index if not exists boj_answers_age on boj_answers (fetched_at, id)`,
  `create index if not exists boj_answers_expires on boj_answers (expires_at)`,
  // The table's total bytes, kept by triggers (below), so a write never sums the whole table
  // (`where true` lets SQLite parse `on conflict` after a select).
  `create table if not exists boj_answers_size (one integer primary key check (one = 1), bytes bigint not null)`,
  `insert into boj_answers_size (one, bytes) select 1, coalesce(sum(bytes), 0) from boj_answers where true on conflict (one) do nothing`,
  `create table if not exists boj_pacing (origin text primary key, next_allowed_at bigint not null)`,
  // The series catalogue's copy of each database's metadata (boj_search_series): one instance
  // fetches it from BOJ each day, the others index it from here.
  `create table if not exists boj_catalog (upstream text not null, db text not null, fetched_at bigint not null, boj_date text, entries text not null, primary key (upstream, db))`,
];

/** Triggers that keep `boj_answers_size` equal to the sum of `boj_answers.bytes`, per dialect. */
const SIZE_TRIGGERS: Record<Dialect, string[]> = {
  sqlite: [
    `create trigger if not exists boj_answers_size_insert after insert on boj_answers
      begin update boj_answers_size set bytes = bytes + new.bytes where one = 1; end`,
    `create trigger if not exists boj_answers_size_update after update of bytes on boj_answers
      begin update boj_answers_size set bytes = bytes - old.bytes + new.bytes where one = 1; end`,
    `create trigger if not exists boj_answers_size_delete after delete on boj_answers
      begin update boj_answers_size set bytes = bytes - old.bytes where one = 1; end`,
  ],
  postgres: [
    `create or replace function boj_answers_size_track() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then update boj_answers_size set bytes = bytes - old.bytes where one = 1; end if;
        if tg_op in ('INSERT', 'UPDATE') then update boj_answers_size set bytes = bytes + new.bytes where one = 1; end if;
        return null;
      end $$`,
    `create or replace trigger boj_answers_size_track after insert or update or delete on boj_answers
      for each row execute function boj_answers_size_track()`,
  ],
};

/**
 * The statements a write runs to keep the table within its byte budget. Each touches at most
 * `EVICT_BATCH` rows through an index, so the time per write is bounded whatever the table holds
 * (issue 18: the old statement summed the whole table in a window on every insert). Exported for
 * the test that reads SQLite's query plans.
 */
export const EVICTION = {
  expired: `delete from boj_answers where id in (select id from boj_answers where expires_at <= $1 order by expires_at limit $2)`,
  size: `select bytes from boj_answers_size where one = 1`,
  oldest: `select id, bytes from boj_answers order by fetched_at, id limit $1`,
  dropOldest: `delete from boj_answers where id in (select id from boj_answers order by fetched_at, id limit $1)`,
} as const;
const EVICT_BATCH = 32;
/** Rounds per write: up to 1,024 rows leave per write, far more than one answer can displace in practice. */
const EVICT_ROUNDS = 32;

/** Any value used as a Postgres advisory-lock key: it serialises schema creation by instances that start together. */
const SCHEMA_LOCK = 7_210_943;

export async function openSharedState(options: SharedStateOptions): Promise<SharedState> {
  const { sql, dialect } = await openSqlStore(
    options.url,
    {
      lockKey: SCHEMA_LOCK,
      statements: (dialect) => [...SCHEMA, ...SIZE_TRIGGERS[dialect]],
    },
    undefined,
    options.flag,
  );
  const table = new SharedAnswerTable(sql, options);
  return {
    cache:
      options.cacheBytes > 0 ? new LayeredAnswerCache(new MemoryAnswerCache(options.cacheBytes), table) : undefined,
    awaitTurn: sharedPacer(sql, dialect),
    catalog: catalogCopies(sql, options.upstream),
    close: () => sql.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Pacing

/**
 * Claims the next slot for `origin` in one statement (`UPDATE … RETURNING`, atomic in both
 * databases), so two instances never get the same slot, then waits for it here. On Postgres the
 * slot and "now" both come from the database clock, so instances on hosts whose clocks disagree
 * still keep the spacing; a SQLite file is one host, whose clock every process shares.
 */
function sharedPacer(sql: SQL, dialect: Dialect): Pacer {
  const claim = async (origin: string, intervalMs: number): Promise<{ slot: number; now: number }> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows: Row[] =
        dialect === "postgres"
          ? await sql`with clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as now)
              update boj_pacing set next_allowed_at = greatest(boj_pacing.next_allowed_at, clock.now) + ${intervalMs}
              from clock where origin = ${origin}
              returning boj_pacing.next_allowed_at - ${intervalMs} as slot, clock.now as now`
          : await sqliteClaim(sql, origin, intervalMs);
      if (rows[0]) return { slot: Number(rows[0].slot), now: Number(rows[0].now) };
      // First request to this origin by any instance: create its row (a racing creator is fine).
      await sql`insert into boj_pacing (origin, next_allowed_at) values (${origin}, 0) on conflict (origin) do nothing`;
    }
    throw new Error(`the pacing row for ${origin} could not be created`);
  };

  return async (origin, intervalMs, signal, onWait) => {
    if (intervalMs <= 0) return;
    if (signal.aborted) throw signal.reason;
    const { slot, now } = await claim(origin, intervalMs);
    const waitMs = slot - now;
    if (waitMs <= 0) return;
    onWait?.(Math.ceil(waitMs));
    try {
      await sleep(waitMs, signal);
    } catch (error) {
      // As the local pacer: a cancelled caller sends nothing, so when nobody claimed a slot after
      // it, its slot goes back and the next caller is not held back by a request never sent.
      await sql`update boj_pacing set next_allowed_at = ${slot} where origin = ${origin} and next_allowed_at = ${slot + intervalMs}`.catch(
        () => {},
      );
      throw error;
    }
  };
}

function sqliteClaim(sql: SQL, origin: string, intervalMs: number): Promise<Row[]> {
  const now = Date.now();
  return sql`update boj_pacing set next_allowed_at = max(next_allowed_at, ${now}) + ${intervalMs}
    where origin = ${origin} returning next_allowed_at - ${intervalMs} as slot, ${now} as now`;
}

// ---------------------------------------------------------------------------------------------
// The series catalogue's copies

/** Each database's metadata as the fleet last fetched it from this upstream; failures are the caller's to handle. */
function catalogCopies(sql: SQL, upstream: string): CatalogCopies {
  return {
    async get(db: string, since: number): Promise<CatalogCopy | undefined> {
      const rows: Row[] = await sql`select fetched_at, boj_date, entries from boj_catalog
        where upstream = ${upstream} and db = ${db} and fetched_at >= ${since}`;
      const row = rows[0];
      if (!row) return undefined;
      return {
        entries: JSON.parse(String(row.entries)),
        date: row.boj_date === null ? null : String(row.boj_date),
        fetchedAt: Number(row.fetched_at),
      };
    },
    async put(db: string, copy: CatalogCopy): Promise<void> {
      const entries = JSON.stringify(copy.entries);
      await sql`insert into boj_catalog (upstream, db, fetched_at, boj_date, entries)
        values (${upstream}, ${db}, ${copy.fetchedAt}, ${copy.date}, ${entries})
        on conflict (upstream, db) do update set fetched_at = excluded.fetched_at, boj_date = excluded.boj_date,
          entries = excluded.entries`;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Answers

/**
 * The fleet's answers, one row per exact request. The table is bounded by the bytes of what it
 * stores (output JSON + raw text + request): after each write the newest rows within the budget
 * stay and older ones go. Database failures never fail a call: a read that fails is a miss, a
 * write that fails is only logged (the caller already has its answer).
 */
class SharedAnswerTable {
  constructor(
    private readonly sql: SQL,
    private readonly options: SharedStateOptions,
  ) {}

  private id(key: string): { id: string; request: string } {
    const request = `${this.options.upstream}${key}`;
    return { id: new Bun.CryptoHasher("sha256").update(request).digest("hex"), request };
  }

  async get(key: string, now: number): Promise<{ answer: CachedAnswer; expiresAt: number } | undefined> {
    const { id, request } = this.id(key);
    try {
      const rows: Row[] = await this.sql`select request, output, raw, fetched_at, expires_at from boj_answers
        where id = ${id} and expires_at > ${now}`;
      const row = rows[0];
      if (!row || row.request !== request) return undefined;
      const raw = String(row.raw);
      return {
        answer: { output: JSON.parse(String(row.output)), raw: () => raw, storedAt: Number(row.fetched_at) },
        expiresAt: Number(row.expires_at),
      };
    } catch (error) {
      this.warn("read", error);
      return undefined;
    }
  }

  async set(key: string, answer: CachedAnswer, ttlMs: number, now: number): Promise<void> {
    if (ttlMs <= 0) return;
    const { id, request } = this.id(key);
    try {
      const output = JSON.stringify(answer.output);
      const raw = answer.raw();
      const bytes = byteLength(output) + byteLength(raw) + byteLength(request);
      // A row larger than the whole budget would only evict every other row and then itself.
      if (bytes > this.options.cacheBytes) return;
      await this.sql`insert into boj_answers (id, request, output, raw, bytes, fetched_at, expires_at)
        values (${id}, ${request}, ${output}, ${raw}, ${bytes}, ${answer.storedAt}, ${now + ttlMs})
        on conflict (id) do update set request = excluded.request, output = excluded.output, raw = excluded.raw,
          bytes = excluded.bytes, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`;
      await this.evict(now);
    } catch (error) {
      this.warn("write", error);
    }
  }

  /** Drops expired rows, then the oldest ones until the rest fit in the budget, a bounded batch at a time. */
  private async evict(now: number): Promise<void> {
    await this.sql.unsafe(EVICTION.expired, [now, EVICT_BATCH]);
    for (let round = 0; round < EVICT_ROUNDS; round++) {
      const [size]: Row[] = await this.sql.unsafe(EVICTION.size);
      let excess = Number(size?.bytes ?? 0) - this.options.cacheBytes;
      if (excess <= 0) return;
      const oldest: Row[] = await this.sql.unsafe(EVICTION.oldest, [EVICT_BATCH]);
      let count = 0;
      while (count < oldest.length && excess > 0) excess -= Number(oldest[count++].bytes);
      if (count === 0) return;
      await this.sql.unsafe(EVICTION.dropOldest, [count]);
    }
  }

  private warn(what: "read" | "write", error: unknown): void {
    this.options.log.warn(`boj: shared cache ${what} failed; the call goes on without it`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * This process's memory in front of the fleet's table: a repeated call here is answered without a
 * round trip; an answer another instance fetched is copied into memory on first use, for no
 * longer than the table keeps it.
 */
class LayeredAnswerCache implements AnswerCache {
  constructor(
    private readonly memory: MemoryAnswerCache,
    private readonly table: SharedAnswerTable,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<CachedAnswer | undefined> {
    const local = this.memory.get(key);
    if (local) return local;
    const now = this.now();
    const shared = await this.table.get(key, now);
    if (!shared) return undefined;
    const raw = shared.answer.raw();
    this.memory.set(key, shared.answer, approximateBytes(shared.answer.output, raw.length), shared.expiresAt - now);
    return shared.answer;
  }

  async set(key: string, answer: CachedAnswer, bytes: number, ttlMs: number): Promise<void> {
    this.memory.set(key, answer, bytes, ttlMs);
    await this.table.set(key, answer, ttlMs, this.now());
  }
}
