/**
 * The fast path for BOJ's usual data CSV: SERIES_CODE first, SURVEY_DATES and VALUES last, no
 * quotes. A page holds up to 60,000 rows that differ only in their last two cells, so rows are
 * read straight from the bytes: lines and cells are found by their ASCII delimiters (in Shift_JIS
 * and UTF-8 those bytes never occur inside a multi-byte character), plain decimals are parsed
 * without making strings, and the text cells (names, units, categories) are decoded once per
 * series instead of once per row. Anything unusual is left to the general path.
 */
import { decodeError } from "../errors.ts";
import type { Series } from "../schemas.ts";
import { decodeWith } from "./body.ts";
import { csvRows, headMeta, readHead } from "./csv-table.ts";
import { nextPositionField, numberFromText, textField } from "./fields.ts";
import type { DecodedData } from "./json.ts";
import { MAX_PAGE_SERIES, tooManySeries } from "./limits.ts";
import { type DataKind, parameterEcho } from "./shape.ts";

const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

/** Exact powers of ten: m / 10^k is then correctly rounded, the same number Number(text) gives. */
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
}

const HEADER = [..."SERIES_CODE"].map((ch) => ch.charCodeAt(0));

function isHeaderLine(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end && bytes[i] === SPACE) i++;
  if (end - i < HEADER.length) return false;
  for (let k = 0; k < HEADER.length; k++) {
    const b = bytes[i + k];
    if ((b >= 97 && b <= 122 ? b - 32 : b) !== HEADER[k]) return false;
  }
  for (i += HEADER.length; i < end && bytes[i] === SPACE; i++);
  return i === end || bytes[i] === COMMA || bytes[i] === CR;
}

/** Byte offsets of the SERIES_CODE header line, or undefined when there is none. */
function findHeaderLine(bytes: Uint8Array): { start: number; end: number } | undefined {
  for (let start = 0; start < bytes.length; ) {
    let end = bytes.indexOf(LF, start);
    if (end < 0) end = bytes.length;
    if (isHeaderLine(bytes, start, end)) return { start, end };
    start = end + 1;
  }
  return undefined;
}

type TextColumns = Record<Exclude<keyof Series, "series_code" | "points">, number>;

/**
 * The key/value head and the column positions, when the header has the usual layout
 * (SERIES_CODE first, SURVEY_DATES and VALUES last); undefined sends the body to the general path.
 */
function readLayout(bytes: Uint8Array, headerEnd: number, decoders: readonly TextDecoder[]) {
  const headRows = csvRows(decodeWith(decoders, bytes.subarray(0, headerEnd), "The CSV body"));
  const head = readHead(headRows);
  const meta = headMeta(head);
  const width = headRows[headRows.length - 1].length;
  const column = (name: string) => head.columns?.get(name) ?? -1;
  if (column("SERIES_CODE") !== 0 || column("SURVEY_DATES") !== width - 2 || column("VALUES") !== width - 1)
    return undefined;
  const textColumns: TextColumns = {
    name_of_time_series_j: column("NAME_OF_TIME_SERIES_J"),
    name_of_time_series: column("NAME_OF_TIME_SERIES"),
    unit_j: column("UNIT_J"),
    unit: column("UNIT"),
    frequency: column("FREQUENCY"),
    category_j: column("CATEGORY_J"),
    category: column("CATEGORY"),
    last_update: column("LAST_UPDATE"),
  };
  return { head, meta, textColumns };
}

/**
 * Turns data lines into series. Consecutive lines of one series share their leading cells, so a
 * line whose prefix (up to the first comma) matches the previous one's only adds a point.
 */
