/**
 * Everything the authorization server remembers, behind one small interface on Bun's built-in
 * `SQL`: a SQLite file for one instance, Postgres for several behind a load balancer (every
 * row an instance needs from another lives here, nothing in memory that a flow depends on).
 *
 * Codes, refresh tokens and upstream states are stored by hash only; single use is enforced by
 * the database (`DELETE … RETURNING`, `UPDATE … WHERE used_at IS NULL RETURNING`), so two
 * instances racing on one code cannot both win.
 */
import { homedir } from "node:os";
import { join } from "node:path";
// The global, not `import { SQL } from "bun"`: a compiled binary hoists that import and loads
// Bun's SQL clients at every start-up, which costs a stdio start 2 ms even when no database is used.
import type { SQL } from "bun";
import { dialectOf, openSqlStore } from "../../core/sql-store.ts";
import { DEFAULT_STATE_TIMEOUT_MS } from "./flags.ts";
import type { Identity } from "./policy.ts";

export interface ClientRecord {
  clientId: string;
  /** The registered (or fetched) metadata: `redirect_uris`, `client_name`, … */
  metadata: RegisteredClient;
  createdAt: number;
  expiresAt: number;
}

export interface RegisteredClient {
  client_id: string;
  redirect_uris: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  scope?: string;
  client_id_issued_at?: number;
  software_id?: string;
  software_version?: string;
  application_type?: "web" | "native";
}

export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: string[];
  subject: string;
  /** Who signed in, kept so the access policy is applied again at every token request. */
  identity: Identity;
  familyId: string;
  expiresAt: number;
  /** When the user signed in at the IdP: the sign-in's absolute lifetime counts from here. */
  signedInAt?: number;
}

export interface RefreshRecord {
  familyId: string;
  clientId: string;
  subject: string;
  identity: Identity;
  scopes: string[];
  resource: string;
  expiresAt: number;
  /** When the user signed in at the IdP (absent on rows written before it was recorded). */
  signedInAt?: number;
  /** When the identity was last confirmed at the IdP. */
  checkedAt?: number;
  rotatedAt?: number;
  /** Hash of the token its rotation issued: the one live successor a retry may replace. */
  successor?: string;
  /** A rotated token gets one retry (a client that lost the response), never a second one. */
  retried?: boolean;
  revoked: boolean;
}

/** What a user approved for a client: the scopes, and the redirect URI the consent page named. */
export interface ConsentRecord {
  scopes: string[];
  /** Exactly as requested (port included); absent on rows an older release wrote, which cover no redirect URI. */
  redirectUri?: string;
}

export interface SigningKeyRecord {
  kid: string;
  publicJwk: string;
  sealedPrivateJwk: string;
  createdAt: number;
  /** Signs new tokens until then. */
  signUntil: number;
  /** Stays in the JWKS until then (tokens it signed may still be alive). */
  publishUntil: number;
}

export type TakeCodeResult =
  | { status: "ok"; code: CodeRecord }
  | { status: "replayed"; code: CodeRecord }
  | { status: "unknown" };
export type RotateResult =
  | { status: "ok"; token: RefreshRecord }
  | { status: "rotated"; token: RefreshRecord }
  | { status: "revoked" | "unknown" };

