/**
 * A BOJ data page that fits: when the text or the serialized structuredContent of a page would
 * pass `--max-output-bytes`, the page itself is shortened, consistently in both halves (Claude Code
 * and VS Code show a model only structuredContent): whole series from the start while they fit,
 * or, when not even the first one does, its points up to a period boundary. Both halves then name
 * the exact call that returns what was left out (`truncated.continuation` in structuredContent,
 * the last line of the text), so a client reading either one can go on. When one period alone
 * does not fit, the dates of it left out are named instead and the call resumes at the next period:
 * never the request just made, which would return the same page.
 */
import { rememberSize } from "../../core/output-budget.ts";
import { byteLength } from "../../core/text.ts";
import type { DecodedData } from "./decode/json.ts";
import {
  type DataContinuation,
  type MetadataView,
  noteBytes,
  pointsRest,
  renderDataPage,
  offsetPastEnd,
  renderMetadata,
  requestPeriod,
  restOfPage,
} from "./render.ts";
import type { Cached, Series } from "./schemas.ts";

export interface FittedPage {
  text: string;
  structured: Record<string, unknown>;
}

interface PageParts {
  output: DecodedData;
  raw?: string;
  cached?: Cached;
}

export function fitDataPage(page: PageParts, asked: DataContinuation, budget: number): FittedPage {
  const continuation = { ...asked, bojNext: page.output.next_position };
  const whole = assemble(page, page.output, continuation, budget, undefined);
  if (fits(whole, budget)) return whole;
  // The raw body goes first: it repeats the series, and the decoded page is what a model needs.
  const withoutRaw = { ...page, raw: undefined };
  const rawNote = page.raw === undefined ? "" : " raw was left out: with it the page would not fit.";
  const lean = assemble(withoutRaw, page.output, continuation, budget, rawNote ? { note: rawNote.trim() } : undefined);
  if (fits(lean, budget)) return lean;

  const series = page.output.series;
  const most = wholeSeriesThatFit(page.output, budget);
  // First with the whole call for the rest; when that alone is too long for the budget, with the
  // longest exact continuation that fits beside the series (restOfPage's room), never a cut one.
  for (const whole of [true, false]) {
    for (let shown = most; shown >= 1; shown--) {
      const short = { ...page.output, series: series.slice(0, shown), series_count: shown };
      const fitted = withNote(withoutRaw, short, continuation, budget, { shown, total: series.length }, (room) =>
        `${restOfPage(series, shown, continuation, whole ? Number.POSITIVE_INFINITY : room - noteBytes(rawNote))}${rawNote}`.trim(),
      );
      if (fitted) return fitted;
    }
  }
  return firstSeriesCut(withoutRaw, continuation, budget, rawNote);
}

/**
 * The page with a note made by `note(room)`, where `room` is how many bytes (noteBytes) the note
 * may take for the page to fit: first unbounded, then from what the last attempt passed the budget
 * by. Undefined when no note `note` makes fits.
 */
function withNote(
  page: PageParts,
  output: DecodedData,
  continuation: DataContinuation,
  budget: number,
  counts: { shown: number; total: number },
  note: (room: number) => string,
  last = false,
): FittedPage | undefined {
  let room = Number.POSITIVE_INFINITY;
  let previous: string | undefined;
  let fitted: FittedPage | undefined;
  for (let attempt = 0; attempt < 6; attempt++) {
    const text = note(room);
    if (text === previous) break;
    previous = text;
    fitted = assemble(page, output, continuation, budget, { ...counts, note: text });
    if (fits(fitted, budget)) return fitted;
    const over = Math.max(byteLength(fitted.text), byteLength(JSON.stringify(fitted.structured))) - budget;
    room = Math.min(room, noteBytes(text)) - over - 8;
    if (room <= 0) break;
  }
  return last ? fitted : undefined;
}

/**
 * Not even one series fits: its first points, cut where a request period ends so start_date
 * resumes exactly, or inside the first period when that period alone does not fit.
 */
function firstSeriesCut(page: PageParts, continuation: DataContinuation, budget: number, rawNote: string): FittedPage {
  const series = page.output.series;
  const first = series[0];
  let points = Math.min(first.points.length, Math.floor(budget / 40));
  for (;;) {
    points = periodBoundary(first, points);
    const cut: Series = { ...first, points: first.points.slice(0, points) };
    const short = { ...page.output, series: [cut], series_count: 1 };
    const rest = pointsRest(first, points, continuation);
    const fitted = withNote(
      page,
      short,
      continuation,
      budget,
      { shown: 1, total: series.length },
      (room) =>
        `${rest} ${restOfPage(series, 1, continuation, room - noteBytes(rest) - noteBytes(rawNote))}${rawNote}`.trim(),
      points <= 1,
    );
    if (fitted) return fitted;
    points = Math.max(1, Math.floor(points * 0.9));
  }
}

/**
 * The largest count ≤ `points` after which the next point starts a new request period (YYYYMM for
 * D and W); `points` itself when the first period alone is longer (pointsRest then names the
 * rest of that period as left out and resumes at the next one).
 */
