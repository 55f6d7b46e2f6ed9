/** Client-side checks (docs/contracts/boj.md "Validation") and the query they produce. Pure functions, no network. */
import { describe, expect, test } from "bun:test";
import { BojError } from "../../src/toolsets/boj/errors.ts";
import {
  buildCodeRequest,
  buildLayerRequest,
  buildMetadataRequest,
  checkPeriod,
  requestPath,
} from "../../src/toolsets/boj/validation.ts";

function rejection(run: () => unknown): BojError {
  try {
    run();
  } catch (error) {
    if (error instanceof BojError) return error;
    throw error;
  }
  throw new Error("expected a validation error");
}

describe("boj_get_data_code arguments", () => {
  test("builds the query in the manual's order, upper-cases db and keeps codes as items", () => {
    const request = buildCodeRequest({
      db: " co ",
      codes: ["TK99F1000601GCQ01000", " TK99F2000601GCQ01000 "],
      format: "JSON",
      lang: "En",
      start_date: "202401",
      end_date: 202504,
      start_position: 2,
    });
    expect(request.params).toEqual([
      ["format", "json"],
      ["lang", "en"],
      ["db", "CO"],
      ["code", "TK99F1000601GCQ01000,TK99F2000601GCQ01000"],
      ["startDate", "202401"],
      ["endDate", "202504"],
      ["startPosition", "2"],
    ]);
    expect(request).toMatchObject({ endpoint: "getDataCode", format: "json", lang: "en" });
    expect(requestPath(request)).toBe(
      "/api/v1/getDataCode?format=json&lang=en&db=CO&code=TK99F1000601GCQ01000,TK99F2000601GCQ01000&startDate=202401&endDate=202504&startPosition=2",
    );
  });

  test("sends only what the caller set; an unset lang means BOJ's Japanese (Shift_JIS CSV)", () => {
    const request = buildCodeRequest({ db: "fm08", codes: ["FXERD01"], format: "csv" });
    expect(request.params).toEqual([
      ["format", "csv"],
      ["db", "FM08"],
      ["code", "FXERD01"],
    ]);
    expect(request.lang).toBe("jp");
    expect(requestPath(request)).toContain("code=FXERD01");
    expect(requestPath(buildCodeRequest({ db: "IR01", codes: ["MADR1Z@D"] }))).toContain("code=MADR1Z%40D");
  });

  const rejected: [string, Parameters<typeof buildCodeRequest>[0], string, RegExp][] = [
    ["an empty db", { db: "  ", codes: ["A"] }, "db", /"db" is empty/],
    ["a full-width db", { db: "ＣＯ", codes: ["A"] }, "db", /non-ASCII.*ASCII only/],
    ["a db list", { db: "CO,FM08", codes: ["A"] }, "db", /exactly one code/],
    ["a forbidden character", { db: "CO", codes: ["AB<C"] }, "codes[0]", /forbids/],
    ["a semicolon", { db: "CO", codes: ["A", "B;C"] }, "codes[1]", /forbids/],
    ["a comma-joined code", { db: "CO", codes: ["A,B"] }, "codes[0]", /own list item: \["A","B"\]/],
    [
      "a data code with DB prefix",
      { db: "IR01", codes: ["IR01'MADR1Z@D"] },
      "codes[0]",
      /bare series code "MADR1Z@D" and db "IR01"/,
    ],
    [
      "a data code with a typographic apostrophe",
      { db: "IR01", codes: ["IR01’MADR1Z@D"] },
      "codes[0]",
      /bare series code "MADR1Z@D"/,
    ],
    ["an empty code", { db: "CO", codes: [""] }, "codes[0]", /is empty/],
    ["a non-numeric date", { db: "CO", codes: ["A"], start_date: "2024-01" }, "start_date", /digits only/],
    [
      "a day for a month",
      { db: "CO", codes: ["A"], start_date: "20240115" },
      "start_date",
      /use YYYYMM, e.g. "202401"/,
    ],
    ["a year before 1850", { db: "CO", codes: ["A"], start_date: "1849" }, "start_date", /1850 to 2050/],
    ["a year after 2050", { db: "CO", codes: ["A"], end_date: "205101" }, "end_date", /1850 to 2050/],
    ["month 13", { db: "CO", codes: ["A"], end_date: "202413" }, "end_date", /ends in 13/],
    ["suffix 00", { db: "CO", codes: ["A"], end_date: "202400" }, "end_date", /ends in 00/],
    ["mixed lengths", { db: "CO", codes: ["A"], start_date: "2024", end_date: "202401" }, "end_date", /same format/],
    [
      "start after end",
      { db: "CO", codes: ["A"], start_date: "202502", end_date: "202401" },
      "start_date",
      /after "end_date"/,
    ],
  ];
  for (const [what, args, field, message] of rejected) {
    test(`rejects ${what}, naming ${field}`, () => {
      const error = rejection(() => buildCodeRequest(args));
      expect(error.type).toBe("VALIDATION_ERROR");
      expect(error.details.field).toBe(field);
      expect(error.message).toMatch(message);
      expect(error.message).toContain(`"${field}"`);
    });
  }
});

