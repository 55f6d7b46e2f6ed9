/**
 * Decoding BOJ's CSV bodies (research §2.3) into the same structured output as JSON: key/value
 * rows (STATUS, MESSAGEID, MESSAGE, DATE, PARAMETER, NEXTPOSITION, DB), then one header row,
 * then one row per (series, period) in long format. The literal `null` and a blank cell are
 * missing values.
 */
import { decodeError } from "../errors.ts";
import type { MetadataOutput, Series } from "../schemas.ts";
import { type RawBody, byteView, csvEncodings, decodeWith } from "./body.ts";
import type { DecodedData } from "./json.ts";
import { metadataEntry } from "./json.ts";
import { nextPositionField, numberFromText, statusField, textField } from "./fields.ts";
import { assertSuccess, buildMeta, type DataKind, parameterEcho } from "./shape.ts";

/** Splits CSV text into rows of trimmed cells. Quoted cells (RFC 4180) are handled; BOJ's usual bodies have none. */
export function csvRows(text: string): string[][] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes('"') ? quotedRows(body) : plainRows(body);
}

function plainRows(text: string): string[][] {
  const lines = text.split("\n");
  const rows: string[][] = [];
  for (let line of lines) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() === "") continue;
    const cells = line.split(",");
    for (let i = 0; i < cells.length; i++) cells[i] = cells[i].trim();
    rows.push(cells);
  }
  return rows;
}

function quotedRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const endRow = () => {
    row.push(cell.trim());
    if (row.length > 1 || row[0] !== "") rows.push(row);
    row = [];
    cell = "";
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += ch;
    } else if (ch === '"' && cell.trim() === "") {
      quoted = true;
      cell = "";
    } else if (ch === ",") {
      row.push(cell.trim());
      cell = "";
    } else if (ch === "\n") endRow();
    else if (ch !== "\r") cell += ch;
  }
  if (cell !== "" || row.length > 0) endRow();
  return rows;
}

interface CsvHead {
  status?: number;
  messageId?: string;
  message?: string;
  date?: string;
  db?: string;
  nextPosition?: string;
  parameters: [string, string][];
  /** Column name (upper case) → index, from the SERIES_CODE header row. */
  columns?: Map<string, number>;
  /** Index of the first row after the header. */
  firstDataRow: number;
}

const KEY_ROWS = new Set(["STATUS", "MESSAGEID", "MESSAGE", "DATE", "DB", "NEXTPOSITION", "PARAMETER"]);

/** Reads the key/value rows up to and including the header row (the first row naming SERIES_CODE). */
function readHead(rows: string[][]): CsvHead {
  const head: CsvHead = { parameters: [], firstDataRow: rows.length };
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    const key = row[0].toUpperCase();
    const rest = () => row.slice(1).join(",");
    if (key === "SERIES_CODE" || (!KEY_ROWS.has(key) && row.some((cell) => cell.toUpperCase() === "SERIES_CODE"))) {
      head.columns = new Map(row.map((name, column) => [name.toUpperCase(), column]));
      head.firstDataRow = index + 1;
      break;
    }
    if (key === "STATUS") head.status = statusField(row[1]);
    else if (key === "MESSAGEID") head.messageId = row[1];
    else if (key === "MESSAGE") head.message = rest();
    else if (key === "DATE") head.date = row[1];
    else if (key === "DB") head.db = row[1];
    else if (key === "NEXTPOSITION") head.nextPosition = row[1];
    else if (key === "PARAMETER") head.parameters.push([row[1] ?? "", row.slice(2).join(",")]);
  }
  if (head.status === undefined) throw decodeError("The CSV body has no STATUS row; it is not a BOJ API response.");
  return head;
}

function headMeta(head: CsvHead) {
  const meta = buildMeta(head.status ?? 0, head.messageId, head.message, head.date);
  assertSuccess(meta);
  return meta;
}

function column(head: CsvHead, name: string, required: boolean): number {
  const index = head.columns?.get(name);
  if (index === undefined) {
    if (required) throw decodeError(`The CSV header row has no ${name} column.`);
    return -1;
  }
  return index;
}