function periodBoundary(series: Series, points: number): number {
  const period = (index: number) => requestPeriod(series.points[index]?.survey_date ?? "");
  if (points >= series.points.length) return series.points.length;
  let boundary = points;
  while (boundary > 1 && period(boundary) === period(boundary - 1)) boundary--;
  return boundary > 1 || period(1) !== period(0) ? boundary : points;
}

/** An estimate from sizes (the caller checks the real result): whole series while both halves fit. */
function wholeSeriesThatFit(output: DecodedData, budget: number): number {
  let json = byteLength(JSON.stringify({ ...output, series: [] })) + 2_000;
  let text = 2_000;
  let shown = 0;
  for (const series of output.series) {
    json += byteLength(JSON.stringify(series)) + 1;
    text += 80 + series.points.length * 16;
    if (json > budget || text > budget) break;
    shown++;
  }
  return Math.max(1, shown);
}

interface Truncation {
  shown?: number;
  total?: number;
  note: string;
}

function assemble(
  page: PageParts,
  output: DecodedData,
  continuation: DataContinuation,
  budget: number,
  truncation: Truncation | undefined,
): FittedPage {
  let text = renderDataPage(output, continuation, page.cached, truncation?.shown !== undefined);
  const structured: Record<string, unknown> = {
    ...output,
    ...(page.raw !== undefined ? { raw: page.raw } : {}),
    ...(page.cached ? { cached: page.cached } : {}),
  };
  if (truncation) {
    const what =
      truncation.shown !== undefined
        ? `this page holds ${truncation.shown} of ${truncation.total} series`
        : "this page was shortened";
    const sentence = `${what} to fit the output budget of ${budget} bytes (--max-output-bytes). ${truncation.note}`;
    text += `[${continuation.tool}: ${sentence}]\n`;
    // The note names BOJ's next page where it comes (restOfPage): next_position beside it would
    // read as the way on and skip what the note returns first.
    if (truncation.shown !== undefined) structured.next_position = null;
    structured.truncated = {
      ...(truncation.shown !== undefined ? { shown_series: truncation.shown, total_series: truncation.total } : {}),
      continuation: truncation.note,
    };
  }
  return { text, structured };
}

function fits(page: FittedPage, budget: number): boolean {
  if (byteLength(page.text) > budget) return false;
  const json = byteLength(JSON.stringify(page.structured));
  rememberSize(page.structured, json); // the output budget's last check reuses it
  return json <= budget;
}

// ---------------------------------------------------------------------------------------------
// Metadata (boj_get_metadata): the first entries that fit, next_offset right after them.

interface MetadataParts {
  view: MetadataView;
  tool: string;
  raw?: string;
  cached?: Cached;
}

export function fitMetadataPage(parts: MetadataParts, budget: number): FittedPage {
  const whole = assembleMetadata(parts, parts.view.output.entries.length, budget);
  if (fits(whole, budget)) return whole;
  const lean = { ...parts, raw: undefined };
  const entries = parts.view.output.entries;
  let shown = Math.min(entries.length, entriesThatFit(parts.view, budget));
  for (;;) {
    const fitted = assembleMetadata(lean, shown, budget);
    if (fits(fitted, budget) || shown <= 1) return fitted;
    shown = Math.max(1, Math.floor(shown * 0.95));
  }
}

function entriesThatFit(view: MetadataView, budget: number): number {
  let json = byteLength(JSON.stringify({ ...view.output, entries: [] })) + 1_000;
  let shown = 0;
  for (const entry of view.output.entries) {
    json += byteLength(JSON.stringify(entry)) + 1;
    if (json > budget) break;
    shown++;
  }
  return Math.max(1, shown);
}

function assembleMetadata(parts: MetadataParts, shown: number, budget: number): FittedPage {
  const { view, tool, cached, raw } = parts;
  const all = view.output.entries.length;
  const output =
    shown >= all
      ? view.output
      : {
          ...view.output,
          entries: view.output.entries.slice(0, shown),
          entries_count: shown,
          next_offset: view.offset + shown,
        };
  let text = renderMetadata({ ...view, output }, cached);
  const pastEnd = offsetPastEnd({ ...view, output });
  const structured: Record<string, unknown> = {
    ...output,
    ...(raw !== undefined ? { raw } : {}),
    ...(cached ? { cached } : {}),
    // Claude Code and VS Code show a model only structuredContent: an empty page there must say why too.
    ...(pastEnd ? { notice: pastEnd } : {}),
  };
  if (shown < all) {
    text += `[${tool}: this page holds ${shown} of the ${all} entries asked for, to fit the output budget of ${budget} bytes (--max-output-bytes); next_offset ${view.offset + shown} continues right after them.]\n`;
    // Claude Code and VS Code show a model only structuredContent: with a bare next_offset there, a
    // page shorter than the limit the model set would look like a limit ignored or a short match.
    structured.truncated = {
      shown_entries: shown,
      total_entries: all,
      continuation: `call ${tool} again with the same arguments and offset ${view.offset + shown}`,
    };
  }
  return { text, structured };
}
