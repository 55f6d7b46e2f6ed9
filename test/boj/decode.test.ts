/**
 * Decoding BOJ bodies into the structured output: the real responses quoted from BOJ's manual and
 * live captures, both formats and encodings, and each decode defect found in the reference client
 * (wildcard layers, CSV null, null survey dates, gateway bodies, number text).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import iconv from "iconv-lite";
import { decodeDataBody, decodeMetadataBody, type RawBody } from "../../src/toolsets/boj/decode/index.ts";
import { BojError, isRetryable } from "../../src/toolsets/boj/errors.ts";
import { dataCsv, dataJson, type DataEnvelope, encodeCsv, maximalPage } from "../fixtures/boj/format.ts";
import {
  buildCodeRequest,
  buildLayerRequest,
  buildMetadataRequest,
  type BojRequest,
} from "../../src/toolsets/boj/validation.ts";

const jsonRequest = buildCodeRequest({ db: "CO", codes: ["X"] });
const csvJp = buildCodeRequest({ db: "CO", codes: ["X"], format: "csv" });
const csvEn = buildCodeRequest({ db: "CO", codes: ["X"], format: "csv", lang: "en" });
const layerCsvEn = buildLayerRequest({ db: "MD10", frequency: "Q", layers: ["*"], format: "csv", lang: "en" });

function body(content: string | Uint8Array, httpStatus = 200, contentType = "application/json"): RawBody {
  return { bytes: typeof content === "string" ? new TextEncoder().encode(content) : content, httpStatus, contentType };
}

function sjis(text: string): Uint8Array {
  return new Uint8Array(iconv.encode(text, "Shift_JIS"));
}

function failure(run: () => unknown): BojError {
  try {
    run();
  } catch (error) {
    if (error instanceof BojError) return error;
    throw error;
  }
  throw new Error("expected a BojError");
}

// MANUAL p.19, transcribed (second series trimmed there; completed here).
const MANUAL_CODE_RESPONSE = `{"STATUS":200,"MESSAGEID":"M181000I","MESSAGE":"正常に終了しました。",
 "DATE":"2025-12-02T13:13:14.587+09:00",
 "PARAMETER":{"FORMAT":"JSON","LANG":"JP","DB":"CO","STARTDATE":"202401","ENDDATE":"202504","STARTPOSITION":""},
 "NEXTPOSITION":null,
 "RESULTSET":[{"SERIES_CODE":"TK99F1000601GCQ01000","NAME_OF_TIME_SERIES_J":"D.I./業況/大企業/製造業/実績",
   "UNIT_J":"%ポイント","FREQUENCY":"QUARTERLY","CATEGORY_J":"全国短観・判断項目","LAST_UPDATE":20251002,
   "VALUES":{"SURVEY_DATES":[202401,202402,202403,202404,202501,202502,202503,202504],
             "VALUES":[11,13,13,14,12,13,14,null]}}]}`;

// LIVE1 get_data_layer_page1.json, a live capture (VALUES trimmed to two points).
const LIVE_LAYER_PAGE = `{"STATUS":200,"MESSAGEID":"M181000I","MESSAGE":"Successfully completed","DATE":"2026-02-19T20:45:42.374+09:00",
 "PARAMETER":{"FORMAT":"JSON","LANG":"EN","DB":"md10","LAYER1":"*","LAYER2":"","LAYER3":"","LAYER4":"","LAYER5":"",
              "FREQUENCY":"q","STARTDATE":"","ENDDATE":"","STARTPOSITION":"1"},
 "NEXTPOSITION":255,
 "RESULTSET":[{"SERIES_CODE":"DLDDLKY45090_DLDD3DBTTL","NAME_OF_TIME_SERIES":"Total Value/Total Value/Total of All Depositors/Domestically Licensed Banks",
   "UNIT":"100 million yen","FREQUENCY":"QUARTERLY","CATEGORY":"Amounts Outstanding of Deposits by Depositor (End of Period) (FH data)",
   "LAST_UPDATE":20251112,"VALUES":{"SURVEY_DATES":[197001,197002],"VALUES":[1234.5,null]}}]}`;

// MANUAL p.20 CSV screenshot: missing values are the literal `null`.
const MANUAL_CSV = [
  "STATUS,200",
  "MESSAGEID,M181000I",
  "MESSAGE,正常に終了しました。",
  "DATE,2025-12-02T13:32:22.441+09:00",
  "PARAMETER,FORMAT,CSV",
  "PARAMETER,LANG,",
  "PARAMETER,DB,BP01",
  "PARAMETER,STARTDATE,202504",
  "PARAMETER,ENDDATE,202509",
  "PARAMETER,STARTPOSITION,",
  "NEXTPOSITION,",
  "SERIES_CODE,NAME_OF_TIME_SERIES_J,UNIT_J,FREQUENCY,CATEGORY_J,LAST_UPDATE,SURVEY_DATES,VALUES",
  "BPBP6JYNCB,経常収支,億円,MONTHLY,国際収支統計（6版基準）,20251008,202504,22140.5155",
  "BPBP6JYNCB,経常収支,億円,MONTHLY,国際収支統計（6版基準）,20251008,202509,null",
].join("\r\n");

describe("JSON", () => {
  test("the manual's Code API response decodes field for field", () => {
    const { output } = decodeDataBody(body(MANUAL_CODE_RESPONSE), jsonRequest, "code");
    expect(output.meta).toEqual({
      status: 200,
      message_id: "M181000I",
      message: "正常に終了しました。",
      date: "2025-12-02T13:13:14.587+09:00",
    });
    expect(output.parameter).toEqual({
      format: "JSON",
      lang: "JP",
      db: "CO",
      start_date: "202401",
      end_date: "202504",
      start_position: null,
      extras: {},
    });
    expect(output.next_position).toBeNull();
    expect(output.series_count).toBe(1);
    const [series] = output.series;
    expect(series).toMatchObject({
      series_code: "TK99F1000601GCQ01000",
      name_of_time_series_j: "D.I./業況/大企業/製造業/実績",
      name_of_time_series: null,
      unit_j: "%ポイント",
      unit: null,
      frequency: "QUARTERLY",
      category_j: "全国短観・判断項目",
      category: null,
      last_update: "20251002",
    });
    expect(series.points.map((p) => p.survey_date)).toEqual([
      "202401",
      "202402",
      "202403",
      "202404",
      "202501",
      "202502",
      "202503",
      "202504",
    ]);
    expect(series.points.map((p) => p.value)).toEqual([11, 13, 13, 14, 12, 13, 14, null]);
  });

  test('§3.7 row 1: a wildcard layer echoed as LAYER1 "*" is kept, not a decode error', () => {
    const { output } = decodeDataBody(body(LIVE_LAYER_PAGE), jsonRequest, "layer");
    expect(output.parameter).toMatchObject({
      layer1: "*",
      layer2: null,
      frequency: "q",
      db: "md10",
      start_position: "1",
    });
    expect(output.next_position).toBe(255);
    expect(output.series[0].points).toEqual([
      { survey_date: "197001", value: 1234.5 },
      { survey_date: "197002", value: null },
    ]);
  });

  test("§3.7 row 3: a null survey date keeps the page (and the point) instead of aborting", () => {
    const text = MANUAL_CODE_RESPONSE.replace("[202401,202402", "[202401,null");
    const { output } = decodeDataBody(body(text), jsonRequest, "code");
    expect(output.series[0].points[1]).toEqual({ survey_date: null, value: 13 });
    expect(output.series[0].points).toHaveLength(8);
  });

  test("§3.7 row 5: values come out as the numbers BOJ wrote", () => {
    const sources = ["0.1", "1.10", "-3.2E-5", "22140.5155", "1e21", "123456789.123456789"];
    const text = `{"STATUS":200,"MESSAGEID":"M181000I","MESSAGE":"ok","DATE":"d","PARAMETER":{},"NEXTPOSITION":null,"RESULTSET":[{"SERIES_CODE":"A","VALUES":{"SURVEY_DATES":[1,2,3,4,5,6],"VALUES":[${sources.join(",")}]}}]}`;
    const { output } = decodeDataBody(body(text), jsonRequest, "code");
    expect(output.series[0].points.map((p) => p.value)).toEqual(sources.map(Number));
  });

  test("an error body for a CSV request is decoded as JSON and becomes API_ERROR 400", () => {
    const error = failure(() =>
      decodeDataBody(
        body(
          `{"STATUS":400,"MESSAGEID":"M181004E","MESSAGE":"DBが指定されていません。","DATE":"2026-02-19T20:45:46.957+09:00"}`,
          400,
        ),
        csvJp,
        "code",
      ),
    );
    expect(error.type).toBe("API_ERROR");
    expect(error.details).toMatchObject({ status: 400, message_id: "M181004E" });
    expect(error.message).toBe("DBが指定されていません。");
    expect(isRetryable(error)).toBe(false);
  });

  test("STATUS 500 and 503 in the body are retryable API errors", () => {
    const error = failure(() =>
      decodeDataBody(
        body(
          `{"STATUS":500,"MESSAGEID":"M181090S","MESSAGE":"予期しないエラーが発生しました。時間をおいてからやり直してください。","DATE":"2025-12-02T14:01:13.777+09:00"}`,
          500,
        ),
        jsonRequest,
        "code",
      ),
    );
    expect(error.details).toMatchObject({ status: 500, message_id: "M181090S" });
    expect(isRetryable(error)).toBe(true);
    expect(
      isRetryable(
        failure(() =>
          decodeDataBody(body(`{"STATUS":"503","MESSAGEID":"M181091S","MESSAGE":"x"}`, 503), jsonRequest, "code"),
        ),
      ),
    ).toBe(true);
  });

  test("M181030I (no data) is a success whose values are all null", () => {
    const text = `{"STATUS":200,"MESSAGEID":"M181030I","MESSAGE":"正常に終了しましたが、該当データはありませんでした。","DATE":"d","PARAMETER":{"DB":"CO"},"NEXTPOSITION":null,"RESULTSET":[{"SERIES_CODE":"TK99F1000601GCQ01000","VALUES":{"SURVEY_DATES":[195001,195002],"VALUES":[null,null]}}]}`;
    const { output } = decodeDataBody(body(text), jsonRequest, "code");
    expect(output.meta.message_id).toBe("M181030I");
    expect(output.series[0].points.every((p) => p.value === null)).toBe(true);
  });

  test("lower-case keys, string numbers and unknown PARAMETER keys are tolerated", () => {
    const text = `{"status":"200","messageid":"M181000I","parameter":{"db":"CO","CODE":"A"},"nextposition":"12","resultset":[{"series_code":"A","last_update":"20250101","values":{"survey_dates":["2024"],"values":["1.5"]}}]}`;
    const { output } = decodeDataBody(body(text), jsonRequest, "code");
    expect(output.parameter.extras).toEqual({ CODE: "A" });
    expect(output.next_position).toBe(12);
    expect(output.series[0]).toMatchObject({
      series_code: "A",
      last_update: "20250101",
      points: [{ survey_date: "2024", value: 1.5 }],
    });
    expect(output.meta.date).toBeNull();
  });

  test("broken bodies are DECODE_ERRORs that say what is wrong", () => {
    const cases: [string, RegExp][] = [
      ['{"STATUS":200,', /not valid JSON/],
      ['{"MESSAGEID":"M181000I"}', /STATUS/],
      ['{"STATUS":200,"RESULTSET":{}}', /RESULTSET/],
      [
        '{"STATUS":200,"RESULTSET":[{"SERIES_CODE":"A","VALUES":{"SURVEY_DATES":[1,2],"VALUES":[1]}}]}',
        /2 SURVEY_DATES but 1 VALUES/,
      ],
      [
        '{"STATUS":200,"RESULTSET":[{"SERIES_CODE":"A","VALUES":{"SURVEY_DATES":[1],"VALUES":["abc"]}}]}',
        /not a number/,
      ],
      ['{"STATUS":200,"RESULTSET":[{"SERIES_CODE":""}]}', /SERIES_CODE/],
    ];
    for (const [text, message] of cases) {
      const error = failure(() => decodeDataBody(body(text), jsonRequest, "code"));
      expect(error.type).toBe("DECODE_ERROR");
      expect(error.message).toMatch(message);
    }
  });
});

describe("non-JSON bodies (§3.7 row 4)", () => {
  const html =
    "<html><head><title>502 Bad Gateway</title><style>p{}</style></head><body><h1>502 Bad Gateway</h1></body></html>";

  test("HTML with HTTP 5xx is a TRANSPORT_ERROR, so it is retried", () => {
    const error = failure(() => decodeDataBody(body(html, 502, "text/html"), jsonRequest, "code"));
    expect(error.type).toBe("TRANSPORT_ERROR");
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toContain("HTTP 502");
    expect(error.message).toContain("502 Bad Gateway");
    expect(error.message).not.toContain("<h1>");
  });

  test("HTML with HTTP 4xx is an API_ERROR with the HTTP status and a ≤ 500-character excerpt", () => {
    const long = `<html><body><h1>414 Request-URI Too Large</h1><p>${"x".repeat(2000)}</p></body></html>`;
    const error = failure(() => decodeDataBody(body(long, 414, "text/html"), csvJp, "code"));
    expect(error.type).toBe("API_ERROR");
    expect(error.details).toMatchObject({ status: 414, message_id: null });
    expect(error.message.startsWith("414 Request-URI Too Large")).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual(500);
  });

  test("a gateway's own JSON (not BOJ's layout) under 5xx or 4xx is treated like its HTML", () => {
    const gateway = '{"message":"upstream timed out"}';
    const fiveHundred = failure(() => decodeDataBody(body(gateway, 504), jsonRequest, "code"));
    expect(fiveHundred.type).toBe("TRANSPORT_ERROR");
    expect(fiveHundred.message).toContain("upstream timed out");
    const fourHundred = failure(() => decodeMetadataBody(body(gateway, 429), buildMetadataRequest({ db: "CO" })));
    expect(fourHundred.type).toBe("API_ERROR");
    expect(fourHundred.details).toMatchObject({ status: 429, message_id: null });
    expect(failure(() => decodeDataBody(body(gateway, 200), jsonRequest, "code")).type).toBe("DECODE_ERROR");
  });

  test("a non-JSON 200 where JSON was expected is a DECODE_ERROR", () => {
    expect(
      failure(() => decodeDataBody(body("<html>maintenance</html>", 200, "text/html"), jsonRequest, "code")).type,
    ).toBe("DECODE_ERROR");
  });
});

describe("CSV", () => {
  test("§3.7 row 2: the manual's Shift_JIS CSV decodes, and its literal null is a missing value", () => {
    const { output, raw } = decodeDataBody(body(sjis(MANUAL_CSV), 200, "text/csv"), csvJp, "code");
    expect(raw()).toContain("経常収支");
    expect(output.meta).toEqual({
      status: 200,
      message_id: "M181000I",
      message: "正常に終了しました。",
      date: "2025-12-02T13:32:22.441+09:00",
    });
    expect(output.parameter).toMatchObject({
      format: "CSV",
      lang: null,
      db: "BP01",
      start_date: "202504",
      end_date: "202509",
      start_position: null,
    });
    expect(output.next_position).toBeNull();
    expect(output.series).toEqual([
      {
        series_code: "BPBP6JYNCB",
        name_of_time_series_j: "経常収支",
        name_of_time_series: null,
        unit_j: "億円",
        unit: null,
        frequency: "MONTHLY",
        category_j: "国際収支統計（6版基準）",
        category: null,
        last_update: "20251008",
        points: [
          { survey_date: "202504", value: 22140.5155 },
          { survey_date: "202509", value: null },
        ],
      },
    ]);
  });

  test("§3.7 row 1 in CSV: PARAMETER,LAYER1,* is kept", () => {
    const csv = [
      "STATUS,200",
      "MESSAGEID,M181000I",
      "MESSAGE,Successfully completed",
      "DATE,2026-02-19T20:45:42.374+09:00",
      "PARAMETER,LAYER1,*",
      "PARAMETER,LAYER2,",
      "PARAMETER,FREQUENCY,Q",
      "NEXTPOSITION,255",
      "SERIES_CODE,NAME_OF_TIME_SERIES,UNIT,FREQUENCY,CATEGORY,LAST_UPDATE,SURVEY_DATES,VALUES",
      "A,Name,Unit,QUARTERLY,Cat,20251112,197001,1",
    ].join("\n");
    const { output } = decodeDataBody(body(csv, 200, "text/csv"), layerCsvEn, "layer");
    expect(output.parameter).toMatchObject({ layer1: "*", layer2: null, frequency: "Q" });
    expect(output.next_position).toBe(255);
  });

  test("§3.7 row 3 in CSV: a null survey date keeps the page", () => {
    const csv = MANUAL_CSV.replace(",202504,", ",null,");
    const { output } = decodeDataBody(body(sjis(csv), 200, "text/csv"), csvJp, "code");
    expect(output.series[0].points).toEqual([
      { survey_date: null, value: 22140.5155 },
      { survey_date: "202509", value: null },
    ]);
  });

  test("English CSV is UTF-8; a BOM, blank values and quoted cells are handled", () => {
    const csv = `\uFEFFSTATUS,200\nMESSAGEID,M181000I\nMESSAGE,Successfully completed\nDATE,x\nNEXTPOSITION,\nSERIES_CODE,NAME_OF_TIME_SERIES,UNIT,FREQUENCY,CATEGORY,LAST_UPDATE,SURVEY_DATES,VALUES\nA,"Deposits, total","100 million yen",MONTHLY,Cat,20250101,202401,\nA,"Deposits, total","100 million yen",MONTHLY,Cat,20250101,202402,5\n`;
    const { output } = decodeDataBody(body(csv, 200, "text/csv"), csvEn, "code");
    expect(output.series[0].name_of_time_series).toBe("Deposits, total");
    expect(output.series[0].points).toEqual([
      { survey_date: "202401", value: null },
      { survey_date: "202402", value: 5 },
    ]);
  });

  test("a Japanese CSV that arrives as UTF-8 still decodes (fallback), and garbage does not", () => {
    const { output } = decodeDataBody(body(MANUAL_CSV, 200, "text/csv"), csvJp, "code");
    expect(output.series[0].name_of_time_series_j).toBe("経常収支");
    const error = failure(() =>
      decodeDataBody(body(new Uint8Array([0x53, 0x54, 0xff, 0xff, 0x80]), 200, "text/csv"), csvJp, "code"),
    );
    expect(error.type).toBe("DECODE_ERROR");
  });

  test("columns in another order and interleaved series still decode (general path)", () => {
    const csv =
      "STATUS,200\nNEXTPOSITION,7\nSURVEY_DATES,VALUES,SERIES_CODE,UNIT\n202401,1,A,yen\n202401,2,B,yen\n202402,null,A,yen\n";
    const { output } = decodeDataBody(body(csv, 200, "text/csv"), csvEn, "code");
    expect(output.next_position).toBe(7);
    expect(output.series.map((s) => [s.series_code, s.unit, s.points])).toEqual([
      [
        "A",
        "yen",
        [
          { survey_date: "202401", value: 1 },
          { survey_date: "202402", value: null },
        ],
      ],
      ["B", "yen", [{ survey_date: "202401", value: 2 }]],
    ]);
  });

  test("the fast path also regroups a series whose rows come back later, and skips blank lines", () => {
    const csv =
      "STATUS,200\r\nSERIES_CODE,UNIT,SURVEY_DATES,VALUES\r\nA,yen,202401,1\r\n\r\nB,yen,202401,2\r\nA,yen,202402,3\r\n";
    const { output } = decodeDataBody(body(csv, 200, "text/csv"), csvEn, "code");
    expect(output.series.map((s) => [s.series_code, s.points.map((p) => p.value)])).toEqual([
      ["A", [1, 3]],
      ["B", [2]],
    ]);
    expect(
      failure(() =>
        decodeDataBody(
          body("STATUS,200\nSERIES_CODE,SURVEY_DATES,VALUES\nA,202401,x1\n", 200, "text/csv"),
          csvEn,
          "code",
        ),
      ).message,
    ).toMatch(/CSV row 3 \(series A\).*not a number/);
  });

  test("a value that is no finite decimal number is a DECODE_ERROR, not Infinity or a hexadecimal reading", () => {
    // Before: 1e400 became Infinity (shown in the text, null in structuredContent), "0x10" 16, "0b11" 3.
    const json = (value: string) =>
      `{"STATUS":200,"RESULTSET":[{"SERIES_CODE":"A","VALUES":{"SURVEY_DATES":[202401],"VALUES":[${value}]}}]}`;
    for (const value of ["1e400", "-1e400", '"0x10"', '"0b11"', '"Infinity"', '"1e400"']) {
      const error = failure(() => decodeDataBody(body(json(value)), jsonRequest, "code"));
      expect({ value, type: error.type }).toEqual({ value, type: "DECODE_ERROR" });
    }
    for (const value of ["0x10", "Infinity", "1e999"]) {
      const csv = `STATUS,200\nSERIES_CODE,SURVEY_DATES,VALUES\nA,202401,${value}\n`;
      expect(failure(() => decodeDataBody(body(csv, 200, "text/csv"), csvEn, "code")).type).toBe("DECODE_ERROR");
    }
    // BOJ's own forms still read: decimals, signs, exponents, and the missing words.
    const read = decodeDataBody(body(json('"-1.5e3"')), jsonRequest, "code").output.series[0].points[0].value;
    expect(read).toBe(-1500);
    expect(decodeDataBody(body(json('".5"')), jsonRequest, "code").output.series[0].points[0].value).toBe(0.5);
    expect(decodeDataBody(body(json('"ND"')), jsonRequest, "code").output.series[0].points[0].value).toBeNull();
  });

  test("a CSV without a STATUS row or a needed column is a DECODE_ERROR", () => {
    expect(failure(() => decodeDataBody(body("a,b\n1,2", 200, "text/csv"), csvEn, "code")).message).toMatch(
      /no STATUS row/,
    );
    expect(
      failure(() =>
        decodeDataBody(body("STATUS,200\nSERIES_CODE,SURVEY_DATES\nA,202401", 200, "text/csv"), csvEn, "code"),
      ).message,
    ).toMatch(/no VALUES column/);
  });

  test("a non-200 STATUS in CSV is an API error too", () => {
    const error = failure(() =>
      decodeDataBody(body("STATUS,503\nMESSAGEID,M181091S\nMESSAGE,db error", 200, "text/csv"), csvEn, "code"),
    );
    expect(error.details).toMatchObject({ status: 503, message_id: "M181091S" });
  });
});

describe("JSON and CSV agree", () => {
  function decodeBoth(envelope: DataEnvelope, lang: "JP" | "EN") {
    const request = (format: "json" | "csv"): BojRequest =>
      buildCodeRequest({ db: "BP01", codes: ["X"], format, lang: lang === "JP" ? "jp" : "en" });
    const fromJson = decodeDataBody(body(dataJson(envelope, lang)), request("json"), "code").output;
    const fromCsv = decodeDataBody(
      body(encodeCsv(dataCsv(envelope, lang), lang), 200, "text/csv"),
      request("csv"),
      "code",
    ).output;
    return { fromJson, fromCsv };
  }

  test("on a maximal page (250 series × 240 points), in both languages", () => {
    for (const lang of ["JP", "EN"] as const) {
      const { fromJson, fromCsv } = decodeBoth(maximalPage(), lang);
      expect(fromCsv.series).toEqual(fromJson.series);
      expect(fromJson.series_count).toBe(250);
      expect(fromJson.series.reduce((n, s) => n + s.points.length, 0)).toBe(60_000);
    }
  });

  test("§3.7 row 5 as a property: any finite value survives both formats unchanged", () => {
    const value = fc.oneof(
      fc.constant(null),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
      fc.integer(),
    );
    const date = fc.oneof(fc.constant(null), fc.integer({ min: 185001, max: 205012 }));
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(date, value), { maxLength: 20 }), { minLength: 1, maxLength: 5 }),
        (pointLists) => {
          const envelope = maximalPage(pointLists.length, 1);
          envelope.series.forEach((series, i) => {
            series.points = pointLists[i];
          });
          const { fromJson, fromCsv } = decodeBoth(envelope, "JP");
          // CSV cannot carry a series with no rows, so compare the series that have points.
          const nonEmpty = fromJson.series.filter((s) => s.points.length > 0);
          expect(fromCsv.series).toEqual(nonEmpty);
          fromJson.series.forEach((series, i) => {
            expect(series.points.map((p) => p.value)).toEqual(pointLists[i].map((p) => p[1]));
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("metadata", () => {
  const request = buildMetadataRequest({ db: "FM08" });
  const json = `{"STATUS":200,"MESSAGEID":"M181000I","MESSAGE":"正常に終了しました。","DATE":"2026-02-19T9:00:06.669+09:00","DB":"FM08","RESULTSET":[
    {"SERIES_CODE":"","NAME_OF_TIME_SERIES_J":"東京市場","NAME_OF_TIME_SERIES":"Tokyo market","UNIT_J":"","UNIT":"","FREQUENCY":"","CATEGORY_J":"","CATEGORY":"","LAYER1":1,"LAYER2":0,"LAYER3":0,"LAYER4":0,"LAYER5":0,"START_OF_THE_TIME_SERIES":"","END_OF_THE_TIME_SERIES":"","LAST_UPDATE":"","NOTES_J":"","NOTES":""},
    {"SERIES_CODE":"FXERD01","NAME_OF_TIME_SERIES_J":"ドル・円","NAME_OF_TIME_SERIES":"USD/JPY","UNIT_J":"円／ドル","UNIT":"Yen per U.S. dollar","FREQUENCY":"DAILY","CATEGORY_J":"外国為替市況","CATEGORY":"Foreign exchange rates","LAYER1":1,"LAYER2":1,"LAYER3":0,"LAYER4":0,"LAYER5":0,"START_OF_THE_TIME_SERIES":"19730105","END_OF_THE_TIME_SERIES":"20260219","LAST_UPDATE":"20260219","NOTES_J":"注","NOTES":"note"}]}`;

  test("keeps the one-digit-hour DATE as given and reads every field of §2.2", () => {
    const { output } = decodeMetadataBody(body(json), request);
    expect(output.meta.date).toBe("2026-02-19T9:00:06.669+09:00");
    expect(output.db).toBe("FM08");
    expect(output.entries_count).toBe(2);
    expect(output.entries[0]).toMatchObject({
      series_code: null,
      name_of_time_series: "Tokyo market",
      layer1: 1,
      layer2: 0,
      frequency: null,
    });
    expect(output.entries[1]).toEqual({
      series_code: "FXERD01",
      name_of_time_series_j: "ドル・円",
      name_of_time_series: "USD/JPY",
      unit_j: "円／ドル",
      unit: "Yen per U.S. dollar",
      frequency: "DAILY",
      category_j: "外国為替市況",
      category: "Foreign exchange rates",
      layer1: 1,
      layer2: 1,
      layer3: 0,
      layer4: 0,
      layer5: 0,
      start_of_the_time_series: "19730105",
      end_of_the_time_series: "20260219",
      last_update: "20260219",
      notes_j: "注",
      notes: "note",
    });
  });

  test("Shift_JIS metadata CSV gives the same entries as JSON", () => {
    const csv = [
      "STATUS,200",
      "MESSAGEID,M181000I",
      "MESSAGE,正常に終了しました。",
      "DATE,2026-02-19T9:00:06.669+09:00",
      "DB,FM08",
      "SERIES_CODE,NAME_OF_TIME_SERIES_J,NAME_OF_TIME_SERIES,UNIT_J,UNIT,FREQUENCY,CATEGORY_J,CATEGORY,LAYER1,LAYER2,LAYER3,LAYER4,LAYER5,START_OF_THE_TIME_SERIES,END_OF_THE_TIME_SERIES,LAST_UPDATE,NOTES_J,NOTES",
      ",東京市場,Tokyo market,,,,,,1,0,0,0,0,,,,,",
      "FXERD01,ドル・円,USD/JPY,円／ドル,Yen per U.S. dollar,DAILY,外国為替市況,Foreign exchange rates,1,1,0,0,0,19730105,20260219,20260219,注,note",
    ].join("\r\n");
    const fromCsv = decodeMetadataBody(
      body(sjis(csv), 200, "text/csv"),
      buildMetadataRequest({ db: "FM08", format: "csv" }),
    ).output;
    expect(fromCsv).toEqual(decodeMetadataBody(body(json), request).output);
  });
});
