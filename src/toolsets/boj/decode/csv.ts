/**
 * Decoding BOJ's CSV bodies (docs/contracts/boj.md "Upstream facts") into the same structured
 * output as JSON: key/value rows, then one header row, then one row per (series, period) in long
 * format. The literal `null` and a blank cell are missing values. BOJ's usual layout takes the
 * fast path in csv-lines.ts; anything else (quoted cells, other column orders) is read here, cell
 * by cell.
 */
import { decodeError } from "../errors.ts";
import type { MetadataOutput, Series } from "../schemas.ts";
import { type RawBody, csvEncodings, decodeWith } from "./body.ts";
import { decodeDataLines } from "./csv-lines.ts";
import { column, csvRows, headMeta, readHead } from "./csv-table.ts";
import { nextPositionField, numberFromText, textField } from "./fields.ts";
import type { DecodedData } from "./json.ts";
import { metadataEntry } from "./json.ts";
import {
  MAX_METADATA_ENTRIES,
  MAX_PAGE_POINTS,
  MAX_PAGE_SERIES,
  tooManyEntries,
  tooManyPoints,
  tooManySeries,
} from "./limits.ts";
import { type DataKind, parameterEcho } from "./shape.ts";

function csvText(body: RawBody, lang: "jp" | "en"): { bytes: Uint8Array; decoders: TextDecoder[] } {
  const { skip, decoders } = csvEncodings(body, lang);
  return { bytes: skip ? body.bytes.subarray(skip) : body.bytes, decoders };
}

/** Data CSV (code and layer APIs). */
export function decodeDataCsv(body: RawBody, lang: "jp" | "en", kind: DataKind): DecodedData {
  const { bytes, decoders } = csvText(body, lang);
  refuseLongerThanAPage(bytes);
  return (
    decodeDataLines(bytes, decoders, kind) ?? decodeDataRows(csvRows(decodeWith(decoders, bytes, "The CSV body")), kind)
  );
}

/**
 * Lines of a data page: one a point after a head of key/value rows (STATUS … NEXTPOSITION, a
 * dozen PARAMETER rows, the header). Counted on the bytes, before any row becomes cells or points.
 */
const MAX_CSV_LINES = MAX_PAGE_POINTS + 64;

function refuseLongerThanAPage(bytes: Uint8Array): void {
  refuseLongerThan(bytes, MAX_CSV_LINES, tooManyPoints);
}

/** Counts lines on the bytes and refuses a body of more than `most`, before any row becomes cells. */
function refuseLongerThan(bytes: Uint8Array, most: number, tooMany: () => Error): void {
  let lines = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) {
    if (++lines > most) throw tooMany();
  }
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
          if (series.length >= MAX_PAGE_SERIES) throw tooManySeries();
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

export function decodeMetadataCsv(body: RawBody, lang: "jp" | "en"): Omit<MetadataOutput, "raw"> {
  const { bytes, decoders } = csvText(body, lang);
  refuseLongerThan(bytes, MAX_METADATA_ENTRIES + 64, tooManyEntries);
  const rows = csvRows(decodeWith(decoders, bytes, "The CSV body"));
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
