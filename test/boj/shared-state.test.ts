/**
 * `--boj-shared-state` (issue 13 §2): two mcpkit processes on one database and one fake BOJ share
 * the cached answers (BOJ is asked once) and the request spacing (the fleet as a whole keeps
 * `--boj-min-interval-ms`); errors are not shared. Postgres is Debian's, started in a temp
 * directory on loopback (the file skips those tests with one line when it is absent); the SQLite
 * variant, the store's own rules (slot given back on cancel, byte bound across instances) and
 * the password that must never be printed run everywhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { createLogger } from "../../src/core/log.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { EVICTION, type SharedState, openSharedState } from "../../src/toolsets/boj/shared-state.ts";
import { REPO_ROOT, type RunningServer, runCli, runProcess, startStdioServer } from "../support/mcp.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.ts";

setDefaultTimeout(30_000);
const postgresHere = hasPostgres("the Postgres tests of --boj-shared-state");

const fake = startFakeBoj();
const scratch = mkdtempSync(join(tmpdir(), "mcpkit-boj-shared-"));
let postgres: TestPostgres | undefined;
let pgUrl = "";

beforeAll(() => {
  if (!postgresHere) return;
  postgres = startPostgres();
  pgUrl = postgres.url;
});

afterAll(async () => {
  await fake.stop();
  rmSync(scratch, { recursive: true, force: true });
  postgres?.stop();
});

beforeEach(() => fake.reset());

const quiet = createLogger("off", () => {});

async function startPair(state: string, args: string[]): Promise<[RunningServer, RunningServer]> {
  const start = () =>
    startStdioServer({
      args: ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-shared-state", state, ...args],
    });
  // Started together: creating the tables must not race.
  const pair = await Promise.all([start(), start()]);
  for (const server of pair) await server.client.listTools(); // lets the SDK client validate structuredContent
  return pair;
}

async function callOk(server: RunningServer, name: string, args: Record<string, unknown>) {
  const result = await server.client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0].text;
  expect(result.isError, text).toBeFalsy();
  return { text, structured: result.structuredContent as Record<string, any> };
}

/** (a): a call answered on A is a cache hit on B, include_raw included; BOJ is asked once. */
async function expectSharedAnswer(a: RunningServer, b: RunningServer, db: string) {
  const first = await callOk(a, "boj_get_metadata", { db });
  expect(first.structured.cached).toBeUndefined();
  const second = await callOk(b, "boj_get_metadata", { db, include_raw: true });
  expect(fake.requests).toHaveLength(1);
  expect(second.structured.cached.age_seconds).toBeGreaterThanOrEqual(0);
  expect(second.text).toContain("answered from mcpkit's cache");
  expect(second.structured.entries).toEqual(first.structured.entries);
  expect(second.structured.raw).toContain(`"DB":"${db}"`);
}

describe.skipIf(!postgresHere)("two instances on one Postgres", () => {
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    [a, b] = await startPair(pgUrl, ["--boj-min-interval-ms", "300", "--boj-retry-max", "0"]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  test("an answer fetched by A is served to B from the shared cache", async () => {
    await expectSharedAnswer(a, b, "CO");
  });

  test("the fleet keeps --boj-min-interval-ms between its requests to BOJ", async () => {
    const dbs = ["BP01", "MD10", "PR01", "LA01", "FM08", "BP01"];
    const langs = ["jp", "jp", "jp", "jp", "jp", "en"];
    const announced = () =>
      [a, b].flatMap((server) =>
        [...server.stderr().matchAll(/waiting (\d+) ms before calling BOJ/g)].map((m) => +m[1]),
      );
    const before = announced().length;
    // Interleaved across the two processes, all at once: each claims a slot in the database.
    await Promise.all(dbs.map((db, i) => callOk(i % 2 ? b : a, "boj_get_metadata", { db, lang: langs[i] })));
    expect(fake.requests).toHaveLength(dbs.length);
    // Read from the waits the processes announce, not from arrival times, which a loaded machine
    // blurs: five calls waited (six when the test before left a slot taken). With the slots shared
    // the last waits about five intervals (1,500 ms); if each process paced only itself, none would
    // wait more than three (900 ms, with that slot).
    const waits = announced().slice(before);
    expect(waits.length).toBeGreaterThanOrEqual(dbs.length - 1);
    expect(Math.max(...waits)).toBeGreaterThan(1_000);
    const arrivals = fake.requests.map((request) => request.at).sort((x, y) => x - y);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]);
    console.log(
      `fleet pacing: waits announced (ms) ${waits.join(", ")}; gaps between arrivals (ms) ${gaps.map((gap) => gap.toFixed(0)).join(", ")}`,
    );
  });

  test("an error is not shared: B asks BOJ again after A failed", async () => {
    fake.enqueue({ kind: "status", status: 503 });
    const failed = await a.client.callTool({ name: "boj_get_metadata", arguments: { db: "MD10", lang: "en" } }).then(
      (result) => result,
      (error: Error) => error,
    );
    expect(failed instanceof Error ? failed.message : JSON.stringify(failed)).toContain("503");
    const retried = await callOk(b, "boj_get_metadata", { db: "MD10", lang: "en" });
    expect(fake.requests).toHaveLength(2);
    expect(retried.structured.cached).toBeUndefined();
  });

  test("a cancelled wait gives the slot back; the table stays within its bytes across instances", async () => {
    await expectStoreRules(pgUrl);
  });
});

