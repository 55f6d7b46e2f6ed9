/**
 * The cache of decoded BOJ answers (issue 13 §2): keyed by the exact upstream request, bounded
 * in bytes (least recently used first out), a TTL per kind, errors never stored, include_raw and
 * metadata filters served from the same entry, and a hit that takes no pacing slot and says how
 * old it is. Unit checks on the cache itself, then through the real process.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { type CachedAnswer, MemoryAnswerCache, approximateBytes } from "../../src/toolsets/boj/cache.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { parseCacheTtl } from "../../src/toolsets/boj/index.ts";
import { type RunningServer, runCli, startStdioServer } from "../support/mcp.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const answer = (output: unknown, storedAt = 0): CachedAnswer => ({ output, raw: () => "raw", storedAt });

describe("MemoryAnswerCache", () => {
  test("evicts the least recently used entries to stay within its bytes", () => {
    const cache = new MemoryAnswerCache(300);
    cache.set("a", answer("A"), 100, 60_000);
    cache.set("b", answer("B"), 100, 60_000);
    cache.set("c", answer("C"), 100, 60_000);
    expect(cache.get("a")?.output).toBe("A"); // a is now the most recently used
    cache.set("d", answer("D"), 100, 60_000);
    expect(cache.get("b")).toBeUndefined();
    expect(["a", "c", "d"].map((key) => cache.get(key)?.output)).toEqual(["A", "C", "D"]);
    expect(cache.size).toEqual({ entries: 3, bytes: 300 });
    cache.set("huge", answer("H"), 301, 60_000); // larger than the whole cache: not stored, nothing evicted
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.size.entries).toBe(3);
    cache.set("c", answer("C2"), 50, 60_000); // replacing an entry releases its old size
    expect(cache.size.bytes).toBe(250);
  });

  test("expires entries after their TTL; a TTL of 0 stores nothing", () => {
    let now = 1_000;
    const cache = new MemoryAnswerCache(1_000, () => now);
    cache.set("data", answer("D"), 10, 500);
    cache.set("none", answer("N"), 10, 0);
    now += 499;
    expect(cache.get("data")?.output).toBe("D");
    now += 1;
    expect(cache.get("data")).toBeUndefined();
    expect(cache.get("none")).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  test("an answer's size grows with what it holds", () => {
    const page = (points: number) => ({
      series: [
        { series_code: "X", points: Array.from({ length: points }, () => ({ survey_date: "202401", value: 1 })) },
      ],
    });
    expect(approximateBytes(page(60_000), 0)).toBeGreaterThan(100 * approximateBytes(page(100), 0));
    expect(approximateBytes({}, 1_000_000)).toBeGreaterThanOrEqual(2_000_000);
  });

  test("--boj-cache-ttl-s reads one number or data=/metadata= pairs", () => {
    expect(parseCacheTtl("30")).toEqual({ dataMs: 30_000, metadataMs: 30_000 });
    expect(parseCacheTtl("data=5, metadata=60")).toEqual({ dataMs: 5_000, metadataMs: 60_000 });
    expect(parseCacheTtl("metadata=7200")).toEqual({ dataMs: 600_000, metadataMs: 7_200_000 });
    for (const bad of ["", "soon", "data=", "data=1,other=2", "-1", "data=99999999"])
      expect(parseCacheTtl(bad)).toBeUndefined();
  });
});

async function withServer(
  args: string[],
  run: (server: RunningServer) => Promise<void>,
  env?: Record<string, string>,
): Promise<void> {
  const server = await startStdioServer({ args: ["--toolsets", "boj", "--boj-base-url", fake.url, ...args], env });
  await server.client.listTools(); // the SDK client now validates structuredContent, `cached` included
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

async function callOk(server: RunningServer, name: string, args: Record<string, unknown>) {
  const result = await server.client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  return {
    text: (result.content as { text: string }[])[0].text,
    structured: result.structuredContent as Record<string, any>,
  };
}

describe("through the process", () => {
  test("a repeated call is answered from the cache at once, without a pacing slot, and says how old it is", async () => {
    await withServer(["--boj-min-interval-ms", "1000"], async (server) => {
      const args = { db: "CO", codes: ["TK99F1000601GCQ01000"] };
      const first = await callOk(server, "boj_get_data_code", args);
      expect(first.structured.cached).toBeUndefined();
      expect(first.text).not.toContain("cache");
      const second = await callOk(server, "boj_get_data_code", args);
      // A request would wait ~1000 ms for its pacing slot after the first one, and say so.
      expect(server.stderr()).not.toContain("before calling BOJ");
      expect(fake.requests).toHaveLength(1);
      expect(second.structured.cached.age_seconds).toBeGreaterThanOrEqual(0);
      expect(Date.parse(second.structured.cached.fetched_at)).toBeLessThanOrEqual(Date.now());
      expect(second.text).toContain("answered from mcpkit's cache: BOJ sent this");
      expect(second.structured.series).toEqual(first.structured.series);
      // include_raw comes from the same entry.
      const raw = await callOk(server, "boj_get_data_code", { ...args, include_raw: true });
      expect(raw.structured.raw).toContain('"SERIES_CODE":"TK99F1000601GCQ01000"');
      expect(fake.requests).toHaveLength(1);
      expect(server.stderr()).not.toContain("before calling BOJ");
      // A different request (another language) is another key: it waits for a slot to ask BOJ,
      // and is cancelled once it has said so rather than waiting the second out.
      const waits = server.nextStderrLine(/waiting \d+ ms before calling BOJ getDataCode/);
      const cancel = new AbortController();
      const english = server.client
        .callTool({ name: "boj_get_data_code", arguments: { ...args, lang: "en" } }, undefined, {
          signal: cancel.signal,
        })
        .catch((error: Error) => error);
      await waits;
      cancel.abort();
      expect(await english).toBeInstanceOf(Error);
      expect(fake.requests).toHaveLength(1);
    });
  });

  test("every filter and page of one metadata listing shares one BOJ request", async () => {
    await withServer(["--boj-min-interval-ms", "0"], async (server) => {
      const all = await callOk(server, "boj_get_metadata", { db: "LA01" });
      const page = await callOk(server, "boj_get_metadata", { db: "la01", frequency: "Q", offset: 10, limit: 5 });
      const query = await callOk(server, "boj_get_metadata", { db: "LA01", query: "LAM0007" });
      expect(fake.requests).toHaveLength(1);
      expect(page.structured.entries[0].series_code).toBe("LAQ0811");
      expect(query.structured.entries_count).toBe(1);
      expect(all.structured.cached).toBeUndefined();
      expect(page.structured.cached).toBeDefined();
    });
  });

  test("errors are never cached", async () => {
    await withServer(["--boj-min-interval-ms", "0", "--boj-retry-max", "0"], async (server) => {
      fake.enqueue({ kind: "status", status: 500 });
      expect(
        await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } }).catch((e) => e.code),
      ).toBe(-32603);
      const after = await callOk(server, "boj_get_metadata", { db: "CO" });
      expect(after.structured.cached).toBeUndefined();
      expect(fake.requests).toHaveLength(2);
      // BOJ's 400 (a series code it does not know) is asked again, not replayed.
      const unknown = { db: "CO", codes: ["NOPE"] };
      await server.client.callTool({ name: "boj_get_data_code", arguments: unknown }).catch(() => {});
      await server.client.callTool({ name: "boj_get_data_code", arguments: unknown }).catch(() => {});
      expect(fake.requests).toHaveLength(4);
    });
  });

  // Expiry itself is checked on an injected clock above ("expires entries after their TTL").
  test("each kind has its own TTL: data=0 keeps data out while metadata (60 s) is served from the cache", async () => {
    await withServer(["--boj-min-interval-ms", "0", "--boj-cache-ttl-s", "data=0,metadata=60"], async (server) => {
      const args = { db: "CO", codes: ["TK99F1000601GCQ01000"] };
      await callOk(server, "boj_get_data_code", args);
      await callOk(server, "boj_get_metadata", { db: "CO" });
      expect((await callOk(server, "boj_get_data_code", args)).structured.cached).toBeUndefined();
      const metadata = await callOk(server, "boj_get_metadata", { db: "CO" });
      expect(metadata.structured.cached.age_seconds).toBeGreaterThanOrEqual(0);
      expect(fake.requests).toHaveLength(3);
    });
  });

  test("BOJ_CACHE_BYTES=0 turns the cache off", async () => {
    await withServer(
      ["--boj-min-interval-ms", "0"],
      async (server) => {
        await callOk(server, "boj_get_metadata", { db: "CO" });
        await callOk(server, "boj_get_metadata", { db: "CO" });
        expect(fake.requests).toHaveLength(2);
      },
      { BOJ_CACHE_BYTES: "0" },
    );
  });

  test("a bad --boj-cache-ttl-s names the flag, its variable and the accepted forms", async () => {
    const result = await runCli(["call", "boj_list_databases", "{}", "--boj-cache-ttl-s", "soon"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--boj-cache-ttl-s (BOJ_CACHE_TTL_S)");
    expect(result.stderr).toContain("data=SECONDS,metadata=SECONDS");
  });
});
