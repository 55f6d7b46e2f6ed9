/**
 * A BOJ data result (`boj_get_data_code` / `boj_get_data_layer` structuredContent) as chart series:
 * the one reading of the result that the chart page in the client and `mcpkit call --chart` in a
 * terminal share. Pure code: no DOM, no MCP.
 */

/** The parts of a data result the chart reads (the tools' output schema has more). */
export interface ChartInput {
  parameter?: { lang?: string | null; db?: string | null } | null;
  series?: {
    series_code: string;
    name_of_time_series_j?: string | null;
    name_of_time_series?: string | null;
    unit_j?: string | null;
    unit?: string | null;
    frequency?: string | null;
    points: { survey_date: string | null; value: number | null }[];
  }[];
}

export interface ChartSeries {
  code: string;
  /** In the language the request asked for (`lang`), the other one when that is missing. */
  name: string;
  unit: string;
  frequency: string;
  /** Period starts as UTC milliseconds, ascending as BOJ sends them. */
  times: number[];
  /** `null` where BOJ has no value: drawn as a gap, never as zero. */
  values: (number | null)[];
  /** The survey dates as BOJ wrote them, for labels. */
  dates: string[];
}

/** Reads every series with at least one dated point; `lang` "JP" (BOJ's code) prefers Japanese names. */
export function chartSeries(result: ChartInput): ChartSeries[] {
  const japanese = (result.parameter?.lang ?? "").toUpperCase() === "JP";
  const out: ChartSeries[] = [];
  for (const series of result.series ?? []) {
    const frequency = series.frequency ?? "";
    const times: number[] = [];
    const values: (number | null)[] = [];
    const dates: string[] = [];
    for (const point of series.points) {
      const time = point.survey_date === null ? undefined : periodStart(point.survey_date, frequency);
      if (time === undefined) continue;
      times.push(time);
      values.push(typeof point.value === "number" && Number.isFinite(point.value) ? point.value : null);
      dates.push(point.survey_date as string);
    }
    if (times.length === 0) continue;
    const [name, otherName] = japanese
      ? [series.name_of_time_series_j, series.name_of_time_series]
      : [series.name_of_time_series, series.name_of_time_series_j];
    const [unit, otherUnit] = japanese ? [series.unit_j, series.unit] : [series.unit, series.unit_j];
    out.push({
      code: series.series_code,
      name: name || otherName || series.series_code,
      unit: unit || otherUnit || "",
      frequency,
      times,
      values,
      dates,
    });
  }
  return out;
}

/**
 * The start of a BOJ period as UTC milliseconds: YYYY (years; fiscal years start in April),
 * YYYYHH (half-years), YYYYQQ (quarters), YYYYMM (months), YYYYMMDD (days and weeks).
 */
export function periodStart(date: string, frequency: string): number | undefined {
  const digits = date.trim();
  if (!/^\d{4}(\d{2}(\d{2})?)?$/.test(digits)) return undefined;
  const year = Number(digits.slice(0, 4));
  const upper = frequency.toUpperCase();
  if (digits.length === 4) return Date.UTC(year, upper.includes("(MAR)") || upper === "FY" ? 3 : 0, 1);
  const part = Number(digits.slice(4, 6));
  if (digits.length === 8) return Date.UTC(year, part - 1, Number(digits.slice(6, 8)));
  if (upper.startsWith("QUARTER") || upper === "Q")
    return part >= 1 && part <= 4 ? Date.UTC(year, (part - 1) * 3, 1) : undefined;
  if (upper.startsWith("SEMIANNUAL") || upper === "CH" || upper === "FH") {
    const fiscal = upper.includes("(SEP)") || upper === "FH";
    return part >= 1 && part <= 2 ? Date.UTC(year, (part - 1) * 6 + (fiscal ? 3 : 0), 1) : undefined;
  }
  return part >= 1 && part <= 12 ? Date.UTC(year, part - 1, 1) : undefined;
}

/** Smallest and largest non-null value, or undefined when a series has none. */
export function valueRange(values: readonly (number | null)[]): { min: number; max: number } | undefined {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value === null) continue;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return min <= max ? { min, max } : undefined;
}