describe("two instances on one SQLite file", () => {
  test("an answer fetched by A is served to B from the shared cache", async () => {
    const [a, b] = await startPair(`sqlite:${join(scratch, "fleet.db")}`, ["--boj-min-interval-ms", "0"]);
    try {
      await expectSharedAnswer(a, b, "BP01");
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("a cancelled wait gives the slot back; the table stays within its bytes across instances", async () => {
    await expectStoreRules(`sqlite:${join(scratch, "rules.db")}`);
  });
});

describe("eviction stays bounded per write (issue 18)", () => {
  test("every eviction statement reads through an index: no whole-table scan or sort, whatever the table holds", async () => {
    const url = `sqlite:${join(scratch, "plans.db")}`;
    const store = await openSharedState({ url, cacheBytes: 10_000, upstream: "http://plans.test", log: quiet });
    const sql = new SQL({ adapter: "sqlite", filename: join(scratch, "plans.db") });
    try {
      const params: Record<keyof typeof EVICTION, unknown[]> = {
        expired: [1, 32],
        size: [],
        oldest: [32],
        dropOldest: [4],
      };
      for (const [name, statement] of Object.entries(EVICTION) as [keyof typeof EVICTION, string][]) {
        const plan: { detail: string }[] = await sql.unsafe(`explain query plan ${statement}`, params[name]);
        const details = plan.map((row) => row.detail);
        expect(
          details.some((detail) => /TEMP B-TREE/.test(detail)),
          `${name}: ${details.join(" | ")}`,
        ).toBe(false);
        const wholeTable = details.filter(
          (detail) => /^SCAN boj_answers\b/.test(detail) && !/USING (COVERING )?INDEX/.test(detail),
        );
        expect(wholeTable, `${name}: ${details.join(" | ")}`).toEqual([]);
      }
    } finally {
      await sql.close();
      await store.close();
    }
  });

  for (const dialect of ["sqlite", "postgres"] as const) {
    test.skipIf(dialect === "postgres" && !postgresHere)(
      `${dialect}: the kept size equals the rows' bytes after many writes and overwrites, and the newest fit the budget`,
      async () => {
        const url = dialect === "sqlite" ? `sqlite:${join(scratch, "size.db")}` : pgUrl;
        const upstream = `http://size-${Math.random()}.test`;
        const store = await openSharedState({ url, cacheBytes: 20_000, upstream, log: quiet });
        const sql =
          dialect === "sqlite" ? new SQL({ adapter: "sqlite", filename: join(scratch, "size.db") }) : new SQL(pgUrl);
        try {
          for (let n = 0; n < 200; n++) {
            const key = `/key/${n % 60}`; // overwrites too
            const answer = {
              output: { n, pad: "p".repeat(100 + ((n * 37) % 900)) },
              raw: () => `raw ${n}`,
              storedAt: n,
            };
            await store.cache?.set(key, answer, 1, 60_000);
          }
          const [kept] = await sql`select bytes from boj_answers_size where one = 1`;
          const [actual] = await sql`select coalesce(sum(bytes), 0) as bytes, count(*) as count from boj_answers`;
          expect(Number(kept.bytes)).toBe(Number(actual.bytes));
          expect(Number(actual.bytes)).toBeLessThanOrEqual(20_000);
          expect(Number(actual.count)).toBeGreaterThan(10);
          // The newest answer is always kept.
          const newest = await sql`select fetched_at from boj_answers order by fetched_at desc limit 1`;
          expect(Number(newest[0].fetched_at)).toBe(199);
        } finally {
          await sql.close();
          await store.close();
        }
      },
    );
  }
});

/** The store itself, with two handles standing for two processes. */
async function expectStoreRules(url: string) {
  const log = createLogger("off", () => {});
  const open = () => openSharedState({ url, cacheBytes: 3_000, upstream: "http://rules.test", log });
  const stores: SharedState[] = await Promise.all([open(), open()]);
  const [x, y] = stores;
  try {
    const origin = `http://pacing-${Math.random()}.test`;
    const never = new AbortController().signal;
    // Slots a minute apart, longer than the test may run: each wait is read, never sat out, so how
    // long the machine takes between the calls cannot move a wait across the line checked below.
    const SLOT_MS = 60_000;
    await x.awaitTurn(origin, SLOT_MS, never); // first: goes at once, next slot in a minute
    const cancelled = new AbortController();
    const queued = Promise.withResolvers<void>();
    const waiting = y
      .awaitTurn(origin, SLOT_MS, cancelled.signal, () => queued.resolve())
      .catch((error: Error) => error);
    await queued.promise; // y holds the next slot and waits for it
    cancelled.abort(new Error("cancelled"));
    expect(await waiting).toBeInstanceOf(Error);
    const third = new AbortController();
    const announced = Promise.withResolvers<number>();
    const last = x.awaitTurn(origin, SLOT_MS, third.signal, (ms) => announced.resolve(ms)).catch(() => undefined);
    const waited = await announced.promise;
    third.abort(new Error("read, not waited for"));
    await last;
    // It takes the cancelled caller's slot (a minute after the first), not the one after it (two).
    expect(waited).toBeGreaterThan(SLOT_MS / 2);
    expect(waited).toBeLessThanOrEqual(SLOT_MS);

    // Four answers of ~1,350 bytes each, written by x; y (nothing in its memory) reads the table.
    const answer = (n: number) => ({ output: { n, pad: "p".repeat(1_300) }, raw: () => `raw ${n}`, storedAt: n });
    for (const n of [1, 2, 3, 4]) await x.cache?.set(`/key/${n}`, answer(n), 1, 60_000);
    const seen = await Promise.all([1, 2, 3, 4].map(async (n) => (await y.cache?.get(`/key/${n}`))?.output));
    // 3,000 bytes hold two of them, not three: the oldest go first.
    expect(seen.map((output) => (output as { n: number } | undefined)?.n)).toEqual([undefined, undefined, 3, 4]);
    expect((await y.cache?.get("/key/4"))?.raw()).toBe("raw 4");
  } finally {
    for (const store of stores) await store.close();
  }
}

test("without the option the shared-state code is not even loaded", async () => {
  const script = `const { boj } = await import(${JSON.stringify(join(REPO_ROOT, "src/toolsets/boj/index.ts"))});
    boj.create(boj.configure({}, { mode: "call" }), { log: console, mode: "call", cwd: "." });
    console.log(JSON.stringify(Object.keys(require.cache)));`;
  const result = await runProcess([process.execPath, "-e", script]);
  const loaded = JSON.parse(result.stdout) as string[];
  expect(loaded.some((path) => path.endsWith("src/toolsets/boj/index.ts"))).toBe(true);
  expect(loaded.filter((path) => path.includes("shared-state"))).toEqual([]);
});

describe("the password in a Postgres URL", () => {
  const secret = "s3cret-pw-4711";

  test("is not printed when the store cannot be reached; the call fails without asking BOJ", async () => {
    const url = `postgres://mcpkit:${secret}@127.0.0.1:${freeLoopbackPort()}/mcpkit`;
    const server = await startStdioServer({
      args: ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-shared-state", url, "--log-level", "debug"],
    });
    try {
      const error = await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } }).then(
        () => undefined,
        (caught: Error) => caught,
      );
      expect(error?.message).toContain("--boj-shared-state");
      expect(error?.message).toContain("No request was sent to BOJ");
      expect(error?.message).not.toContain(secret);
      expect(server.stderr()).not.toContain(secret);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  test("is not repeated by the error for a value that is not a supported URL", async () => {
    const result = await runCli(["tools", "--toolsets", "boj", "--boj-shared-state", `mysql://mcpkit:${secret}@db/x`]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--boj-shared-state (BOJ_SHARED_STATE)");
    expect(result.stderr + result.stdout).not.toContain(secret);
  });
});
