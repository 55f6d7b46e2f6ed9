/**
 * The boj toolset end to end: the real mcpkit process over stdio (and `mcpkit call`), talking to
 * the fake BOJ server. Covers tools/list, data in both formats, paging, the error contract of
 * docs/contracts/boj.md "Errors", catalogs, resources, prompts, completions, cancellation and request spacing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { type RunningServer, runCli, startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
let server: RunningServer;

const bojArgs = (...extra: string[]) => bojTestArgs(fake.url, "--boj-retry-backoff-ms", "1", ...extra);

beforeAll(async () => {
  // BOJ's own paging (250 series, 60,000 points) is what these tests follow: a budget larger than any page.
  server = await startStdioServer({ args: bojArgs("--max-output-bytes", "10000000") });
  await server.client.listTools(); // lets the SDK client validate structuredContent against each outputSchema
});
afterAll(async () => {
  await server.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

type Structured = Record<string, any>;

async function call(name: string, args: Record<string, unknown>, on: RunningServer = server): Promise<Structured> {
  const result = await on.client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  const structured = result.structuredContent as Structured;
  // The text is the compact form a model reads, not the structuredContent written out again.
  const text = (result.content as { text: string }[])[0].text;
  expect(text.startsWith("{")).toBe(false);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000_000);
  return structured;
}

async function rpcError(name: string, args: Record<string, unknown>, on: RunningServer = server): Promise<McpError> {
  const error = await on.client.callTool({ name, arguments: args }).then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("tools/list", () => {
  test("seven boj tools with titles, output schemas, scope-free annotations as the issue says", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "boj_get_data_code",
      "boj_get_data_layer",
      "boj_get_metadata",
      "boj_list_databases",
      "boj_get_parameter_catalog",
      "boj_get_message_catalog",
      "boj_search_series",
    ]);
    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
      expect(tool.annotations?.openWorldHint).toBe(
        tool.name.startsWith("boj_get_data") || tool.name === "boj_get_metadata" || tool.name === "boj_search_series",
      );
    }
    const code = tools[0];
    expect(code.inputSchema.required).toEqual(["db", "codes"]);
    expect(code.inputSchema.additionalProperties).toBe(false);
    expect((code.inputSchema.properties as Structured).include_raw.default).toBe(false);
    expect(tools[1].inputSchema.required).toEqual(["db", "frequency", "layers"]);
    // Closed sets are enums a client can show (issue 9 §5); any letter case is still accepted (below).
    for (const tool of tools.slice(0, 3)) {
      const properties = tool.inputSchema.properties as Structured;
      expect(properties.format).toMatchObject({ type: "string", enum: ["json", "csv"] });
      expect(properties.lang).toMatchObject({ type: "string", enum: ["jp", "en"] });
    }
    const frequencies = ["CY", "FY", "CH", "FH", "Q", "M", "W", "D"];
    expect((tools[1].inputSchema.properties as Structured).frequency.enum).toEqual(frequencies);
    expect((tools[2].inputSchema.properties as Structured).frequency.enum).toEqual(frequencies);
  });

  test("resources, prompts and completions are advertised", () => {
    const capabilities = server.client.getServerCapabilities();
    expect(capabilities?.resources).toBeDefined();
    expect(capabilities?.prompts).toBeDefined();
    expect(capabilities?.completions).toBeDefined();
  });
});

describe("data", () => {
  test("Code API, JSON: the manual's CO example, with format/lang in any case", async () => {
    const out = await call("boj_get_data_code", {
      db: "co",
      codes: ["TK99F1000601GCQ01000", "TK99F2000601GCQ01000"],
      start_date: "202401",
      end_date: "202504",
      format: "JSON",
      lang: "Jp",
    });
    expect(out.meta).toMatchObject({ status: 200, message_id: "M181000I", message: "正常に終了しました。" });
    expect(out.parameter).toMatchObject({
      format: "JSON",
      lang: "JP",
      db: "CO",
      start_date: "202401",
      end_date: "202504",
      start_position: null,
    });
    expect(out.series_count).toBe(2);
    expect(out.series[0].points.map((p: Structured) => p.value)).toEqual([11, 13, 13, 14, 12, 13, 14, null]);
    expect(out.raw).toBeUndefined();
    expect(fake.requests[0].query.get("db")).toBe("CO");
    expect(fake.requests[0].gzipped).toBe(true);
  });

  test("Code API, Shift_JIS CSV gives the same series as JSON, and raw only on request", async () => {
    const args = { db: "BP01", codes: ["BPBP6JYNCB"] };
    const fromJson = await call("boj_get_data_code", args);
    const fromCsv = await call("boj_get_data_code", { ...args, format: "csv", include_raw: true });
    expect(fromCsv.series).toEqual(fromJson.series);
    expect(fromCsv.series[0].points.map((p: Structured) => p.value)).toEqual([
      22140.5155,
      0.1,
      1.1,
      -0.000032,
      30000,
      null,
    ]);
    expect(fromCsv.series[0].name_of_time_series_j).toBe("経常収支");
    expect(fromCsv.raw).toContain("BPBP6JYNCB,経常収支,億円,MONTHLY");
    expect(fromCsv.raw).toContain(",null");
    const fromEnglishCsv = await call("boj_get_data_code", { ...args, format: "csv", lang: "en" });
    expect(fromEnglishCsv.series[0]).toMatchObject({
      name_of_time_series: "Current account",
      name_of_time_series_j: null,
      unit: "100 million yen",
    });
  });

  test("Layer API with a wildcard pages through more than 250 series by next_position", async () => {
    const pages: Structured[] = [];
    let position: number | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await call("boj_get_data_layer", {
        db: "md10",
        frequency: "q",
        layers: ["*"],
        lang: "en",
        ...(position ? { start_position: position } : {}),
      });
      pages.push(page);
      if (page.next_position === null) break;
      position = page.next_position;
    }
    expect(pages.map((p) => p.next_position)).toEqual([255, 505, null]);
    expect(pages.map((p) => p.series_count)).toEqual([250, 250, 96]);
    expect(pages[0].parameter).toMatchObject({ layer1: "*", layer2: null, frequency: "Q", db: "MD10" });
    expect(pages[1].parameter.start_position).toBe("255");
    const codes = pages.flatMap((p) => p.series.map((s: Structured) => s.series_code));
    expect(new Set(codes).size).toBe(596);
    expect(codes[0]).toBe("DLDDLKY45090_DLDD3DBTTL");
    expect(fake.requests.map((r) => r.query.get("layer"))).toEqual(["*", "*", "*"]);
  });

  test("the 60,000-point limit stops before a series and next_position resumes it (CSV)", async () => {
    const args = { db: "FM08", codes: ["FXERD01", "FXERD02", "FXERD03"], format: "csv" };
    const first = await call("boj_get_data_code", args);
    expect(first.series_count).toBe(2);
    expect(first.next_position).toBe(3);
    expect(first.series[0].points).toHaveLength(25_000);
    expect(first.series[0].points[5]).toEqual({ survey_date: "19550106", value: null });
    const second = await call("boj_get_data_code", { ...args, start_position: first.next_position });
    expect(second.series.map((s: Structured) => s.series_code)).toEqual(["FXERD03"]);
    expect(second.next_position).toBeNull();
  });

  test("a null survey date does not abort the page, in JSON or CSV", async () => {
    for (const format of ["json", "csv"]) {
      const out = await call("boj_get_data_code", { db: "PR01", codes: ["PRCG20_2200000000"], format });
      expect(out.series[0].points).toEqual([
        { survey_date: "202501", value: 125.3 },
        { survey_date: null, value: 125.9 },
        { survey_date: "202503", value: 126.2 },
      ]);
    }
  });

  test("M181030I (no data) is a success with null values", async () => {
    const out = await call("boj_get_data_code", {
      db: "CO",
      codes: ["TK99F1000601GCQ01000"],
      start_date: 195001,
      end_date: "195004",
    });
    expect(out.meta.message_id).toBe("M181030I");
    expect(out.series[0].points).toEqual(
      ["195001", "195002", "195003", "195004"].map((d) => ({ survey_date: d, value: null })),
    );
  });

  test("metadata keeps the one-digit-hour DATE and lists headings with a null series_code", async () => {
    for (const format of ["json", "csv"]) {
      const out = await call("boj_get_metadata", { db: "fm08", format });
      expect(out.meta.date).toBe("2026-02-19T9:00:06.669+09:00");
      expect(out.db).toBe("FM08");
      expect(out.entries_count).toBe(4);
      expect(out.entries[0]).toMatchObject({
        series_code: null,
        name_of_time_series_j: "東京市場",
        layer1: 1,
        layer2: 0,
      });
      expect(out.entries[1]).toMatchObject({
        series_code: "FXERD01",
        frequency: "DAILY",
        layer2: 1,
        start_of_the_time_series: "19550101",
        name_of_time_series: "USD/JPY spot rate 1",
      });
    }
  });
});

describe('errors (docs/contracts/boj.md "Errors")', () => {
  test("arguments that break the schema are -32602 VALIDATION_ERROR, and BOJ is not called", async () => {
    // The contract's VALIDATION_ERROR names the field, for what the schema refuses as for the tools' own checks.
    const cases: [Record<string, unknown>, RegExp, string][] = [
      [{ db: "CO", codes: "TK99F1000601GCQ01000" }, /codes/, "codes"],
      [{ db: "CO", codes: [] }, /at least one series code/, "codes"],
      [{ db: "CO", codes: ["A"], format: "xml" }, /"json" or "csv"/, "format"],
      [{ db: "CO", codes: ["A"], start_position: 0 }, /1 or more/, "start_position"],
      [{ db: "CO", codes: ["A"], page: 2 }, /unknown argument "page"/, "page"],
      [{ codes: ["A"] }, /missing required argument "db"/, "db"],
      [{ db: "CO", codes: ["A"], start_position: 1.5 }, /"start_position": must be a whole number/, "start_position"],
      [{ db: "CO", codes: ["A", 7] }, /codes/, "codes[1]"],
    ];
    for (const [args, message, field] of cases) {
      const error = await rpcError("boj_get_data_code", args);
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ error_type: "VALIDATION_ERROR", field });
      expect(error.message).toMatch(message);
    }
    const layer = await rpcError("boj_get_data_layer", { db: "MD10", frequency: "MONTHLY", layers: ["1"] });
    expect(layer.message).toContain("not MONTHLY");
    expect(fake.requests).toHaveLength(0);
  });

  test("meaning-level checks are -32602 VALIDATION_ERROR naming the field", async () => {
    const error = await rpcError("boj_get_data_code", { db: "IR01", codes: ["IR01'MADR1Z@D"] });
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ error_type: "VALIDATION_ERROR", field: "codes[0]" });
    expect(error.message).toContain('bare series code "MADR1Z@D"');
    const dates = await rpcError("boj_get_data_layer", {
      db: "MD10",
      frequency: "Q",
      layers: ["1"],
      start_date: "202405",
    });
    expect(dates.data).toMatchObject({ error_type: "VALIDATION_ERROR", field: "start_date" });
    expect(fake.requests).toHaveLength(0);
  });

  test("an overlong series code is -32602 naming codes[i] and the limit, and BOJ is not called", async () => {
    fake.reset();
    const error = await rpcError("boj_get_data_code", {
      db: "CO",
      codes: ["TK99F1000601GCQ01000", "x".repeat(100_000)],
    });
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ error_type: "VALIDATION_ERROR", field: "codes[1]" });
    expect(error.message).toContain('"codes[1]" is 100000 characters long');
    expect(error.message).toContain("at most 64 characters");
    expect(error.message.length).toBeLessThan(500); // the value is not echoed back
    expect(fake.requests).toHaveLength(0);
  });

  test("BOJ status 400 is -32602 API_ERROR with status, message_id and message", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["boj_get_data_code", { db: "CO", codes: ["TK99F1000601GCQ01000", "NOPE"] }, "M181013E"],
      ["boj_get_data_code", { db: "BP01", codes: ["BPBP6JYNCB", "BPBP6JYNCBQ"] }, "M181014E"],
      ["boj_get_data_code", { db: "CO", codes: ["TK99F1000601GCQ01000"], start_date: "2024" }, "M181015E"],
      ["boj_get_data_layer", { db: "LA01", frequency: "M", layers: ["*"] }, "M181007E"],
    ];
    for (const [tool, args, id] of cases) {
      const error = await rpcError(tool, args);
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ error_type: "API_ERROR", status: 400, message_id: id });
      expect(error.message).toContain(id);
    }
    const unknownCode = await rpcError("boj_get_data_code", { db: "CO", codes: ["TK99F1000601GCQ01000", "NOPE"] });
    expect(unknownCode.data).toMatchObject({ message: "指定した系列コードは存在しません。:2番目のコード" });
    // BOJ's 1-based position is named as the argument and its value, with what to do.
    expect(unknownCode.message).toContain('(codes[1] "NOPE" does not exist in db "CO": find its code and db with');
    const mixed = await rpcError("boj_get_data_code", { db: "BP01", codes: ["BPBP6JYNCB", "BPBP6JYNCBQ"] });
    expect(mixed.message).toContain('(codes[1] "BPBP6JYNCBQ" has another frequency than the codes before it');
    // Narrower layers fit under 1,250 and succeed, as the manual recommends.
    expect((await call("boj_get_data_layer", { db: "LA01", frequency: "M", layers: ["1", "1"] })).series_count).toBe(
      100,
    );
  });

  test("BOJ 500 after all retries is -32603 API_ERROR; 3 attempts were made", async () => {
    fake.enqueue({ kind: "status", status: 500 }, { kind: "status", status: 500 }, { kind: "status", status: 500 });
    const error = await rpcError("boj_get_metadata", { db: "CO" });
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ error_type: "API_ERROR", status: 500, message_id: "M181090S" });
    expect(fake.requests).toHaveLength(3);
  });

  test("a gateway's HTML 502 on every attempt is -32603 TRANSPORT_ERROR", async () => {
    fake.enqueue({ kind: "html", status: 502 }, { kind: "html", status: 502 }, { kind: "html", status: 502 });
    const error = await rpcError("boj_get_data_code", { db: "CO", codes: ["TK99F1000601GCQ01000"] });
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ error_type: "TRANSPORT_ERROR", attempts: 3 });
    expect(error.message).toContain("502 Bad Gateway");
  });

  test("a timeout is TRANSPORT_ERROR and an over-cap body DECODE_ERROR, both -32603", async () => {
    // Each on a server of its own: under the 200 ms timeout a loaded machine could read the 8 MB
    // body's first megabyte too late, and the cap's DECODE_ERROR would come back a timeout.
    const [strict, capped] = await Promise.all([
      startStdioServer({ args: bojArgs("--boj-timeout-ms", "200", "--boj-retry-max", "0") }),
      startStdioServer({
        args: bojArgs("--boj-timeout-ms", "60000", "--boj-retry-max", "0", "--boj-max-body-bytes", "1048576"),
      }),
    ]);
    try {
      fake.enqueue({ kind: "delay", ms: 60_000 }); // never before the 200 ms timeout, however busy the machine
      const slow = await rpcError("boj_get_data_code", { db: "CO", codes: ["TK99F1000601GCQ01000"] }, strict);
      expect(slow.code).toBe(-32603);
      expect(slow.data).toMatchObject({ error_type: "TRANSPORT_ERROR" });
      expect(slow.message).toContain("200 ms");
      fake.enqueue({ kind: "oversize", bytes: 8 * 1024 * 1024 });
      const big = await rpcError("boj_get_metadata", { db: "CO" }, capped);
      expect(big.code).toBe(-32603);
      expect(big.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(big.message).toContain("--boj-max-body-bytes");
    } finally {
      await Promise.all([strict.close(), capped.close()]);
    }
  });
});

describe("catalogs, resources, prompts, completions", () => {
  test("catalog tools answer without the network", async () => {
    const databases = await call("boj_list_databases", {});
    expect(databases.count).toBe(50);
    expect(databases.databases.map((d: Structured) => d.code)).toContain("FM08");
    const layer = await call("boj_get_parameter_catalog", { endpoint: "get_data_layer" });
    expect(layer.parameters.map((p: Structured) => p.name)).toEqual([
      "FORMAT",
      "LANG",
      "DB",
      "LAYER",
      "FREQUENCY",
      "STARTDATE",
      "ENDDATE",
      "STARTPOSITION",
    ]);
    expect((await call("boj_get_parameter_catalog", {})).parameters).toHaveLength(9);
    const messages = await call("boj_get_message_catalog", { status: 400 });
    expect(messages.count).toBe(20);
    expect((await call("boj_get_message_catalog", {})).count).toBe(24);
    expect(fake.requests).toHaveLength(0);
  });

  test("resources list, read, and unknown URIs answer -32002", async () => {
    const { resources } = await server.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("boj://catalog/databases");
    expect(uris).toContain("boj://catalog/parameters/get_data_code");
    expect(uris).toContain("boj://catalog/messages/503");
    const { resourceTemplates } = await server.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "boj://catalog/parameters/{endpoint}",
      "boj://catalog/messages/{status}",
    ]);
    const read = await server.client.readResource({ uri: "boj://catalog/messages/500" });
    expect(JSON.parse((read.contents[0] as { text: string }).text).messages).toEqual([
      expect.objectContaining({ message_id: "M181090S" }),
    ]);
    const db = await server.client.readResource({ uri: "boj://catalog/databases" });
    expect(JSON.parse((db.contents[0] as { text: string }).text).count).toBe(50);
    for (const uri of ["boj://catalog/messages/418", "boj://catalog/parameters/getData", "boj://nothing"]) {
      const error = await server.client.readResource({ uri }).catch((e) => e);
      expect(error.code).toBe(-32002);
    }
  });

  test("a resource URI with a malformed percent-escape answers -32602 naming the segment, and the server keeps answering (issue 18)", async () => {
    for (const uri of ["boj://catalog/messages/%E0%A4%A", "boj://catalog/parameters/%zz"]) {
      const error = await server.client.readResource({ uri }).catch((e) => e);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("malformed percent-escape");
    }
    const read = await server.client.readResource({ uri: "boj://catalog/messages/500" });
    expect(read.contents).toHaveLength(1);
  });

  test("prompts walk from discovery to data and check their arguments", async () => {
    const { prompts } = await server.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      "boj_discovery_flow",
      "boj_fetch_series",
      "boj_latest_value",
      "boj_explore_layer",
    ]);
    const fetched = await server.client.getPrompt({
      name: "boj_fetch_series",
      arguments: { db: "co", codes: "TK99F1000601GCQ01000, TK99F2000601GCQ01000", start_date: "202401" },
    });
    const text = (fetched.messages[0].content as { text: string }).text;
    expect(text).toContain('codes ["TK99F1000601GCQ01000","TK99F2000601GCQ01000"]');
    expect(text).toContain('db "CO"');
    expect(text).toContain('start_date "202401"');
    const missing = await server.client
      .getPrompt({ name: "boj_fetch_series", arguments: { db: "CO" } })
      .catch((e) => e);
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('"codes"');
  });

  test("completions for db, frequency, format, lang, endpoint and status", async () => {
    const complete = async (ref: Structured, name: string, value: string) =>
      (await server.client.complete({ ref: ref as never, argument: { name, value } })).completion.values;
    const prompt = (name: string) => ({ type: "ref/prompt", name });
    expect(await complete(prompt("boj_fetch_series"), "db", "fm0")).toEqual([
      "FM01",
      "FM02",
      "FM03",
      "FM04",
      "FM05",
      "FM06",
      "FM07",
      "FM08",
      "FM09",
    ]);
    expect(await complete(prompt("boj_explore_layer"), "frequency", "c")).toEqual(["CY", "CH"]);
    expect(await complete(prompt("boj_fetch_series"), "format", "J")).toEqual(["json"]);
    expect(await complete(prompt("boj_latest_value"), "lang", "")).toEqual(["jp", "en"]);
    const template = (uri: string) => ({ type: "ref/resource", uri });
    expect(await complete(template("boj://catalog/parameters/{endpoint}"), "endpoint", "get_data_")).toEqual([
      "get_data_code",
      "get_data_layer",
    ]);
    expect(await complete(template("boj://catalog/messages/{status}"), "status", "5")).toEqual(["500", "503"]);
  });
});

describe("the process", () => {
  test("a cancelled call aborts the BOJ request and the server keeps serving", async () => {
    // An answer after the test's own timeout: only the cancel can end the call in time.
    fake.enqueue({ kind: "delay", ms: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const outcome = await server.client
      .callTool({ name: "boj_get_data_code", arguments: { db: "CO", codes: ["TK99F1000601GCQ01000"] } }, undefined, {
        signal: controller.signal,
      })
      .then(
        () => "resolved",
        () => "rejected",
      );
    expect(outcome).toBe("rejected");
    expect((await call("boj_get_metadata", { db: "CO" })).entries_count).toBe(3);
  });

  test("--boj-min-interval-ms holds the second of two concurrent calls back from BOJ; the server keeps serving, and cancelling the held call sends nothing", async () => {
    // The longest interval the flag allows, which no test outlasts: what is checked is that the
    // second request waits, not for how long (arrival times seen here swing by tens of ms on a busy
    // machine). The slots' arithmetic is tested with a fake clock in test/boj/client.test.ts.
    const spaced = await startStdioServer({ args: bojArgs("--boj-min-interval-ms", "60000") });
    try {
      const controllers = [new AbortController(), new AbortController()];
      const calls = controllers.map((controller) =>
        spaced.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } }, undefined, {
          signal: controller.signal,
        }),
      );
      const first = await Promise.race(calls);
      expect(first.isError).toBeFalsy();
      // A call that needs no BOJ request is answered meanwhile; BOJ has still seen one request.
      await spaced.client.callTool({ name: "boj_list_databases", arguments: {} });
      expect(fake.requests).toHaveLength(1);
      for (const controller of controllers) controller.abort();
      const outcomes = await Promise.all(
        calls.map((call) =>
          call.then(
            () => "answered",
            () => "cancelled",
          ),
        ),
      );
      expect(outcomes.sort()).toEqual(["answered", "cancelled"]);
      await spaced.client.callTool({ name: "boj_list_databases", arguments: {} });
      expect(fake.requests).toHaveLength(1);
    } finally {
      await spaced.close();
    }
  });
});

describe("mcpkit call", () => {
  test("prints the result and exits 0; BOJ_BASE_URL from the environment works", async () => {
    const result = await runCli(
      [
        "call",
        "boj_get_data_code",
        JSON.stringify({ db: "CO", codes: ["TK99F1000601GCQ01000"], format: "csv" }),
        "--boj-min-interval-ms",
        "0",
      ],
      {
        env: { BOJ_BASE_URL: fake.url },
      },
    );
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed.structuredContent.series[0].series_code).toBe("TK99F1000601GCQ01000");
    expect(printed.structuredContent.series[0].points.at(-1)).toEqual({ survey_date: "202504", value: null });
  });

  test("a validation error exits 2 with the JSON-RPC error on stdout", async () => {
    const result = await runCli([
      "call",
      "boj_get_data_layer",
      JSON.stringify({ db: "MD10", frequency: "Q", layers: ["0"] }),
      "--boj-base-url",
      fake.url,
    ]);
    expect(result.code).toBe(2);
    const printed = JSON.parse(result.stdout);
    expect(printed.error.code).toBe(-32602);
    expect(printed.error.data).toMatchObject({ error_type: "VALIDATION_ERROR", field: "layers[0]" });
    expect(fake.requests).toHaveLength(0);
  });

  test("catalog tools work with no BOJ at all; a bad option names its flag", async () => {
    const catalog = await runCli(["call", "boj_get_message_catalog", '{"status":503}']);
    expect(catalog.code).toBe(0);
    expect(JSON.parse(catalog.stdout).structuredContent.messages[0].message_id).toBe("M181091S");
    const bad = await runCli(["call", "boj_list_databases", "{}", "--boj-timeout-ms", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--boj-timeout-ms (BOJ_TIMEOUT_MS)");
  });
});