describe("code lengths", () => {
  test("a code over 64 characters is refused naming codes[i], quoting only its start; 64 passes", () => {
    const error = rejection(() => buildCodeRequest({ db: "CO", codes: ["A", "B".repeat(65)] }));
    expect(error.type).toBe("VALIDATION_ERROR");
    expect(error.details.field).toBe("codes[1]");
    expect(error.message).toBe(
      `"codes[1]" is 65 characters long (starts "${"B".repeat(24)}"…); a BOJ series code is at most 64 characters, e.g. "TK99F1000601GCQ01000". Pass one bare series code per item, as boj_get_metadata lists them.`,
    );
    expect(requestPath(buildCodeRequest({ db: "CO", codes: ["B".repeat(64)] }))).toContain(`code=${"B".repeat(64)}`);
  });

  test("codes that together pass 32,768 characters of URL are refused at the first code past it, with where to split", () => {
    // 600 codes of 60 characters: 36,599 characters joined; code 537 is the first past it (61·537 + 60 > 32,768).
    const codes = Array.from({ length: 600 }, (_, i) => `${String(i).padStart(4, "0")}${"C".repeat(56)}`);
    const error = rejection(() => buildCodeRequest({ db: "CO", codes }));
    expect(error.details.field).toBe("codes[537]");
    expect(error.message).toContain("send codes[0] to codes[536] in this call and the remaining 63 in another");
    // 1,250 codes of 25 characters (BOJ's most per call) still go through.
    const many = Array.from({ length: 1250 }, (_, i) => `${String(i).padStart(5, "0")}${"D".repeat(20)}`);
    expect(buildCodeRequest({ db: "CO", codes: many }).params).toContainEqual(["code", many.join(",")]);
  });
});

describe("boj_get_data_layer arguments", () => {
  test("joins the layers into one `layer` parameter and keeps the wildcard", () => {
    const request = buildLayerRequest({ db: "md10", frequency: "q", layers: ["1", "*", 2, " 03 "] });
    expect(request.params).toEqual([
      ["db", "MD10"],
      ["frequency", "Q"],
      ["layer", "1,*,2,3"],
    ]);
    expect(requestPath(request)).toBe("/api/v1/getDataLayer?db=MD10&frequency=Q&layer=1,*,2,3");
  });

  test("checks the period format against the frequency", () => {
    expect(
      buildLayerRequest({ db: "X", frequency: "CY", layers: ["1"], start_date: "2020", end_date: 2024 }).params,
    ).toContainEqual(["endDate", "2024"]);
    expect(buildLayerRequest({ db: "X", frequency: "fh", layers: ["1"], start_date: "202002" }).params).toContainEqual([
      "startDate",
      "202002",
    ]);
    expect(buildLayerRequest({ db: "X", frequency: "D", layers: ["1"], start_date: "202412" }).params).toContainEqual([
      "startDate",
      "202412",
    ]);
    const cases: [string, string, string | number, RegExp][] = [
      ["CY", "start_date", "202401", /YYYY for frequency CY/],
      ["Q", "start_date", "202405", /ends in 05.*YYYYQQ/],
      ["CH", "end_date", "202403", /ends in 03/],
      ["M", "end_date", 2024, /wrong length.*YYYYMM/],
      ["D", "start_date", "20240105", /looks like a day/],
      ["W", "start_date", "20240105", /looks like a day/],
    ];
    for (const [frequency, field, value, message] of cases) {
      const error = rejection(() => buildLayerRequest({ db: "X", frequency, layers: ["1"], [field]: value }));
      expect(error.details.field).toBe(field);
      expect(error.message).toMatch(message);
    }
  });

  test("rejects layer 0, negative, fractional and word layers", () => {
    for (const [layers, field] of [
      [["0"], "layers[0]"],
      [["1", "-2"], "layers[1]"],
      [["1.5"], "layers[0]"],
      [["1", "*", "x"], "layers[2]"],
      [[0], "layers[0]"],
    ] as const) {
      const error = rejection(() => buildLayerRequest({ db: "X", frequency: "M", layers: [...layers] }));
      expect(error.details.field).toBe(field);
      expect(error.message).toContain('must be "*" (any) or a positive integer');
    }
  });

  test("maps BOJ's long frequency names to the short code in the message", () => {
    expect(rejection(() => buildLayerRequest({ db: "X", frequency: "MONTHLY", layers: ["1"] })).message).toContain(
      'short code "M"',
    );
    expect(
      rejection(() => buildLayerRequest({ db: "X", frequency: "WEEKLY(MONDAY)", layers: ["1"] })).message,
    ).toContain('short code "W"');
  });
});

test("metadata takes db, format and lang only", () => {
  expect(buildMetadataRequest({ db: "fm08", lang: "EN" }).params).toEqual([
    ["lang", "en"],
    ["db", "FM08"],
  ]);
});

test("checkPeriod without a frequency accepts YYYY and YYYYXX up to 12", () => {
  expect(checkPeriod("start_date", "1850")).toBe("1850");
  expect(checkPeriod("start_date", " 205012 ")).toBe("205012");
  expect(() => checkPeriod("start_date", "20501")).toThrow(/wrong length/);
});
