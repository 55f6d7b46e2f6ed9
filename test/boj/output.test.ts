/**
 * Results that fit a model's context (issue 9 §2): the compact text of each boj tool, cut at a
 * series or entry boundary within --max-output-bytes with the exact call that returns the rest,
 * structuredContent complete beside it (the SDK client validates it against the outputSchema);
 * boj_get_metadata's filters and paging; closed sets as enums that accept any letter case.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { buildDataset } from "../fixtures/boj/dataset.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
let server: RunningServer;
let small: RunningServer;
const SMALL_BUDGET = 20_000;

type Structured = Record<string, any>;

const bojArgs = (...extra: string[]) => bojTestArgs(fake.url, ...extra);

beforeAll(async () => {
  [server, small] = await Promise.all([
    startStdioServer({ args: bojArgs() }),
    startStdioServer({ args: bojArgs("--max-output-bytes", String(SMALL_BUDGET)) }),
  ]);
  // From here on the SDK client validates every structuredContent against its outputSchema.
  await Promise.all([server.client.listTools(), small.client.listTools()]);
});
afterAll(async () => {
  await Promise.all([server.close(), small.close()]);
  await fake.stop();
});
beforeEach(() => fake.reset());

async function call(
  name: string,
  args: Record<string, unknown>,
  on = server,
): Promise<{ text: string; structured: Structured }> {
  const result = await on.client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  return { text: content[0].text, structured: result.structuredContent as Structured };
}

const bytes = (text: string) => Buffer.byteLength(text);

describe("boj_get_metadata on a 1,300-series database", () => {
  test("a page is what fits in both halves; next_offset (named in the text) continues right after it, and paging to the end returns every entry once (issue 19)", async () => {
    const seen: string[] = [];
    let offset = 0;
    for (let page = 0; page < 50; page++) {
      const { text, structured } = await call("boj_get_metadata", offset ? { db: "LA01", offset } : { db: "LA01" });
      expect(bytes(text)).toBeLessThanOrEqual(100_000);
      expect(bytes(JSON.stringify(structured))).toBeLessThanOrEqual(100_000);
      expect(structured.total_count).toBe(1300);
      const codes = structured.entries.map((e: Structured) => e.series_code);
      expect(codes.length).toBeGreaterThan(0);
      expect(structured.entries_count).toBe(codes.length);
      // The text lists the same entries, one line each.
      expect(
        text
          .split("\n")
          .filter((line) => /^LA[MQ]\d{4} \|/.test(line))
          .map((line) => line.split(" |")[0]),
      ).toEqual(codes);
      seen.push(...codes);
      if (structured.next_offset === null) break;
      expect(structured.next_offset).toBe(offset + codes.length);
      expect(text).toContain(`call again with offset ${structured.next_offset}`);
      // structuredContent alone says the page is shorter than asked for, and how to go on.
      expect(structured.truncated).toEqual({
        shown_entries: codes.length,
        total_entries: 1300 - offset,
        continuation: `call boj_get_metadata again with the same arguments and offset ${structured.next_offset}`,
      });
      offset = structured.next_offset;
    }
    expect(seen).toHaveLength(1300);
    expect(new Set(seen).size).toBe(1300);
  });

  test("query matches code and names in both languages; frequency and layer narrow; offset/limit page", async () => {
    const byCode = await call("boj_get_metadata", { db: "LA01", query: "laq0901" });
    expect(byCode.structured.entries.map((e: Structured) => e.series_code)).toEqual(["LAQ0901"]);
    expect(byCode.structured.matched_count).toBe(1);
    const japanese = await call("boj_get_metadata", { db: "FM08", query: "ドル スポット 3" });
    expect(japanese.structured.entries.map((e: Structured) => e.series_code)).toEqual(["FXERD03"]);
    const english = await call("boj_get_metadata", { db: "FM08", query: "USD/JPY SPOT", lang: "en" });
    expect(english.structured.entries_count).toBe(3);
    const quarterly = await call("boj_get_metadata", { db: "LA01", frequency: "q", limit: 100 });
    expect(quarterly.structured).toMatchObject({ matched_count: 500, entries_count: 100, offset: 0, next_offset: 100 });
    expect(quarterly.structured.entries.every((e: Structured) => e.frequency === "QUARTERLY")).toBe(true);
    const branch = await call("boj_get_metadata", { db: "LA01", layer: "1, 3", frequency: "M" });
    expect(branch.structured.matched_count).toBe(100);
    expect(branch.structured.entries.every((e: Structured) => e.layer2 === 3)).toBe(true);
    expect(branch.text).toContain('100 match frequency M, layer "1,3"');
    const wildcard = await call("boj_get_metadata", { db: "MD10", layer: "*,1,2" });
    expect(wildcard.structured.entries.map((e: Structured) => [e.layer2, e.layer3])).toEqual([
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
    const last = await call("boj_get_metadata", { db: "LA01", frequency: "Q", offset: 450, limit: 100 });
    expect(last.structured).toMatchObject({ entries_count: 50, next_offset: null });
    const none = await call("boj_get_metadata", { db: "CO", query: "no such series" });
    expect(none.structured).toMatchObject({ entries_count: 0, matched_count: 0, total_count: 3 });
    expect(none.text).toContain("0 match");
    // One BOJ request per call: filters apply to the decoded catalogue.
    expect(fake.requests.every((r) => r.path === "/api/v1/getMetadata")).toBe(true);
  });

  test("every word of query counts, however many there are (the search keeps 12)", async () => {
    // Twelve words every "USD/JPY spot rate N" entry holds, then a thirteenth.
    const twelve = "usd jpy spot rate us sd jp py sp po ot ra";
    const held = await call("boj_get_metadata", { db: "FM08", query: `${twelve} at`, lang: "en" });
    expect(held.structured.matched_count).toBeGreaterThan(0);
    // A thirteenth word no entry holds leaves nothing: it is not dropped.
    const absent = await call("boj_get_metadata", { db: "FM08", query: `${twelve} nosuchword`, lang: "en" });
    expect(absent.structured.matched_count).toBe(0);
  });

  test("an offset past the matches says so and which offsets exist, instead of an empty page", async () => {
    const { text, structured } = await call("boj_get_metadata", { db: "FM08", offset: 99 });
    expect(structured.entries).toEqual([]);
    expect(structured.next_offset).toBeNull();
    expect(text).toContain(
      "showing no entries: offset 99 is past the 4 entries; offsets 0 to 3 exist (0 is the first)",
    );
    // structuredContent says it too: Claude Code and VS Code show a model only that half.
    expect(structured.notice).toBe("offset 99 is past the 4 entries; offsets 0 to 3 exist (0 is the first)");
    const filtered = await call("boj_get_metadata", { db: "FM08", query: "spot", offset: 7 });
    expect(filtered.text).toContain("offset 7 is past the 3 matching entries; offsets 0 to 2 exist");
    expect(filtered.structured.notice).toBe(
      "offset 7 is past the 3 matching entries; offsets 0 to 2 exist (0 is the first)",
    );
    // A page with entries, or nothing matched at all, carries no notice.
    const first = await call("boj_get_metadata", { db: "FM08" });
    expect(first.structured.notice).toBeUndefined();
  });

  test("bad filters are -32602 VALIDATION_ERROR naming the argument and the valid values", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ db: "LA01", layer: "1,0" }, /"layer": must be 1 to 5 comma-separated levels/],
      [{ db: "LA01", layer: "1,2,3,4,5,6" }, /"layer"/],
      [{ db: "LA01", frequency: "MONTHLY" }, /short code "M"/],
      [{ db: "LA01", frequency: "X" }, /"CY", "FY", "CH", "FH", "Q", "M", "W", "D"/],
      [{ db: "LA01", offset: -1 }, /"offset": must be 0 or more/],
      [{ db: "LA01", limit: 0 }, /"limit": must be 1 or more/],
      [{ db: "LA01", lang: "fr" }, /"lang": must be "jp" or "en"/],
      // Folded to no word, it would filter by nothing and answer the whole catalogue as the matches.
      [{ db: "LA01", query: "・" }, /"query" "・" holds no letter or digit/],
    ];
    for (const [args, message] of cases) {
      const error = await server.client.callTool({ name: "boj_get_metadata", arguments: args }).catch((e) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ error_type: "VALIDATION_ERROR" });
      expect(error.message).toMatch(message);
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe("data pages: a page is what fits, in both halves (issue 19)", () => {
  const within = (page: { text: string; structured: Structured }, budget: number) => {
    expect(bytes(page.text)).toBeLessThanOrEqual(budget);
    expect(bytes(JSON.stringify(page.structured))).toBeLessThanOrEqual(budget);
  };
  const headers = (text: string) =>
    text
      .split("\n")
      .filter((line) => line.startsWith("# "))
      .map((line) => line.slice(2).split(" | ")[0]);

  test("a 250-series layer page is shortened to whole series in both halves, and the codes it names return the rest exactly once", async () => {
    const first = await call("boj_get_data_layer", { db: "MD10", frequency: "Q", layers: ["*"], lang: "EN" });
    within(first, 100_000);
    expect(first.text).toContain("start_position 255"); // BOJ's own next page
    expect(first.text).toContain(
      "# DLDDQ0002 | Deposits by depositor 2 | 100 million yen | QUARTERLY | updated 20251112 | 8 points\n197001,10\n",
    );
    expect(first.text.split("## Amounts Outstanding of Deposits").length - 1).toBe(1);
    const shown = first.structured.series.map((s: Structured) => s.series_code);
    expect(headers(first.text)).toEqual(shown);
    expect(first.structured.series_count).toBe(shown.length);
    expect(first.structured.truncated).toMatchObject({ shown_series: shown.length, total_series: 250 });
    const rest = JSON.parse(/codes (\[.*?\])/.exec(first.structured.truncated.continuation)![1]) as string[];
    expect(first.text).toContain(first.structured.truncated.continuation);
    // Following the continuation (again and again while it is shortened) returns the other series once each.
    const seen = [...shown];
    let codes = rest;
    while (codes.length > 0) {
      const next = await call("boj_get_data_code", { db: "MD10", codes, lang: "EN" });
      within(next, 100_000);
      const got = next.structured.series.map((s: Structured) => s.series_code);
      seen.push(...got);
      codes = codes.slice(got.length);
      if (codes.length > 0)
        expect(next.structured.truncated.continuation).toContain(`start_position ${got.length + 1}`);
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
  });

  for (const budget of [2_000, 3_000, 4_000]) {
    test(`at --max-output-bytes ${budget}, a layer page whose list of remaining codes does not fit names a continuation that fits, and following it reaches every series`, async () => {
      const on = await startStdioServer({ args: bojArgs("--max-output-bytes", String(budget)) });
      try {
        await on.client.listTools(); // the SDK client validates each structuredContent against its outputSchema
        const layer = { db: "MD10", frequency: "Q", layers: ["*"], lang: "en" };
        const expected = buildDataset()
          .get("MD10")!
          .series.filter((s) => s.frequencyCode === "Q")
          .map((s) => s.code);
        const seen = new Set<string>();
        const pending: [string, Record<string, unknown>][] = [["boj_get_data_layer", layer]];
        let calls = 0;
        while (pending.length > 0) {
          const [name, args] = pending.shift()!;
          expect(++calls).toBeLessThan(1_000);
          const page = await call(name, args, on);
          within(page, budget);
          for (const series of page.structured.series) {
            expect(series.points).toHaveLength(8); // whole series: nothing to resume by date
            seen.add(series.series_code);
          }
          const next: [string, Record<string, unknown>][] = [];
          const continuation: string | undefined = page.structured.truncated?.continuation;
          let position: RegExpExecArray | null = null;
          if (continuation !== undefined) {
            // Both halves name the same continuation, whole (not cut by the output budget's last resort).
            expect(page.text).toContain(`${continuation}]`);
            expect(continuation).not.toContain("cut at");
            // The header does not offer BOJ's next position as if it continued this shortened page.
            expect(page.text).not.toContain("More series follow");
            // The other tool's call names this call's lang: "the same arguments" does not reach across tools.
            const codes = /call boj_get_data_code with db "MD10", lang "en", codes (\[[^\]]*\])/.exec(continuation);
            if (codes) next.push(["boj_get_data_code", { db: "MD10", codes: JSON.parse(codes[1]), lang: "en" }]);
            position = /call (boj_get_data_\w+) again with the same arguments and start_position (\d+)/.exec(
              continuation,
            );
            if (position) next.push([position[1], { ...args, start_position: Number(position[2]) }]);
            expect(codes !== null || position !== null).toBe(true);
          }
          // BOJ's own next page, unless the continuation's own call at a position goes on from there.
          if (position === null && page.structured.next_position !== null)
            next.push([name, { ...args, start_position: page.structured.next_position }]);
          pending.unshift(...next);
        }
        expect([...seen].sort()).toEqual([...expected].sort());
      } finally {
        await on.close();
      }
    }, 60_000);
  }

  test("over a small budget, a code page says which start_position continues it, and that call does", async () => {
    const codes = Array.from({ length: 600 }, (_, i) =>
      i === 0 ? "DLDDLKY45090_DLDD3DBTTL" : `DLDDQ${String(i + 1).padStart(4, "0")}`,
    )
      .filter((code) => !/^DLDDQ0(050|100|150|200)$/.test(code))
      .slice(0, 200);
    const args = { db: "MD10", codes, lang: "en" };
    const seen: string[] = [];
    let position = 1;
    for (let page = 0; page < 200; page++) {
      const result = await call(
        "boj_get_data_code",
        position > 1 ? { ...args, start_position: position } : args,
        small,
      );
      within(result, SMALL_BUDGET);
      const got = result.structured.series.map((s: Structured) => s.series_code);
      expect(headers(result.text)).toEqual(got);
      seen.push(...got);
      const next = /start_position (\d+)/.exec(result.structured.truncated?.continuation ?? "");
      if (!next) break;
      expect(Number(next[1])).toBe(position + got.length);
      position = Number(next[1]);
    }
    expect(seen).toEqual(codes);
  });

  test("one series larger than the budget is cut at a period boundary in both halves, with the start_date that resumes right after it", async () => {
    const { text, structured } = await call("boj_get_data_code", {
      db: "FM08",
      codes: ["FXERD01", "FXERD02", "FXERD03"],
    });
    within({ text, structured }, 100_000);
    expect(structured.series).toHaveLength(1);
    const shownPoints = structured.series[0].points.length;
    expect(shownPoints).toBeGreaterThan(100);
    expect(shownPoints).toBeLessThan(25_000);
    const note =
      /Series FXERD01 is cut after (\d+) of 25000 points; get the rest with boj_get_data_code, db "FM08", codes \["FXERD01"\], start_date "(\d{6})"/.exec(
        structured.truncated.continuation,
      );
    expect(note).not.toBeNull();
    expect(Number(note![1])).toBe(shownPoints);
    expect(text).toContain(structured.truncated.continuation);
    expect(structured.truncated.continuation).toContain("start_position 2");
    // Resuming at that month starts exactly after the last point shown: no day twice, none missing.
    const last = structured.series[0].points.at(-1).survey_date as string;
    expect(note![2] > last.slice(0, 6)).toBe(true);
    const rest = await call("boj_get_data_code", { db: "FM08", codes: ["FXERD01"], start_date: note![2] });
    const firstAfter = rest.structured.series[0].points[0].survey_date as string;
    expect(firstAfter > last).toBe(true);
    expect(firstAfter.slice(0, 6)).toBe(note![2]);
  });

  test("the call that resumes a cut series names the end_date, lang and format this call gave, and nothing it did not", async () => {
    const asked = { db: "FM08", codes: ["FXERD01", "FXERD02"], end_date: "202306", lang: "en", format: "csv" };
    const { structured } = await call("boj_get_data_code", asked);
    const note: string = structured.truncated.continuation;
    expect(note).toMatch(
      /get the rest with boj_get_data_code, db "FM08", codes \["FXERD01"\], start_date "\d{6}", end_date "202306", lang "en", format "csv"\./,
    );
    // Without them, none is named (there is no "same end_date" to repeat).
    const bare = await call("boj_get_data_code", { db: "FM08", codes: ["FXERD01", "FXERD02"] });
    expect(bare.structured.truncated.continuation).toMatch(/start_date "\d{6}"\./);
    expect(bare.structured.truncated.continuation).not.toContain("end_date");
  });
});

describe("a daily series under a budget smaller than one month of it", () => {
  const TINY_BUDGET = 2_000;
  let tiny: RunningServer;
  beforeAll(async () => {
    tiny = await startStdioServer({ args: bojArgs("--max-output-bytes", String(TINY_BUDGET)) });
    await tiny.client.listTools();
  });
  afterAll(() => tiny.close());

  test("paging to the end shows every point once or names it as left out, and no continuation repeats the request", async () => {
    const base = { db: "FM08", codes: ["FXERD01"], end_date: "202306" };
    const all = (await call("boj_get_data_code", { ...base, start_date: "202301" })).structured.series[0].points.map(
      (p: Structured) => p.survey_date as string,
    );
    expect(all.length).toBeGreaterThan(150);
    const shown: string[] = [];
    const leftOut: string[] = [];
    let start = "202301";
    for (let page = 0; page < 40; page++) {
      const { text, structured } = await call("boj_get_data_code", { ...base, start_date: start }, tiny);
      expect(bytes(text)).toBeLessThanOrEqual(TINY_BUDGET);
      expect(bytes(JSON.stringify(structured))).toBeLessThanOrEqual(TINY_BUDGET);
      shown.push(...structured.series[0].points.map((p: Structured) => p.survey_date as string));
      const note: string | undefined = structured.truncated?.continuation;
      if (!note) break;
      expect(text).toContain(note);
      const gap = /its (\d+) points (\d{8}) to (\d{8}) are left out/.exec(note);
      if (gap) {
        expect(note).toContain("--max-output-bytes");
        const gapDates = all.filter((date: string) => date >= gap[2] && date <= gap[3]);
        expect(gapDates).toHaveLength(Number(gap[1]));
        leftOut.push(...gapDates);
      }
      const next = /start_date "(\d{6})"/.exec(note);
      if (!next) {
        expect(note).toContain("No points follow them.");
        break;
      }
      // Never the request just made: following it would return this page again.
      expect(next[1] > start).toBe(true);
      start = next[1];
    }
    expect(new Set(shown).size).toBe(shown.length);
    expect([...shown, ...leftOut].sort()).toEqual(all);
    expect(leftOut.length).toBeGreaterThan(0);
  });
});

describe("a shortened data page read from structuredContent alone", () => {
  test("offers no next_position beside truncated: the continuation names every call for the rest in order, BOJ's next page included", async () => {
    // BOJ's page holds FXERD01 and FXERD02 (next_position 3); the budget keeps only part of FXERD01.
    const code = await call("boj_get_data_code", { db: "FM08", codes: ["FXERD01", "FXERD02", "FXERD03"] }, small);
    expect(code.structured.truncated).toBeDefined();
    expect(code.structured.next_position).toBeNull();
    // start_position 2 gets FXERD02 and BOJ's page after it; start_position 3 would skip FXERD02's rest.
    expect(code.structured.truncated.continuation).toContain("start_position 2");
    expect(code.structured.truncated.continuation).not.toContain("start_position 3");
    expect(code.text).not.toContain("start_position 3");

    // A layer page whose rest is named by codes: BOJ's next page comes after them, in the same note.
    const layer = await call("boj_get_data_layer", { db: "MD10", frequency: "Q", layers: ["*"], lang: "en" });
    expect(layer.structured.next_position).toBeNull();
    expect(layer.structured.truncated.continuation).toMatch(
      /codes \[[^\]]*\]; then BOJ's next page: call boj_get_data_layer again with the same arguments and start_position 255\.$/,
    );
    expect(layer.text).toContain(layer.structured.truncated.continuation);
  });
});

describe("text of the catalog tools", () => {
  test("boj_list_databases is a table grouped by category, much smaller than its JSON", async () => {
    const { text, structured } = await call("boj_list_databases", {});
    expect(text).toContain("FM08 | Foreign exchange rates | 外国為替市況\n");
    expect(text.split("\n").filter((line) => /^[A-Z]{2}[A-Z0-9]* \| /.test(line))).toHaveLength(structured.count);
    expect(bytes(text)).toBeLessThan(bytes(JSON.stringify(structured)) * 0.6);
  });

  test("parameter and message catalogs are plain lines", async () => {
    const parameters = await call("boj_get_parameter_catalog", { endpoint: "get_data_layer" });
    expect(parameters.text).toContain("layers = LAYER: get_data_layer required.");
    const messages = await call("boj_get_message_catalog", { status: 503 });
    expect(messages.text).toContain("503 M181091S | ");
  });
});

describe("closed sets", () => {
  test("format, lang and frequency accept any letter case; the request carries BOJ's spelling", async () => {
    await call("boj_get_data_layer", {
      db: "MD10",
      frequency: "q",
      layers: ["1"],
      format: "Csv",
      lang: "eN",
      start_position: 1,
    });
    expect(fake.requests[0].query.get("format")).toBe("csv");
    expect(fake.requests[0].query.get("lang")).toBe("en");
    expect(fake.requests[0].query.get("frequency")).toBe("Q");
  });
});