class SeriesLines {
  readonly series: Series[] = [];
  private readonly byCode = new Map<string, Series>();
  // The series of a page share their survey dates, so each one becomes text once.
  private readonly dateTexts = new Map<number, string>();
  private current: Series | undefined;
  private prefixStart = 0;
  private prefixLength = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly decoders: readonly TextDecoder[],
    private readonly textColumns: TextColumns,
  ) {}

  /** Adds the line [start, end) (no line break) to its series. */
  add(start: number, end: number): void {
    const bytes = this.bytes;
    if (this.current === undefined || !this.samePrefix(start, end)) this.current = this.startSeries(start, end);
    const valueComma = bytes.lastIndexOf(COMMA, end - 1);
    const dateComma = valueComma > start ? bytes.lastIndexOf(COMMA, valueComma - 1) : -1;
    if (dateComma < start) throw decodeError(`CSV row ${this.rowNumber(start)} has fewer cells than the header.`);
    this.current.points.push({
      survey_date: this.surveyDate(dateComma + 1, valueComma),
      value: this.value(valueComma + 1, end, start),
    });
  }

  private rowNumber(offset: number): number {
    let lines = 1;
    for (let at = this.bytes.indexOf(LF); at >= 0 && at < offset; at = this.bytes.indexOf(LF, at + 1)) lines++;
    return lines;
  }

  private cells(start: number, end: number): [number, number][] {
    const cells: [number, number][] = [];
    for (let from = start; ; ) {
      const comma = this.bytes.indexOf(COMMA, from);
      const to = comma < 0 || comma > end ? end : comma;
      cells.push([from, to]);
      if (to === end) return cells;
      from = to + 1;
    }
  }

  private startSeries(start: number, end: number): Series {
    const cells = this.cells(start, end);
    const code = ascii(this.bytes, cells[0][0], cells[0][1]).trim();
    if (!code) throw decodeError(`CSV row ${this.rowNumber(start)} has no SERIES_CODE.`);
    this.prefixStart = start;
    this.prefixLength = cells[0][1] - start + 1;
    const known = this.byCode.get(code);
    if (known) return known;
    // Its points are bounded by the line count (csv.ts); the series, each an object of nine texts, here.
    if (this.series.length >= MAX_PAGE_SERIES) throw tooManySeries();
    const text = (index: number) =>
      index < 0 || index >= cells.length
        ? null
        : textField(
            decodeWith(
              this.decoders,
              this.bytes.subarray(cells[index][0], cells[index][1]),
              `A text cell of series ${code}`,
            ),
          );
    const columns = this.textColumns;
    const created: Series = {
      series_code: code,
      name_of_time_series_j: text(columns.name_of_time_series_j),
      name_of_time_series: text(columns.name_of_time_series),
      unit_j: text(columns.unit_j),
      unit: text(columns.unit),
      frequency: text(columns.frequency),
      category_j: text(columns.category_j),
      category: text(columns.category),
      last_update: text(columns.last_update),
      points: [],
    };
    this.byCode.set(code, created);
    this.series.push(created);
    return created;
  }

  private samePrefix(start: number, end: number): boolean {
    const { bytes, prefixStart, prefixLength } = this;
    if (end - start < prefixLength) return false;
    for (let k = 0; k < prefixLength; k++) if (bytes[prefixStart + k] !== bytes[start + k]) return false;
    return true;
  }

  private surveyDate(start: number, end: number): string | null {
    const bytes = this.bytes;
    let number = 0;
    let i = start;
    if (end - start >= 4 && end - start <= 8 && bytes[i] !== ZERO) {
      for (; i < end; i++) {
        const b = bytes[i];
        if (b < ZERO || b > NINE) break;
        number = number * 10 + (b - ZERO);
      }
    }
    if (i === end && end > start) {
      let text = this.dateTexts.get(number);
      if (text === undefined) this.dateTexts.set(number, (text = String(number)));
      return text;
    }
    const text = ascii(bytes, start, end).trim();
    return text === "" || text.toLowerCase() === "null" ? null : text;
  }

  private value(start: number, end: number, row: number): number | null {
    const bytes = this.bytes;
    let i = start;
    const negative = bytes[i] === MINUS;
    if (negative) i++;
    let mantissa = 0;
    let digits = 0;
    let fraction = 0;
    let dot = false;
    for (; i < end; i++) {
      const b = bytes[i];
      if (b >= ZERO && b <= NINE) {
        mantissa = mantissa * 10 + (b - ZERO);
        digits++;
        if (dot) fraction++;
      } else if (b === DOT && !dot) dot = true;
      else break;
    }
    if (i === end && digits > 0 && digits <= 15) {
      const magnitude = fraction === 0 ? mantissa : mantissa / POWERS_OF_TEN[fraction];
      return negative ? -magnitude : magnitude;
    }
    // Blanks, `null`, exponents, long mantissas: the general conversion.
    return numberFromText(
      ascii(bytes, start, end),
      () => `CSV row ${this.rowNumber(row)} (series ${this.current?.series_code})`,
    );
  }
}

/** Returns undefined when the body is not in the usual layout; the general path then reads it. */
export function decodeDataLines(
  bytes: Uint8Array,
  decoders: readonly TextDecoder[],
  kind: DataKind,
): DecodedData | undefined {
  if (bytes.indexOf(QUOTE) >= 0) return undefined;
  const header = findHeaderLine(bytes);
  if (!header) return undefined;
  const layout = readLayout(bytes, header.end, decoders);
  if (!layout) return undefined;
  const lines = new SeriesLines(bytes, decoders, layout.textColumns);
  const size = bytes.length;
  for (let start = header.end + 1; start < size; ) {
    let end = bytes.indexOf(LF, start);
    if (end < 0) end = size;
    const next = end + 1;
    if (end > start && bytes[end - 1] === CR) end--;
    let first = start;
    while (first < end && bytes[first] <= SPACE) first++;
    if (first < end) lines.add(start, end);
    start = next;
  }
  const { head, meta } = layout;
  return {
    meta,
    parameter: parameterEcho(kind, head.parameters),
    next_position: nextPositionField(head.nextPosition),
    series_count: lines.series.length,
    series: lines.series,
  };
}
