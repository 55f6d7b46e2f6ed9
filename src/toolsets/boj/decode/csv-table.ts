/**
 * Reading CSV text as a table: splitting it into rows of cells, and reading BOJ's key/value head
 * (STATUS, MESSAGEID, MESSAGE, DATE, PARAMETER, NEXTPOSITION, DB) up to the SERIES_CODE header row.
 */
import { decodeError } from "../errors.ts";
import type { Meta } from "../schemas.ts";
import { statusField } from "./fields.ts";
import { assertSuccess, buildMeta } from "./shape.ts";
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

export interface CsvHead {
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
export function readHead(rows: string[][]): CsvHead {
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

export function headMeta(head: CsvHead): Meta {
  const meta = buildMeta(head.status ?? 0, head.messageId, head.message, head.date);
  assertSuccess(meta);
  return meta;
}

export function column(head: CsvHead, name: string, required: boolean): number {
  const index = head.columns?.get(name);
  if (index === undefined) {
    if (required) throw decodeError(`The CSV header row has no ${name} column.`);
    return -1;
  }
  return index;
}