/** Data CSV (code and layer APIs). */
export function decodeDataCsv(body: RawBody, lang: "jp" | "en", kind: DataKind): DecodedData {
  const { skip, decoders } = csvEncodings(body, lang);
  const bytes = skip ? body.bytes.subarray(skip) : body.bytes;
  const view = byteView(bytes);
  // Quoted cells may hide commas and line breaks: read those bodies cell by cell.
  if (view.includes('"')) return decodeDataRows(csvRows(decodeWith(decoders, bytes, "The CSV body")), kind);
  return decodeDataLines(bytes, view, decoders, kind);
}

/** The general path: every row split into cells. */
function decodeDataRows(rows: string[][], kind: DataKind): DecodedData {
  const head = readHead(rows);
  const meta = headMeta(head);
  const series: Series[] = [];
  if (head.columns) {
    const at = {
      code: column(head, "SERIES_CODE", true),
      nameJ: column(head, "NAME_OF_TIME_SERIES_J", false),
      name: column(head, "NAME_OF_TIME_SERIES", false),
      unitJ: column(head, "UNIT_J", false),
      unit: column(head, "UNIT", false),
      frequency: column(head, "FREQUENCY", false),
      categoryJ: column(head, "CATEGORY_J", false),
      category: column(head, "CATEGORY", false),
      lastUpdate: column(head, "LAST_UPDATE", false),
      date: column(head, "SURVEY_DATES", true),
      value: column(head, "VALUES", true),
    };
    const cell = (row: string[], index: number) => (index < 0 ? null : textField(row[index]));
    // Rows of one series are contiguous; the map only matters if BOJ ever interleaves them.
    const byCode = new Map<string, Series>();
    let current: Series | undefined;
    for (let index = head.firstDataRow; index < rows.length; index++) {
      const row = rows[index];
      const code = row[at.code];
      if (!code) throw decodeError(`CSV row ${index + 1} has no SERIES_CODE.`);
      if (current?.series_code !== code) {
        current = byCode.get(code);
        if (!current) {
          current = {
            series_code: code,
            name_of_time_series_j: cell(row, at.nameJ),
            name_of_time_series: cell(row, at.name),
            unit_j: cell(row, at.unitJ),
            unit: cell(row, at.unit),
            frequency: cell(row, at.frequency),
            category_j: cell(row, at.categoryJ),
            category: cell(row, at.category),
            last_update: cell(row, at.lastUpdate),
            points: [],
          };
          byCode.set(code, current);
          series.push(current);
        }
      }
      const date = row[at.date];
      current.points.push({
        survey_date: date === undefined || date === "" || date.toLowerCase() === "null" ? null : date,
        value: numberFromText(row[at.value] ?? "", () => `CSV row ${index + 1} (series ${code})`),
      });
    }
  }
  return {
    meta,
    parameter: parameterEcho(kind, head.parameters),
    next_position: nextPositionField(head.nextPosition),
    series_count: series.length,
    series,
  };
}

/**
 * The fast path for BOJ's usual layout (SERIES_CODE first, SURVEY_DATES and VALUES last, no
 * quotes). A page holds up to 60,000 rows that differ only in their last two cells, so each row is
 * read from the byte view by its last two commas, and the text cells (names, units, categories)
 * are decoded once per series, not once per row.
 */
