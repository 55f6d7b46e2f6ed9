/**
 * `mcpkit call boj_get_data_code … --chart`: one block sparkline per series, with its minimum,
 * maximum and last value labelled, as wide as the terminal. When stdout is not a terminal the
 * same facts are printed as plain text lines (no block characters for a pipe or a log file).
 */
import { type ChartInput, type ChartSeries, chartSeries, valueRange } from "./series.ts";

const BLOCKS = "▁▂▃▄▅▆▇█";
/** Room for the labels printed beside the sparkline. */
const LABEL_ROOM = 2;

export interface TerminalChartOptions {
  /** Columns of the terminal; the sparkline takes all but a margin. */
  columns: number;
  /** Whether stdout is a terminal: block characters only then. */
  tty: boolean;
}

export function renderTerminalChart(result: ChartInput, options: TerminalChartOptions): string {
  const all = chartSeries(result);
  if (all.length === 0) return "No series with dated points to chart.\n";
  return `${all.map((series) => renderOne(series, options)).join("\n")}\n`;
}

function renderOne(series: ChartSeries, options: TerminalChartOptions): string {
  const heading = `${series.name} (${series.code})${series.unit ? `, ${series.unit}` : ""}${series.frequency ? `, ${series.frequency}` : ""}`;
  const range = valueRange(series.values);
  const missing = series.values.filter((value) => value === null).length;
  const span = `${series.dates[0]}–${series.dates[series.dates.length - 1]}, ${series.values.length} points${missing ? `, ${missing} missing` : ""}`;
  if (!range) return `${heading}\n  ${span}; no values\n`;
  const at = (target: number) => series.dates[series.values.indexOf(target)];
  const lastIndex = lastValueIndex(series.values);
  const labels = `min ${format(range.min)} (${at(range.min)})  max ${format(range.max)} (${at(range.max)})  last ${format(series.values[lastIndex] as number)} (${series.dates[lastIndex]})`;
  if (!options.tty) return `${heading}\n  ${span}\n  ${labels}\n`;
  const width = Math.max(10, options.columns - LABEL_ROOM);
  return `${heading}\n  ${sparkline(series.values, width, range)}\n  ${span}\n  ${labels}\n`;
}

/** Each column is the mean of the values that fall in it; a column with none is a gap (a space). */
export function sparkline(values: readonly (number | null)[], width: number, range = valueRange(values)): string {
  if (!range || values.length === 0) return "";
  const columns = Math.min(width, values.length);
  const spread = range.max - range.min;
  let line = "";
  for (let column = 0; column < columns; column++) {
    const from = Math.floor((column * values.length) / columns);
    const to = Math.floor(((column + 1) * values.length) / columns);
    let sum = 0;
    let count = 0;
    for (let i = from; i < to; i++) {
      const value = values[i];
      if (value === null) continue;
      sum += value;
      count++;
    }
    if (count === 0) {
      line += " ";
      continue;
    }
    const level = spread === 0 ? 3 : Math.round(((sum / count - range.min) / spread) * (BLOCKS.length - 1));
    line += BLOCKS[level];
  }
  return line;
}

function lastValueIndex(values: readonly (number | null)[]): number {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return i;
  return -1;
}

function format(value: number): string {
  return Math.abs(value) >= 1e6 || (value !== 0 && Math.abs(value) < 1e-3)
    ? value.toExponential(3)
    : String(Math.round(value * 1000) / 1000);
}
