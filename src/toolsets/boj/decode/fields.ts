/**
 * Cell-level conversions shared by the JSON and CSV decoders, so both formats give the same
 * structured output: blanks and the literal `null` (BOJ's CSV missing value) become null, values
 * become numbers, survey dates and last-update stamps become text.
 */
import { stripControl } from "../../../core/text.ts";
import { decodeError } from "../errors.ts";

/**
 * C0/C1 controls (tab and newline included: a name or a message is one line), and what else
 * `stripControl` removes or rewrites (format characters, line separators).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

/** Words BOJ and its search screen use for a missing value. */
function isMissingWord(text: string): boolean {
  if (text.length > 4) return false;
  const lower = text.toLowerCase();
  return lower === "" || lower === "null" || lower === "na" || lower === "nd";
}

/**
 * Text field: string kept as given (trimmed); blank, `null`, absent → null; numbers → their text.
 * Escape sequences and control characters are removed: every text field reaches a client, and
 * `mcpkit call` prints to a terminal.
 */
export function textField(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") {
    const trimmed = (CONTROL.test(value) ? stripControl(value).replace(/[\t\n]+/g, " ") : value).trim();
    return trimmed === "" || trimmed.toLowerCase() === "null" ? null : trimmed;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** A data value: number, or null when missing. Anything else is a decode error naming where. */
export function valueField(value: unknown, where: () => string): number | null {
  if (typeof value === "number") return finite(value, String(value), where);
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return numberFromText(value, where);
  throw decodeError(`${where()} has a value of type ${typeof value}; expected a number or null.`);
}

/**
 * A decimal number as BOJ writes one (digits, a point, an exponent). `Number` alone also took
 * `0x10`, `0b11` and `Infinity`, and JSON's `1e400` is Infinity, which the text showed while
 * structuredContent (JSON) showed null, as if missing: each is a decode error instead.
 */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export function numberFromText(text: string, where: () => string): number | null {
  const trimmed = text.trim();
  if (isMissingWord(trimmed)) return null;
  if (!DECIMAL.test(trimmed))
    throw decodeError(`${where()} has the value ${JSON.stringify(text.slice(0, 40))}, which is not a number.`);
  return finite(Number(trimmed), trimmed, where);
}

function finite(number: number, written: string, where: () => string): number {
  if (Number.isFinite(number)) return number;
  throw decodeError(
    `${where()} has the value ${JSON.stringify(written.slice(0, 40))}, which is no finite number (beyond ±1.8e308).`,
  );
}

/** A survey date (YYYY, YYYYHH, YYYYQQ, YYYYMM or YYYYMMDD) as text; a null date is kept as null. */
export function surveyDateField(value: unknown): string | null {
  if (typeof value === "number") return String(value);
  return textField(value);
}

/** A layer position from metadata: a number, or null when absent. */
export function layerField(value: unknown, where: () => string): number | null {
  if (typeof value === "number") return value;
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return numberFromText(value, where);
  throw decodeError(`${where()} is not a number.`);
}

/** NEXTPOSITION: a number when there is more; null, blank or "null" when there is not. */
export function nextPositionField(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (value === null || value === undefined) return null;
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (trimmed === "" || trimmed.toLowerCase() === "null") return null;
    const number = Number(trimmed);
    if (Number.isInteger(number)) return number;
  }
  throw decodeError(`NEXTPOSITION is ${JSON.stringify(value)}; expected a whole number or null.`);
}

/** STATUS as a number (BOJ sends a number; a string is tolerated). */
export function statusField(value: unknown): number {
  const number = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(number))
    throw decodeError(
      `STATUS is ${value === undefined ? "missing" : JSON.stringify(value)}; the body is not a BOJ API response.`,
    );
  return number;
}
