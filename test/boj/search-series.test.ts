/**
 * boj_search_series end to end (issue 36): the real mcpkit process against the fake BOJ serving
 * all 50 databases (FM08's metadata is BOJ's live capture), over stdio and HTTP, in both protocol
 * eras. The catalogue is built from one getMetadata request per database, kept in the cache
 * folder (a restart sends BOJ nothing), and answers the search-then-fetch flow in two calls.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { DATABASES } from "../../src/toolsets/boj/catalog.ts";
import { type FakeBoj, startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { fullCatalogueOptions } from "../fixtures/boj/full-catalogue.ts";
import { connectClient, startHttpServer } from "../http/support.ts";
import { type Json, post, request } from "../modern/support.ts";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

let fake: FakeBoj;
let cacheDir: string;
let server: RunningServer;

const searchArgs = (dir: string, ...extra: string[]) =>
  bojTestArgs(fake.url, "--boj-catalog-dir", dir, "--boj-cache-ttl-s", "0", ...extra);

const metadataRequests = () => fake.requests.filter((request) => request.path === "/api/v1/getMetadata");

type Structured = Record<string, any>;

async function search(args: Record<string, unknown>, on: RunningServer = server) {
  const result = await on.client.callTool({ name: "boj_search_series", arguments: args });
  expect(result.isError).toBeFalsy();
  return { structured: result.structuredContent as Structured, text: (result.content as { text: string }[])[0].text };
}

async function rpcError(args: Record<string, unknown>): Promise<McpError> {
  const error = await server.client.callTool({ name: "boj_search_series", arguments: args }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

beforeAll(async () => {
  fake = startFakeBoj(await fullCatalogueOptions());
  cacheDir = mkdtempSync(join(tmpdir(), "mcpkit-boj-catalog-"));
  server = await startStdioServer({ args: searchArgs(cacheDir) });
  await server.client.listTools(); // the SDK client then checks structuredContent against the outputSchema
});
afterAll(async () => {
  await server?.close();
  await fake.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe("the first search builds the catalogue", () => {
  test("one getMetadata (lang=jp) per database, progress reported, then a search and a fetch answer the question", async () => {
    const progress: { progress: number; total?: number }[] = [];
    const result = await server.client.callTool(
      { name: "boj_search_series", arguments: { query: "US.Dollar/Yen spot rate 9:00" } },
      undefined,
      { onprogress: (update) => progress.push(update), timeout: 120_000 },
    );
    const structured = result.structuredContent as Structured;
    const text = (result.content as { text: string }[])[0].text;

    const asked = metadataRequests().map((request) => request.query.get("db"));
    expect(asked.toSorted()).toEqual(DATABASES.map((entry) => entry.code).toSorted());
    expect(metadataRequests().every((request) => request.query.get("lang") === "jp")).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ total: 50 });
    expect(progress.map((update) => update.progress)).toEqual(
      progress.map((update) => update.progress).toSorted((a, b) => a - b),
    );

    expect(structured.catalog).toMatchObject({ databases_total: 50, databases_indexed: 50, missing: [], stale: false });
    const first = structured.hits[0];
    expect(first).toMatchObject({
      db: "FM08",
      series_code: "FXERD01",
      name: "US.Dollar/Yen Spot Rate at 9:00 in JST, Tokyo Market",
      name_ja: "東京市場　ドル・円　スポット　9時時点",
      unit: "Yen per U.S. Dollar",
      frequency: "DAILY",
      category: "Foreign Exchange Rates",
      first_period: "19990101",
      last_period: "20260217",
      last_update: "20260219",
      next_call: { tool: "boj_get_data_code", arguments: { db: "FM08", codes: ["FXERD01"] } },
    });
    // Text: a header, one line per hit ending in the exact call, well under 8,000 bytes.
    const lines = text.trimEnd().split("\n");
    expect(
      lines
        .slice(1, 1 + structured.hits.length)
        .every((line: string) => / → boj_get_data_code \{"db":"[A-Z0-9]+","codes":\["[^"]+"\]\}$/.test(line)),
    ).toBe(true);
    expect(lines[1]).toContain("FM08 FXERD01 · US.Dollar/Yen Spot Rate at 9:00 in JST");
    expect(Buffer.byteLength(text)).toBeLessThan(8_000);

    // The second call of the two: the hit's own next_call fetches the data.
    fake.reset();
    const data = await server.client.callTool({ name: first.next_call.tool, arguments: first.next_call.arguments });
    expect(data.isError).toBeFalsy();
    expect((data.structuredContent as Structured).series[0].series_code).toBe("FXERD01");
  }, 120_000);

  test("the catalogue is one file in the cache folder", () => {
    expect(readdirSync(cacheDir)).toContain("boj-series-catalog.sqlite");
  });
});

describe("matching", () => {
  test("case, full-width forms and punctuation do not matter, and words match in any order", async () => {
    const codes = async (query: string) =>
      (await search({ query, db: "FM08", limit: 5 })).structured.hits.map((hit: Structured) => hit.series_code);
    const reference = await codes("us dollar yen");
    expect(reference.length).toBe(5);
    for (const query of ["US.Dollar/Yen", "yen DOLLAR us", "ｕｓ　ｄｏｌｌａｒ／ｙｅｎ", "US-Dollar, Yen!"]) {
      expect(await codes(query)).toEqual(reference);
    }
    const japanese = await codes("ドル・円");
    expect(japanese.length).toBe(5);
    expect(await codes("円　ドル")).toEqual(japanese);
    expect(await codes("ﾄﾞﾙ 円")).toEqual(japanese); // half-width katakana
  });

  test("ISO currency codes find BOJ's spelled-out names: USD/JPY is US.Dollar/Yen (BOJ's real FM08 names)", async () => {
    const codes = async (query: string) =>
      (await search({ query, db: "FM08", limit: 5 })).structured.hits.map((hit: Structured) => hit.series_code);
    const reference = await codes("us dollar yen");
    expect(await codes("USD/JPY")).toEqual(reference);
    expect(await codes("usd jpy")).toEqual(reference);
    // boj_get_metadata's query, on the same real catalogue: the codes, and Japanese typed without the `・`.
    const metadata = async (query: string) => {
      const result = await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "FM08", query } });
      return ((result.structuredContent as Structured).entries as Structured[]).map((entry) => entry.series_code);
    };
    const spot = await metadata("US.Dollar/Yen spot");
    expect(spot.length).toBeGreaterThan(0);
    expect(await metadata("USD spot")).toEqual(await metadata("us dollar spot"));
    expect(await metadata("USD/JPY spot")).toEqual(spot);
    expect(await metadata("ドル円")).toEqual(await metadata("ドル・円"));
    expect((await metadata("ドル円")).length).toBeGreaterThan(0);
  });

  test("parts of words match, and series with every word come before series with some", async () => {
    const { structured } = await search({ query: "dolla yen zzzq", db: "FM08", limit: 50 });
    const hits = structured.hits as Structured[];
    expect(hits.length).toBeGreaterThan(0);
    // No series holds "zzzq": every hit has some of the words, those with "dolla" and "yen" first.
    const both = (hit: Structured) => /dolla/i.test(hit.name) && /yen/i.test(hit.name);
    const firstWithout = hits.findIndex((hit) => !both(hit));
    expect(firstWithout).toBeGreaterThan(0);
    expect(hits.slice(firstWithout).some(both)).toBe(false);
  });

  test("a series code returns that series first, in any letter case", async () => {
    for (const query of ["FXERD05", "fxerd05", "ＦＸＥＲＤ０５"]) {
      const { structured } = await search({ query });
      expect(structured.hits[0]).toMatchObject({ db: "FM08", series_code: "FXERD05" });
    }
    // One code inside another: the exact one first, whichever way it is written.
    for (const query of ["BPBP6JYNCB", "ｂｐｂｐ６ｊｙｎｃｂ"]) {
      const both = await search({ query });
      expect(both.structured.hits.map((hit: Structured) => hit.series_code)).toEqual(["BPBP6JYNCB", "BPBP6JYNCBQ"]);
    }
    const { structured } = await search({ query: "TK99F1000601GCQ01000" });
    expect(structured.hits[0]).toMatchObject({ db: "CO", series_code: "TK99F1000601GCQ01000" });
  });

  test("heading rows (no series code) are never hits", async () => {
    // The capture's headings: 外国為替相場状況(日次）/ Foreign Exchange Rates (Daily), no series carries that name.
    const { structured } = await search({ query: "外国為替相場状況" });
    expect(structured.hits).toEqual([]);
    const all = await search({ query: "rate", db: "FM08", limit: 100 });
    expect(all.structured.hits.every((hit: Structured) => hit.series_code !== "")).toBe(true);
  });

  test("filters narrow by database, frequency and category", async () => {
    const monthly = await search({ query: "dollar yen", db: ["fm08"], frequency: "m", limit: 100 });
    expect(monthly.structured.hits.length).toBeGreaterThan(0);
    expect(monthly.structured.hits.every((hit: Structured) => hit.frequency === "MONTHLY")).toBe(true);
    const generated = await search({ query: "deposits households", db: ["MD01", "MD02"], limit: 100 });
    expect(new Set(generated.structured.hits.map((hit: Structured) => hit.db))).toEqual(new Set(["MD01", "MD02"]));
    const category = await search({ query: "dollar", category: "外国為替", limit: 100 });
    expect(category.structured.hits.every((hit: Structured) => hit.db === "FM08")).toBe(true);
  });
});

describe("the text half", () => {
  test("stays under 8,000 bytes at the default limit even for BOJ's longest names, which structuredContent keeps whole", async () => {
    const { structured, text } = await search({ query: "OTG", db: "OT" }); // every OT series code starts so
    expect(structured.hits).toHaveLength(10);
    expect(structured.hits.every((hit: Structured) => hit.name.length > 120)).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThan(8_000);
    expect(text).toContain("…");
  });
});

describe("paging", () => {
  test("pages of 7 follow each other exactly, across both phases, and together equal one page of 100", async () => {
    // Every word first (12 of FM08's dollar/yen spot series), then names with some of the words (33).
    const query = { query: "dollar yen spot" };
    const whole = (await search({ ...query, limit: 100 })).structured.hits as Structured[];
    expect(whole.length).toBeGreaterThan(14);
    expect(whole.length).toBeLessThan(100); // all of them
    // The first hit has every word, the last lacks one: the pages below cross from one phase into the other.
    const every = (hit: Structured) =>
      ["yen", "dollar", "spot"].every((word) => `${hit.name} ${hit.unit}`.toLowerCase().includes(word));
    expect(every(whole[0])).toBe(true);
    expect(every(whole.at(-1) as Structured)).toBe(false);
    const paged: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const { structured, text } = await search({ ...query, limit: 7, ...(cursor ? { cursor } : {}) });
      paged.push(...structured.hits.map((hit: Structured) => hit.series_code));
      cursor = structured.next_cursor ?? undefined;
      if (!cursor) break;
      expect(text).toContain(`More: boj_search_series {"query":"dollar yen spot","limit":7,"cursor":"${cursor}"}`);
    }
    expect(cursor).toBeUndefined();
    expect(paged).toEqual(whole.map((hit) => hit.series_code));
  });

  test("--max-output-bytes shortens the page in both halves, and the cursor continues right after it", async () => {
    const small = await startStdioServer({ args: searchArgs(cacheDir, "--max-output-bytes", "3000") });
    try {
      const args = { query: "dollar", limit: 40 };
      const { structured, text } = await search(args, small);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3000);
      expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(3000);
      expect(structured.truncated.shown_hits).toBe(structured.hits.length);
      expect(structured.hits.length).toBeLessThan(40);
      const next = await search({ ...args, cursor: structured.next_cursor }, small);
      const whole = (await search({ ...args, limit: 80 })).structured.hits.map((hit: Structured) => hit.series_code);
      const shown = structured.hits.length;
      expect(next.structured.hits[0].series_code).toBe(whole[shown]);
    } finally {
      await small.close();
    }
  });

  test.each([1_500, 4_000, 9_000])(
    "under --max-output-bytes %d, paging to the end returns every hit exactly once, each page within the budget",
    async (budget) => {
      const args = { query: "dollar yen", limit: 25 };
      const whole = (await search({ ...args, limit: 100 })).structured.hits.map((hit: Structured) => hit.series_code);
      expect(whole.length).toBeGreaterThan(25);
      const small = await startStdioServer({ args: searchArgs(cacheDir, "--max-output-bytes", String(budget)) });
      try {
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 200; page++) {
          const { structured, text } = await search({ ...args, ...(cursor ? { cursor } : {}) }, small);
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
          expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(budget);
          paged.push(...structured.hits.map((hit: Structured) => hit.series_code));
          cursor = structured.next_cursor ?? undefined;
          if (!cursor) break;
        }
        expect(paged).toEqual(whole);
      } finally {
        await small.close();
      }
    },
  );
});

describe("bad input is a VALIDATION_ERROR naming the field", () => {
  test.each([
    [{ query: "" }, "query"],
    [{ query: "・、！ ／" }, "query"],
    [{ query: "yen", frequency: "MONTHLY" }, "frequency"],
    [{ query: "yen", db: "FM8" }, "db"],
    [{ query: "yen", db: ["FM08", "XX99"] }, "db[1]"],
    [{ query: "yen", cursor: "not-a-cursor" }, "cursor"],
    [{ query: "yen", category: "・!!" }, "category"],
  ])("%j", async (args, field) => {
    const error = await rpcError(args);
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ error_type: "VALIDATION_ERROR" });
    expect(error.message).toContain(field.replace(/\[\d\]$/, ""));
    if (field === "db") expect(error.message).toContain('did you mean "FM08"?');
    if (field === "db[1]") expect((error.data as Structured).field).toBe("db[1]");
    if (field === "category") expect((error.data as Structured).field).toBe("category");
  });

  test("a cursor of another query is refused", async () => {
    const { structured } = await search({ query: "dollar", limit: 2 });
    const error = await rpcError({ query: "euro", limit: 2, cursor: structured.next_cursor });
    expect((error.data as Structured).field).toBe("cursor");
    expect(error.message).toContain("belongs to another search");
  });
});

describe("a restart with the same cache folder", () => {
  test("sends BOJ nothing, over stdio and over HTTP in both eras", async () => {
    fake.reset();
    const again = await startStdioServer({ args: searchArgs(cacheDir) });
    try {
      const { structured } = await search({ query: "ドル 円 スポット" }, again);
      expect(structured.hits[0].db).toBe("FM08");
      expect(structured.catalog.databases_indexed).toBe(50);
    } finally {
      await again.close();
    }
    const http = await startHttpServer(searchArgs(cacheDir));
    try {
      const { client } = await connectClient(http.url);
      const legacy = await client.callTool({ name: "boj_search_series", arguments: { query: "FXERD01" } });
      expect((legacy.structuredContent as Structured).hits[0].series_code).toBe("FXERD01");
      await client.close();
      const modern = await post(
        http.url,
        request("tools/call", { name: "boj_search_series", arguments: { query: "dollar yen", limit: 3 } }),
      );
      const result = modern.response.result as Json;
      expect(result.structuredContent.hits).toHaveLength(3);
      expect(result.content[0].text).toContain("→ boj_get_data_code");
    } finally {
      await http.stop();
    }
    expect(fake.requests).toEqual([]);
  }, 60_000);
});