function decodeDataLines(bytes: Uint8Array, view: string, decoders: TextDecoder[], kind: DataKind): DecodedData {
  let headerStart = -1;
  let headerEnd = view.length;
  for (let start = 0; start < view.length; ) {
    let end = view.indexOf("\n", start);
    if (end < 0) end = view.length;
    if (/^\s*series_code\s*(,|$)/i.test(view.slice(start, start + 16))) {
      headerStart = start;
      headerEnd = end;
      break;
    }
    start = end + 1;
  }
  const headRows = csvRows(decodeWith(decoders, bytes.subarray(0, headerEnd), "The CSV body"));
  const head = readHead(headRows);
  const meta = headMeta(head);
  const header = headRows[headRows.length - 1];
  const width = header.length;
  const column = (name: string) => (head.columns?.get(name) ?? -1);
  // No header line at the start of a line: either no data at all, or a layout for the general path.
  if (headerStart < 0 && head.columns) return decodeDataRows(headRows, kind);
  if (headerStart < 0 || !head.columns) {
    return { meta, parameter: parameterEcho(kind, head.parameters), next_position: nextPositionField(head.nextPosition), series_count: 0, series: [] };
  }
  if (column("SERIES_CODE") !== 0 || column("SURVEY_DATES") !== width - 2 || column("VALUES") !== width - 1) {
    return decodeDataRows(csvRows(decodeWith(decoders, bytes, "The CSV body")), kind);
  }
  const textColumns = {
    name_of_time_series_j: column("NAME_OF_TIME_SERIES_J"),
    name_of_time_series: column("NAME_OF_TIME_SERIES"),
    unit_j: column("UNIT_J"),
    unit: column("UNIT"),
    frequency: column("FREQUENCY"),
    category_j: column("CATEGORY_J"),
    category: column("CATEGORY"),
    last_update: column("LAST_UPDATE"),
  };
  const rowNumber = (offset: number) => view.slice(0, offset).split("\n").length;
  const series: Series[] = [];
  const byCode = new Map<string, Series>();
  let current: Series | undefined;
  let currentPrefix = "";
  for (let start = headerEnd + 1; start < view.length; ) {
    let end = view.indexOf("\n", start);
    if (end < 0) end = view.length;
    const next = end + 1;
    if (end > start && view.charCodeAt(end - 1) === 13) end--;
    if (end === start || (view.charCodeAt(start) <= 32 && view.slice(start, end).trim() === "")) {
      start = next;
      continue;
    }
    if (current === undefined || !view.startsWith(currentPrefix, start)) {
      const cells = view.slice(start, end).split(",");
      const code = cells[0].trim();
      if (!code) throw decodeError(`CSV row ${rowNumber(start)} has no SERIES_CODE.`);
      currentPrefix = `${cells[0]},`;
      current = byCode.get(code);
      if (!current) {
        const offsets: number[] = [];
        for (let i = 0, at = start; i < cells.length; at += cells[i].length + 1, i++) offsets.push(at);
        const cell = (index: number) =>
          index < 0 || index >= cells.length
            ? null
            : textField(decodeWith(decoders, bytes.subarray(offsets[index], offsets[index] + cells[index].length), `A text cell of series ${code}`));
        current = {
          series_code: code,
          name_of_time_series_j: cell(textColumns.name_of_time_series_j),
          name_of_time_series: cell(textColumns.name_of_time_series),
          unit_j: cell(textColumns.unit_j),
          unit: cell(textColumns.unit),
          frequency: cell(textColumns.frequency),
          category_j: cell(textColumns.category_j),
          category: cell(textColumns.category),
          last_update: cell(textColumns.last_update),
          points: [],
        };
        byCode.set(code, current);
        series.push(current);
      }
    }
    const valueComma = view.lastIndexOf(",", end - 1);
    const dateComma = view.lastIndexOf(",", valueComma - 1);
    if (dateComma < start) throw decodeError(`CSV row ${rowNumber(start)} has fewer cells than the header.`);
    const date = view.slice(dateComma + 1, valueComma).trim();
    const code = current.series_code;
    current.points.push({
      survey_date: date === "" || date === "null" || date === "NULL" ? null : date,
      value: numberFromText(view.slice(valueComma + 1, end), () => `CSV row ${rowNumber(start)} (series ${code})`),
    });
    start = next;
  }
  return { meta, parameter: parameterEcho(kind, head.parameters), next_position: nextPositionField(head.nextPosition), series_count: series.length, series };
}

export function decodeMetadataCsv(body: RawBody, lang: "jp" | "en"): Omit<MetadataOutput, "raw"> {
  const { skip, decoders } = csvEncodings(body, lang);
  const rows = csvRows(decodeWith(decoders, skip ? body.bytes.subarray(skip) : body.bytes, "The CSV body"));
  const head = readHead(rows);
  const meta = headMeta(head);
  const names = head.columns ? [...head.columns.keys()] : [];
  const entries = [];
  for (let index = head.firstDataRow; index < rows.length; index++) {
    const row = rows[index];
    const record: Record<string, string> = {};
    for (let column = 0; column < names.length; column++) record[names[column]] = row[column] ?? "";
    entries.push(metadataEntry(record, () => `CSV row ${index + 1}`));
  }
  return { meta, db: textField(head.db), entries_count: entries.length, entries };
}