export interface Store {
  readonly kind: "sqlite" | "postgres";
  putClient(record: ClientRecord): Promise<void>;
  getClient(clientId: string, now: number): Promise<ClientRecord | undefined>;
  /** A client that obtained a code is no longer an "unused registration". */
  extendClient(clientId: string, expiresAt: number): Promise<void>;
  getConsent(clientId: string, subject: string): Promise<ConsentRecord | undefined>;
  /** Whether any user ever approved this client (until then its redirect URI is not trusted). */
  hasAnyConsent(clientId: string): Promise<boolean>;
  putConsent(clientId: string, subject: string, consent: Required<ConsentRecord>, now: number): Promise<void>;
  /** Short-lived JSON values by key (pending authorization requests, upstream states). */
  putEphemeral(kind: string, key: string, value: unknown, expiresAt: number): Promise<void>;
  getEphemeral<T>(kind: string, key: string, now: number): Promise<T | undefined>;
  /** Reads and deletes in one step: only one caller ever gets the value. */
  takeEphemeral<T>(kind: string, key: string, now: number): Promise<T | undefined>;
  putCode(hash: string, code: CodeRecord): Promise<void>;
  takeCode(hash: string, now: number): Promise<TakeCodeResult>;
  /**
   * Whether a used code was presented again: a replay revokes the family it finds, and the first
   * redemption asks this once its refresh token is stored, so a replay racing it leaves no token unrevoked.
   */
  wasCodeReplayed(hash: string): Promise<boolean>;
  putRefresh(hash: string, token: RefreshRecord): Promise<void>;
  /** Marks an unused token rotated, naming its (already stored) successor; one caller wins. */
  rotateRefresh(hash: string, now: number, successor: string): Promise<RotateResult>;
  /**
   * The single retry of a rotated token: replaces its successor with `replacement` only when that
   * successor was never used and no retry happened before. False means reuse (the caller revokes).
   */
  retryRefresh(hash: string, now: number, replacement: string): Promise<boolean>;
  /** Drops a stored token that was never handed out. */
  deleteRefresh(hash: string): Promise<void>;
  findRefresh(hash: string): Promise<RefreshRecord | undefined>;
  revokeFamily(familyId: string): Promise<number>;
  /** The earliest expiry among a family's rows: where a sign-in without a recorded start began. */
  familyEarliestExpiry(familyId: string): Promise<number | undefined>;
  /** Whether a sign-in was revoked (a replayed code, a reused refresh token, RFC 7009 revocation). */
  isFamilyRevoked(familyId: string): Promise<boolean>;
  listSigningKeys(now: number): Promise<SigningKeyRecord[]>;
  putSigningKey(key: SigningKeyRecord): Promise<void>;
  putUpstreamTokens(subject: string, sealed: string, expiresAt: number, now: number): Promise<void>;
  getUpstreamTokens(subject: string, now: number): Promise<string | undefined>;
  /** Deletes expired rows; returns how many. */
  purge(now: number): Promise<number>;
  /** A trivial query: throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The database cannot be reached (not a query that failed on its own): callers answer 503. */
export class StoreUnavailable extends Error {}

/** How long one store call may take before the request answers 503 (queries here take milliseconds; --state-timeout-ms). */
export const STORE_CALL_TIMEOUT_MS = DEFAULT_STATE_TIMEOUT_MS;
/** A trivial `select 1` answers in milliseconds; health checks and the reachability probe wait at most this. */
export const PING_TIMEOUT_MS = 2000;

/**
 * Every method of `store`, with a failure told apart: when the database no longer answers a
 * trivial query, or a call does not settle within `timeoutMs` (a database that accepts the
 * connection and never answers), the error becomes `StoreUnavailable`; any other error passes
 * unchanged.
 */
export function guardStore(store: Store, timeoutMs = STORE_CALL_TIMEOUT_MS): Store {
  const reachable = () => storeReachable(store, Math.min(PING_TIMEOUT_MS, timeoutMs));
  const guarded = { kind: store.kind } as Record<string, unknown>;
  for (const [name, method] of Object.entries(store)) {
    if (typeof method !== "function") continue;
    guarded[name] = async (...args: unknown[]) => {
      const call = (method as (...a: unknown[]) => Promise<unknown>).apply(store, args);
      if (name === "close") return call;
      try {
        return await withTimeout(call, timeoutMs, () => new StoreUnavailable(unanswered(store.kind, timeoutMs)));
      } catch (error) {
        if (error instanceof StoreUnavailable) throw error;
        if (name === "ping" || !(await reachable()))
          throw new StoreUnavailable(`the ${store.kind} state store is unreachable: ${describe(error)}`);
        throw error;
      }
    };
  }
  return guarded as unknown as Store;
}

const unanswered = (kind: string, ms: number) => `the ${kind} state store did not answer within ${ms} ms`;

/** `promise`, or the error `onTimeout` makes when it has not settled after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  // The abandoned call may still fail later: observed, so it is not an unhandled rejection.
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Whether the database answers a trivial query within `timeoutMs` (never throws). */
export function storeReachable(store: Store, timeoutMs = PING_TIMEOUT_MS): Promise<boolean> {
  return withTimeout(
    store.ping().then(() => true),
    timeoutMs,
    () => new Error("timeout"),
  ).catch(() => false);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `$XDG_STATE_HOME/mcpkit/auth.db`, else `~/.local/state/mcpkit/auth.db`. */
export function defaultStatePath(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(base, "mcpkit", "auth.db");
}

const SCHEMA = [
  `create table if not exists oauth_clients (client_id text primary key, metadata text not null, created_at bigint not null, expires_at bigint not null)`,
  `create table if not exists oauth_consents (client_id text not null, subject text not null, scopes text not null, updated_at bigint not null, primary key (client_id, subject))`,
  `create table if not exists oauth_ephemeral (kind text not null, key text not null, value text not null, expires_at bigint not null, primary key (kind, key))`,
  `create table if not exists oauth_codes (hash text primary key, data text not null, family_id text not null, expires_at bigint not null, used_at bigint)`,
  `create table if not exists oauth_refresh_tokens (hash text primary key, family_id text not null, data text not null, expires_at bigint not null, rotated_at bigint, revoked integer not null default 0)`,
  `create index if not exists oauth_refresh_family on oauth_refresh_tokens (family_id)`,
  `create table if not exists oauth_signing_keys (kid text primary key, public_jwk text not null, private_jwk text not null, created_at bigint not null, sign_until bigint not null, publish_until bigint not null)`,
  `create table if not exists oauth_upstream_tokens (subject text primary key, sealed text not null, expires_at bigint not null, updated_at bigint not null)`,
];

/** Any value used as a Postgres advisory-lock key: instances that start together create tables one at a time. */
const SCHEMA_LOCK = 7_210_942;

/** Columns added after the first release, so existing databases gain them on start. */
const ADDED_COLUMNS = [
  ["oauth_refresh_tokens", "successor", "text"],
  ["oauth_refresh_tokens", "retried", "integer not null default 0"],
  // The redirect URI a consent was given for: a remembered consent covers that one only.
  ["oauth_consents", "redirect_uri", "text"],
  // A code presented again: the first redemption, still issuing its tokens, revokes them when it sees this.
  ["oauth_codes", "replayed", "integer not null default 0"],
] as const;

type Row = Record<string, unknown>;

/**
 * Opens (and creates or upgrades) the store. `timeoutMs` bounds every call, start-up included:
 * a database that accepts connections and never answers fails the start, then each request, in
 * that time instead of hanging them.
 */
export async function openStore(state: string, timeoutMs = STORE_CALL_TIMEOUT_MS): Promise<Store> {
  const opening = openSqlStore(
    state,
    { lockKey: SCHEMA_LOCK, statements: () => SCHEMA, addedColumns: ADDED_COLUMNS },
    timeoutMs,
    "--state (MCPKIT_STATE)",
  );
  try {
    const { sql, dialect } = await withTimeout(
      opening,
      timeoutMs,
      () => new StoreUnavailable(unanswered(dialectOf(state), timeoutMs)),
    );
    return guardStore(createSqlStore(sql, dialect), timeoutMs);
  } catch (error) {
    // A start that timed out may still connect later: close what it opens.
    void opening.then(({ sql }) => sql.close({ timeout: 0 })).catch(() => undefined);
    throw error;
  }
}

const num = (value: unknown): number => Number(value);
const optionalNum = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

/** Clients, consents and short-lived flow state (pending requests, upstream states). */
function clientQueries(sql: SQL) {
  const toClient = (row: Row): ClientRecord => ({
    clientId: String(row.client_id),
    metadata: JSON.parse(String(row.metadata)) as RegisteredClient,
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
  });

  return {
    async putClient(record) {
      await sql`insert into oauth_clients (client_id, metadata, created_at, expires_at)
        values (${record.clientId}, ${JSON.stringify(record.metadata)}, ${record.createdAt}, ${record.expiresAt})
        on conflict (client_id) do update set metadata = excluded.metadata, expires_at = excluded.expires_at`;
    },
    async getClient(clientId, now) {
      const rows: Row[] = await sql`select * from oauth_clients where client_id = ${clientId} and expires_at > ${now}`;
      return rows[0] ? toClient(rows[0]) : undefined;
    },
    async extendClient(clientId, expiresAt) {
      await sql`update oauth_clients set expires_at = ${expiresAt} where client_id = ${clientId} and expires_at < ${expiresAt}`;
    },
    async getConsent(clientId, subject) {
      const rows: Row[] =
        await sql`select scopes, redirect_uri from oauth_consents where client_id = ${clientId} and subject = ${subject}`;
      const row = rows[0];
      if (!row) return undefined;
      const redirectUri =
        row.redirect_uri === null || row.redirect_uri === undefined ? undefined : String(row.redirect_uri);
      return { scopes: JSON.parse(String(row.scopes)) as string[], redirectUri };
    },
    async hasAnyConsent(clientId) {
      const rows: Row[] = await sql`select 1 from oauth_consents where client_id = ${clientId} limit 1`;
      return rows.length > 0;
    },
    async putConsent(clientId, subject, { scopes, redirectUri }, now) {
      await sql`insert into oauth_consents (client_id, subject, scopes, redirect_uri, updated_at)
        values (${clientId}, ${subject}, ${JSON.stringify(scopes)}, ${redirectUri}, ${now})
        on conflict (client_id, subject) do update set scopes = excluded.scopes, redirect_uri = excluded.redirect_uri, updated_at = excluded.updated_at`;
    },
    async putEphemeral(kind, key, value, expiresAt) {
      await sql`insert into oauth_ephemeral (kind, key, value, expires_at) values (${kind}, ${key}, ${JSON.stringify(value)}, ${expiresAt})`;
    },
    async getEphemeral<T>(kind: string, key: string, now: number) {
      const rows: Row[] =
        await sql`select value from oauth_ephemeral where kind = ${kind} and key = ${key} and expires_at > ${now}`;
      return rows[0] ? (JSON.parse(String(rows[0].value)) as T) : undefined;
    },
    async takeEphemeral<T>(kind: string, key: string, now: number) {
      const rows: Row[] =
        await sql`delete from oauth_ephemeral where kind = ${kind} and key = ${key} returning value, expires_at`;
      const row = rows[0];
      return row && num(row.expires_at) > now ? (JSON.parse(String(row.value)) as T) : undefined;
    },
  } satisfies Partial<Store>;
}

/** A refresh token's row as its record. */
function toRefresh(row: Row): RefreshRecord {
  return {
    ...(JSON.parse(String(row.data)) as Omit<RefreshRecord, "rotatedAt" | "revoked" | "expiresAt" | "familyId">),
    familyId: String(row.family_id),
    expiresAt: num(row.expires_at),
    rotatedAt: optionalNum(row.rotated_at),
    successor: row.successor === null || row.successor === undefined ? undefined : String(row.successor),
    retried: num(row.retried) === 1,
    revoked: num(row.revoked) === 1,
  };
}

/** Authorization codes: each redeemed once (a second redemption is told apart as a replay). */
function codeQueries(sql: SQL) {
  return {
    async putCode(hash, code) {
      await sql`insert into oauth_codes (hash, data, family_id, expires_at) values (${hash}, ${JSON.stringify(code)}, ${code.familyId}, ${code.expiresAt})`;
    },
    async takeCode(hash, now) {
      const taken: Row[] =
        await sql`update oauth_codes set used_at = ${now} where hash = ${hash} and used_at is null returning data, expires_at`;
      if (taken[0]) {
        const code = JSON.parse(String(taken[0].data)) as CodeRecord;
        return num(taken[0].expires_at) > now ? { status: "ok", code } : { status: "unknown" };
      }
      const used: Row[] = await sql`update oauth_codes set replayed = 1 where hash = ${hash} returning data`;
      return used[0]
        ? { status: "replayed", code: JSON.parse(String(used[0].data)) as CodeRecord }
        : { status: "unknown" };
    },
    async wasCodeReplayed(hash) {
      const rows: Row[] = await sql`select replayed from oauth_codes where hash = ${hash}`;
      return num(rows[0]?.replayed ?? 0) === 1;
    },
  } satisfies Partial<Store>;
}

/** Refresh tokens, one family per sign-in: where rotation, the one retry and family revocation are enforced. */
function refreshQueries(sql: SQL) {
  return {
    async putRefresh(hash, token) {
      const {
        familyId,
        expiresAt,
        rotatedAt: _rotated,
        revoked: _revoked,
        successor: _s,
        retried: _r,
        ...data
      } = token;
      await sql`insert into oauth_refresh_tokens (hash, family_id, data, expires_at) values (${hash}, ${familyId}, ${JSON.stringify(data)}, ${expiresAt})`;
    },
    async rotateRefresh(hash, now, successor) {
      const rotated: Row[] = await sql`update oauth_refresh_tokens set rotated_at = ${now}, successor = ${successor}
        where hash = ${hash} and rotated_at is null and revoked = 0 and expires_at > ${now} returning *`;
      if (rotated[0]) return { status: "ok", token: toRefresh(rotated[0]) };
      const rows: Row[] = await sql`select * from oauth_refresh_tokens where hash = ${hash}`;
      if (!rows[0] || num(rows[0].expires_at) <= now) return { status: "unknown" };
      const token = toRefresh(rows[0]);
      return token.revoked ? { status: "revoked" } : { status: "rotated", token };
    },
    async retryRefresh(hash, now, replacement) {
      // Each step is one conditional statement, so of two racing requests only one passes it:
      // the retry itself (once per token), then the successor's replacement (only while unused).
      // A row rotated before successors were recorded (an older release) has none to replace: its
      // retry would fork the family, so it counts as reuse.
      const retried: Row[] = await sql`update oauth_refresh_tokens set retried = 1
        where hash = ${hash} and retried = 0 and revoked = 0 and rotated_at is not null and successor is not null
        returning successor`;
      if (!retried[0]) return false;
      const successor = retried[0].successor;
      if (successor !== null && successor !== undefined) {
        // The replaced successor counts as used with its retry spent: presenting it later is reuse.
        const replaced: Row[] = await sql`update oauth_refresh_tokens set rotated_at = ${now}, retried = 1
          where hash = ${String(successor)} and rotated_at is null and revoked = 0 returning hash`;
        if (!replaced[0]) return false;
      }
      await sql`update oauth_refresh_tokens set successor = ${replacement} where hash = ${hash}`;
      return true;
    },
    async deleteRefresh(hash) {
      await sql`delete from oauth_refresh_tokens where hash = ${hash}`;
    },
    async findRefresh(hash) {
      const rows: Row[] = await sql`select * from oauth_refresh_tokens where hash = ${hash}`;
      return rows[0] ? toRefresh(rows[0]) : undefined;
    },
    async isFamilyRevoked(familyId) {
      const rows: Row[] =
        await sql`select 1 from oauth_refresh_tokens where family_id = ${familyId} and revoked = 1 limit 1`;
      return rows.length > 0;
    },
    async familyEarliestExpiry(familyId) {
      const rows: Row[] =
        await sql`select min(expires_at) as earliest from oauth_refresh_tokens where family_id = ${familyId}`;
      return optionalNum(rows[0]?.earliest);
    },
    async revokeFamily(familyId) {
      const result =
        await sql`update oauth_refresh_tokens set revoked = 1 where family_id = ${familyId} and revoked = 0`;
      return result.count;
    },
  } satisfies Partial<Store>;
}

/** Signing keys and sealed upstream tokens. */
function secretQueries(sql: SQL) {
  return {
    async listSigningKeys(now) {
      const rows: Row[] =
        await sql`select * from oauth_signing_keys where publish_until > ${now} order by created_at desc`;
      return rows.map((row) => ({
        kid: String(row.kid),
        publicJwk: String(row.public_jwk),
        sealedPrivateJwk: String(row.private_jwk),
        createdAt: num(row.created_at),
        signUntil: num(row.sign_until),
        publishUntil: num(row.publish_until),
      }));
    },
    async putSigningKey(key) {
      await sql`insert into oauth_signing_keys (kid, public_jwk, private_jwk, created_at, sign_until, publish_until)
        values (${key.kid}, ${key.publicJwk}, ${key.sealedPrivateJwk}, ${key.createdAt}, ${key.signUntil}, ${key.publishUntil})`;
    },
    async putUpstreamTokens(subject, sealed, expiresAt, now) {
      await sql`insert into oauth_upstream_tokens (subject, sealed, expires_at, updated_at) values (${subject}, ${sealed}, ${expiresAt}, ${now})
        on conflict (subject) do update set sealed = excluded.sealed, expires_at = excluded.expires_at, updated_at = excluded.updated_at`;
    },
    async getUpstreamTokens(subject, now) {
      const rows: Row[] =
        await sql`select sealed from oauth_upstream_tokens where subject = ${subject} and expires_at > ${now}`;
      return rows[0] ? String(rows[0].sealed) : undefined;
    },
  } satisfies Partial<Store>;
}

function createSqlStore(sql: SQL, kind: "sqlite" | "postgres"): Store {
  return {
    kind,
    ...clientQueries(sql),
    ...codeQueries(sql),
    ...refreshQueries(sql),
    ...secretQueries(sql),
    async purge(now) {
      let removed = 0;
      removed += (await sql`delete from oauth_clients where expires_at <= ${now}`).count;
      removed += (await sql`delete from oauth_ephemeral where expires_at <= ${now}`).count;
      // Used codes are kept until they expire so a replay is recognised (and revokes) until then.
      removed += (await sql`delete from oauth_codes where expires_at <= ${now}`).count;
      // Revoked rows outlive their expiry by a day (the longest access token): until then a token they
      // issued may still be presented, and only these rows say its sign-in was revoked.
      removed += (
        await sql`delete from oauth_refresh_tokens where expires_at <= ${now} and (revoked = 0 or expires_at <= ${now - 86_400_000})`
      ).count;
      removed += (await sql`delete from oauth_signing_keys where publish_until <= ${now}`).count;
      removed += (await sql`delete from oauth_upstream_tokens where expires_at <= ${now}`).count;
      return removed;
    },
    async ping() {
      await sql`select 1`;
    },
    async close() {
      await sql.close();
    },
  };
}
