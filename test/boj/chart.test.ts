/**
 * The chart's reading of a BOJ result (shared by the page and the terminal) and the terminal chart.
 * The page in a browser is `chart-browser.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import { chartSeries, periodStart } from "../../src/toolsets/boj/chart/series.ts";
import { renderTerminalChart, sparkline } from "../../src/toolsets/boj/chart/terminal.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { runCli } from "../support/mcp.ts";

const series = (code: string, frequency: string, points: [string | null, number | null][]) => ({
  series_code: code,
  name_of_time_series_j: `系列 ${code}`,
  name_of_time_series: `Series ${code}`,
  unit_j: "億円",
  unit: "100 million yen",
  frequency,
  points: points.map(([survey_date, value]) => ({ survey_date, value })),
});

describe("BOJ periods as dates", () => {
  test("every frequency's survey date starts its period", () => {
    const utc = (y: number, m: number, d = 1) => Date.UTC(y, m - 1, d);
    expect(periodStart("2024", "ANNUAL")).toBe(utc(2024, 1));
    expect(periodStart("2024", "ANNUAL(MAR)")).toBe(utc(2024, 4));
    expect(periodStart("202402", "SEMIANNUAL")).toBe(utc(2024, 7));
    expect(periodStart("202402", "SEMIANNUAL(SEP)")).toBe(utc(2024, 10));
    expect(periodStart("202403", "QUARTERLY")).toBe(utc(2024, 7));
    expect(periodStart("202403", "MONTHLY")).toBe(utc(2024, 3));
    expect(periodStart("20240105", "WEEKLY(FRIDAY)")).toBe(utc(2024, 1, 5));
    expect(periodStart("20240105", "DAILY")).toBe(utc(2024, 1, 5));
    for (const bad of ["", "2024-01", "202413", "202405x", "20245"])
      expect(periodStart(bad, "MONTHLY")).toBeUndefined();
    expect(periodStart("202405", "QUARTERLY")).toBeUndefined();
  });

  test("names follow the request's language; points without a date are left out; missing values stay null", () => {
    const result = {
      parameter: { lang: "JP" },
      series: [
        series("A", "MONTHLY", [
          ["202401", 1],
          [null, 2],
          ["202403", null],
          ["202404", 4],
        ]),
      ],
    };
    const [one] = chartSeries(result);
    expect(one.name).toBe("系列 A");
    expect(one.unit).toBe("億円");
    expect(one.dates).toEqual(["202401", "202403", "202404"]);
    expect(one.values).toEqual([1, null, 4]);
    expect(chartSeries({ ...result, parameter: { lang: "EN" } })[0].name).toBe("Series A");
  });
});

describe("mcpkit call --chart in a terminal", () => {
  const result = {
    parameter: { lang: "EN" },
    series: [
      series("UP", "MONTHLY", [
        ["202401", 1],
        ["202402", 2],
        ["202403", null],
        ["202404", 8],
      ]),
      series("EMPTY", "MONTHLY", [["202401", null]]),
    ],
  };

  test("on a terminal: a sparkline per series with a gap for a missing value, and min, max and last labelled", () => {
    const out = renderTerminalChart(result, { columns: 40, tty: true });
    expect(out).toContain("Series UP (UP), 100 million yen, MONTHLY");
    expect(out).toContain("  ▁▂ █\n");
    expect(out).toContain("min 1 (202401)  max 8 (202404)  last 8 (202404)");
    expect(out).toContain("202401–202404, 4 points, 1 missing");
    expect(out).toContain("Series EMPTY (EMPTY)");
    expect(out).toContain("no values");
  });

  test("not a terminal: the same facts as plain text, without block characters", () => {
    const out = renderTerminalChart(result, { columns: 40, tty: false });
    expect(out).toContain("min 1 (202401)  max 8 (202404)  last 8 (202404)");
    expect(out).not.toMatch(/[▁-█]/);
  });

  test("a long series is averaged into the terminal's width", () => {
    const values = Array.from({ length: 600 }, (_, i) => (i < 300 ? 0 : 10));
    const line = sparkline(values, 60);
    expect(line).toHaveLength(60);
    expect(line).toBe(`${"▁".repeat(30)}${"█".repeat(30)}`);
  });
});

describe("mcpkit call … --chart through the process", () => {
  test("ten 600-point series as plain text when stdout is a pipe: one heading and one labelled line each", async () => {
    const fake = startFakeBoj();
    try {
      const codes = Array.from({ length: 10 }, (_, n) => `PRCS20_52${String(n).padStart(8, "0")}`);
      const run = await runCli(
        ["call", "boj_get_data_code", JSON.stringify({ db: "PR02", codes, lang: "en" }), "--chart"],
        { env: { BOJ_BASE_URL: fake.url, MCPKIT_MAX_OUTPUT_BYTES: "1000000" } },
      );
      expect(run.code, run.stderr).toBe(0);
      const headings = run.stdout.split("\n").filter((line) => line.startsWith("Services producer price index"));
      expect(headings).toHaveLength(10);
      expect(run.stdout).toContain("197501–202412, 600 points");
      expect(
        run.stdout.match(/ {2}min [\d.e+-]+ \(\d{6}\) {2}max [\d.e+-]+ \(\d{6}\) {2}last [\d.e+-]+ \(202412\)/g),
      ).toHaveLength(10);
      expect(run.stdout).not.toMatch(/[▁-█]/);
    } finally {
      await fake.stop();
    }
  });

  test("--chart on a tool without a chart: its JSON as usual, and a warning naming the tools that have one", async () => {
    const run = await runCli(["call", "boj_list_databases", "{}", "--chart"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).isError).toBeUndefined();
    expect(run.stderr).toContain(
      "--chart: boj_list_databases has no terminal chart, so its result is printed as usual; boj_get_data_code and boj_get_data_layer can be drawn",
    );
  });
});
