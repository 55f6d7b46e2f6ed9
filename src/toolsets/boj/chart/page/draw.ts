/**
 * The chart itself, drawn as SVG: one path per series (a missing value breaks the path, so a gap
 * shows where BOJ has no value, never a zero), dates on the x-axis, the unit on the y-axis, a
 * legend that hides and shows series, a hover read-out and a log-scale switch. Plain DOM code
 * with no charting library: 10 series × 600 points is 6,000 coordinates, which SVG draws in a few
 * milliseconds, and every drawn element stays inspectable (the browser test counts them).
 */
import { type ChartSeries, valueRange } from "../series.ts";

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 320;
const MARGIN = { left: 72, right: 16, top: 12, bottom: 44 };
/** Ten colours that stay apart in both themes (Okabe–Ito, a grey, a purple and a brown). */
const COLOURS = [
  "#0072b2",
  "#e69f00",
  "#009e73",
  "#cc79a7",
  "#56b4e9",
  "#d55e00",
  "#b8a200",
  "#7f7f7f",
  "#9467bd",
  "#8c564b",
];

export interface ChartView {
  series: ChartSeries[];
  hidden: Set<string>;
  log: boolean;
}

interface Scale {
  x(time: number): number;
  y(value: number): number;
  /** Whether a value can be drawn on this scale (a log axis has no place for zero or less). */
  drawable(value: number): boolean;
  yTicks: number[];
  xTicks: number[];
}

export function colourOf(index: number): string {
  return COLOURS[index % COLOURS.length];
}

/** Replaces `host`'s content with the chart for `view`; `width` is the host's width in pixels. */
export function drawChart(host: Element, view: ChartView, width: number): SVGSVGElement {
  const svg = element("svg", { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: "img" });
  const visible = view.series.filter((series) => !view.hidden.has(series.code));
  const scale = makeScale(visible, view.log, width);
  if (scale) {
    drawAxes(svg, scale, visible, view.log, width);
    view.series.forEach((series, index) => {
      if (view.hidden.has(series.code)) return;
      svg.append(seriesPath(series, scale, colourOf(index)));
    });
  }
  host.replaceChildren(svg);
  return svg;
}

/** One path per series: `M` starts a run, `L` continues it; a missing or undrawable value ends the run. */
function seriesPath(series: ChartSeries, scale: Scale, colour: string): SVGPathElement {
  let d = "";
  let drawn = 0;
  let runOpen = false;
  for (let i = 0; i < series.times.length; i++) {
    const value = series.values[i];
    if (value === null || !scale.drawable(value)) {
      runOpen = false;
      continue;
    }
    d += `${runOpen ? "L" : "M"}${round(scale.x(series.times[i]))},${round(scale.y(value))}`;
    runOpen = true;
    drawn++;
  }
  return element("path", {
    d,
    fill: "none",
    stroke: colour,
    "stroke-width": 1.5,
    "stroke-linejoin": "round",
    "data-series": series.code,
    "data-points": drawn,
  });
}

function makeScale(visible: ChartSeries[], log: boolean, width: number): Scale | undefined {
  const times = visible.flatMap((series) => [series.times[0], series.times[series.times.length - 1]]);
  const drawableValues = visible.flatMap((series) =>
    series.values.filter((value): value is number => value !== null && (!log || value > 0)),
  );
  const range = valueRange(drawableValues);
  if (times.length === 0 || !range) return undefined;
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (time: number) => MARGIN.left + (t1 === t0 ? plotWidth / 2 : ((time - t0) / (t1 - t0)) * plotWidth);
  const xTicks = yearTicks(t0, t1, Math.max(2, Math.floor(plotWidth / 80)));
  if (log) {
    const [l0, l1] = [Math.floor(Math.log10(range.min)), Math.ceil(Math.log10(range.max))];
    const span = Math.max(1, l1 - l0);
    return {
      x,
      y: (value) => MARGIN.top + plotHeight - ((Math.log10(value) - l0) / span) * plotHeight,
      drawable: (value) => value > 0,
      yTicks: Array.from({ length: span + 1 }, (_, i) => 10 ** (l0 + i)),
      xTicks,
    };
  }
  const yTicks = niceTicks(range.min, range.max, 5);
  const [v0, v1] = [yTicks[0], yTicks[yTicks.length - 1]];
  return {
    x,
    y: (value) => MARGIN.top + plotHeight - (v1 === v0 ? 0.5 : (value - v0) / (v1 - v0)) * plotHeight,
    drawable: () => true,
    yTicks,
    xTicks,
  };
}

function drawAxes(svg: SVGSVGElement, scale: Scale, visible: ChartSeries[], log: boolean, width: number): void {
  const axes = element("g", { class: "axes" });
  const bottom = HEIGHT - MARGIN.bottom;
  for (const tick of scale.yTicks) {
    const y = round(scale.y(tick));
    axes.append(element("line", { x1: MARGIN.left, x2: width - MARGIN.right, y1: y, y2: y, class: "grid" }));
    axes.append(text(formatValue(tick), { x: MARGIN.left - 6, y: y + 4, "text-anchor": "end", class: "y-tick" }));
  }
  for (const tick of scale.xTicks) {
    const x = round(scale.x(tick));
    axes.append(element("line", { x1: x, x2: x, y1: bottom, y2: bottom + 4, class: "tick" }));
    axes.append(
      text(String(new Date(tick).getUTCFullYear()), { x, y: bottom + 16, "text-anchor": "middle", class: "x-tick" }),
    );
  }
  const units = [...new Set(visible.map((series) => series.unit).filter(Boolean))].join(" / ");
  const frequencies = [...new Set(visible.map((series) => series.frequency).filter(Boolean))].join(" / ");
  axes.append(
    text(`${units || "value"}${log ? " (log scale)" : ""}`, {
      x: 12,
      y: MARGIN.top + (HEIGHT - MARGIN.top - MARGIN.bottom) / 2,
      transform: `rotate(-90 12 ${MARGIN.top + (HEIGHT - MARGIN.top - MARGIN.bottom) / 2})`,
      "text-anchor": "middle",
      class: "y-label",
    }),
  );
  axes.append(
    text(frequencies ? `period (${frequencies.toLowerCase()})` : "period", {
      x: MARGIN.left + (width - MARGIN.left - MARGIN.right) / 2,
      y: HEIGHT - 6,
      "text-anchor": "middle",
      class: "x-label",
    }),
  );
  svg.append(axes);
}

/** The x-position in the plot for a client x, as a time, for the hover read-out. */
export function timeAt(svg: SVGSVGElement, clientX: number, series: ChartSeries[], width: number): number | undefined {
  const times = series.flatMap((one) => [one.times[0], one.times[one.times.length - 1]]);
  if (times.length === 0) return undefined;
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const left = svg.getBoundingClientRect().left;
  const share = (clientX - left - MARGIN.left) / (width - MARGIN.left - MARGIN.right);
  return t0 + Math.min(1, Math.max(0, share)) * (t1 - t0);
}

/** The index of the point of `series` nearest to `time` (times ascend). */
export function nearestIndex(series: ChartSeries, time: number): number {
  let [low, high] = [0, series.times.length - 1];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (series.times[mid] < time) low = mid + 1;
    else high = mid;
  }
  if (low > 0 && time - series.times[low - 1] < series.times[low] - time) return low - 1;
  return low;
}

/** About `count` round ticks covering [min, max]. */
export function niceTicks(min: number, max: number, count: number): number[] {
  if (min === max) return [min - 1, min, min + 1];
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? rough;
  const ticks: number[] = [];
  // The last tick is the first at or above max, so the top line always fits under the axis.
  for (let tick = Math.floor(min / step) * step; ; tick += step) {
    ticks.push(Number(tick.toPrecision(12)));
    if (tick >= max) break;
  }
  return ticks;
}

function yearTicks(t0: number, t1: number, most: number): number[] {
  const [y0, y1] = [new Date(t0).getUTCFullYear(), new Date(t1).getUTCFullYear()];
  const step = Math.max(1, Math.ceil((y1 - y0 + 1) / most));
  const ticks: number[] = [];
  for (let year = Math.ceil(y0 / step) * step; year <= y1; year += step) {
    const tick = Date.UTC(year, 0, 1);
    if (tick >= t0 && tick <= t1) ticks.push(tick);
  }
  return ticks.length > 0 ? ticks : [t0];
}

export function formatValue(value: number): string {
  if (value !== 0 && (Math.abs(value) >= 1e7 || Math.abs(value) < 1e-3)) return value.toExponential(2);
  return value.toLocaleString("en-US", { maximumFractionDigits: 3 });
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function text(content: string, attributes: Record<string, string | number>): SVGTextElement {
  const node = element("text", attributes);
  node.textContent = content;
  return node;
}

function element<K extends keyof SVGElementTagNameMap>(
  name: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}
