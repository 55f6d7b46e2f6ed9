/**
 * Client-side checks before anything is sent to BOJ (docs/contracts/boj.md "Validation": the
 * reference client's checks plus the period format per frequency from the BOJ manual), and the
 * translation of tool arguments into the BOJ query. Every failure is a VALIDATION_ERROR whose message names the argument and the fix.
 */
import type * as v from "valibot";
import { FREQUENCY_INFO, type Frequency, LONG_FREQUENCY_NAMES } from "./catalog.ts";
import { validationError } from "./errors.ts";
import type { getDataCodeInput, getDataLayerInput, getMetadataInput } from "./schemas.ts";

export type BojEndpoint = "getDataCode" | "getDataLayer" | "getMetadata";

export interface BojRequest {
  endpoint: BojEndpoint;
  /** Query parameters in the order BOJ's manual lists them; only those the caller set. */
  params: [string, string][];
  format: "json" | "csv";
  /** The effective language: BOJ answers in Japanese when none is sent. */
  lang: "jp" | "en";
}

/**
 * The builders take the schemas' input types: the handlers pass what the schemas produced, and
 * the checks below stay safe for a caller that did not go through them (tests, benchmarks).
 */
export type CodeArgs = Omit<v.InferInput<typeof getDataCodeInput>, "include_raw">;
export type LayerArgs = Omit<v.InferInput<typeof getDataLayerInput>, "include_raw">;
type CommonArgs = Pick<v.InferInput<typeof getMetadataInput>, "db" | "format" | "lang">;
type PeriodArgs = Pick<CodeArgs, "start_date" | "end_date" | "start_position">;

/** The characters BOJ rejects with M181001E (manual p.5 ※1); full-width ones fail the ASCII test. */
const FORBIDDEN = /[<>"!|\\;']/;
const NON_ASCII = /[^\x20-\x7E]/;

function checkValue(field: string, raw: string, example: string): string {
  const value = raw.trim();
  if (value === "") throw validationError(field, `"${field}" is empty; give a value such as ${example}.`);
  const wide = NON_ASCII.exec(value);
  if (wide) {
    throw validationError(
      field,
      `"${field}" (${JSON.stringify(value)}) contains the non-ASCII character ${JSON.stringify(wide[0])}; BOJ accepts half-width ASCII only, e.g. ${example}.`,
    );
  }
  const bad = FORBIDDEN.exec(value);
  if (bad) {
    throw validationError(
      field,
      `"${field}" (${JSON.stringify(value)}) contains ${JSON.stringify(bad[0])}, which BOJ forbids (< > " ! | \\ ; '); remove it, e.g. ${example}.`,
    );
  }
  return value;
}

function checkDb(raw: string): string {
  const value = checkValue("db", raw, "FM08");
  if (value.includes(",")) {
    throw validationError(
      "db",
      `"db" (${JSON.stringify(value)}) names several databases; give exactly one code such as FM08, and make one call per database.`,
    );
  }
  return value.toUpperCase();
}

/**
 * The longest series code sent. BOJ's manual gives no maximum, but its codes are short: the
 * longest in the fixtures taken from live catalogues is 23 characters (DLDDLKY45090_DLDD3DBTTL),
 * TANKAN's are 20. 64 leaves room for any real code and stops a pasted blob before it becomes a
 * URL that BOJ, or the proxy in front of it, refuses with an opaque 414/431.
 */
export const MAX_CODE_LENGTH = 64;

/**
 * The longest `code` parameter sent, percent-encoded, all codes and commas together. BOJ takes up
 * to 1,250 codes per call (the schema's cap), and 1,250 codes of 25 characters fit well within it;
 * no list of real codes reaches it, while 1,250 codes at the per-code maximum would send 80 KB.
 */
export const MAX_CODE_PARAM_LENGTH = 32_768;

/** `IR01'MADR1Z@D` (the site's "data code") → the DB prefix and bare code, so the message can show the fix. */
const DATA_CODE_FORM = /^([A-Za-z0-9]{2,5})['’](.+)$/;

function checkCode(raw: string, index: number): string {
  const field = `codes[${index}]`;
  const length = raw.trim().length;
  if (length > MAX_CODE_LENGTH) {
    // Only the start is quoted: the value may be megabytes.
    throw validationError(
      field,
      `"${field}" is ${length} characters long (starts ${JSON.stringify(raw.trim().slice(0, 24))}…); a BOJ series code is at most ${MAX_CODE_LENGTH} characters, e.g. "TK99F1000601GCQ01000". Pass one bare series code per item, as boj_get_metadata lists them.`,
    );
  }
  const prefixed = DATA_CODE_FORM.exec(raw.trim());
  if (prefixed) {
    throw validationError(
      field,
      `"${field}" (${JSON.stringify(raw)}) is a data code with the DB prefix "${prefixed[1]}"; pass the bare series code "${prefixed[2]}" and db "${prefixed[1].toUpperCase()}".`,
    );
  }
  const value = checkValue(field, raw, '"TK99F1000601GCQ01000"');
  if (value.includes(",")) {
    throw validationError(
      field,
      `"${field}" (${JSON.stringify(value)}) contains a comma; pass each series code as its own list item: ${JSON.stringify(value.split(",").map((c) => c.trim()))}.`,
    );
  }
  return value;
}

function checkLayer(raw: string | number, index: number): string {
  const field = `layers[${index}]`;
  const value = String(raw).trim();
  if (value === "*") return value;
  if (/^\d+$/.test(value) && Number(value) >= 1 && Number.isSafeInteger(Number(value))) return String(Number(value));
  throw validationError(
    field,
    `"${field}" (${JSON.stringify(raw)}) must be "*" (any) or a positive integer such as "1"; layer positions start at 1.`,
  );
}

function checkFrequency(raw: string): Frequency {
  const value = raw.trim().toUpperCase();
  if (value in FREQUENCY_INFO) return value as Frequency;
  const short = LONG_FREQUENCY_NAMES[value] ?? (value.startsWith("WEEKLY") ? "W" : undefined);
  throw validationError(
    "frequency",
    short
      ? `"frequency" (${JSON.stringify(raw)}) is BOJ's output name; requests take the short code "${short}".`
      : `"frequency" (${JSON.stringify(raw)}) must be one of CY, FY, CH, FH, Q, M, W, D.`,
  );
}

/** Allowed two-digit suffixes after the year: half-years 01–02, quarters 01–04, months 01–12. */
const SUFFIX_MAX: Record<Frequency, number> = { CY: 0, FY: 0, CH: 2, FH: 2, Q: 4, M: 12, W: 12, D: 12 };

/**
 * One period value. With a known frequency (layer API) the format must fit it exactly; without
 * one (code API, where the series decide) YYYY or YYYYXX with XX 01–12 is accepted, as BOJ does.
 */
export function checkPeriod(field: string, raw: string | number, frequency?: Frequency): string {
  const value = String(raw).trim();
  const show = JSON.stringify(String(raw));
  const expected = frequency
    ? `${FREQUENCY_INFO[frequency].period_format} for frequency ${frequency} (e.g. "${FREQUENCY_INFO[frequency].example}")`
    : `YYYY for annual series or YYYYXX for half-year (01-02), quarter (01-04) or month (01-12), e.g. "202401"`;
  if (!/^\d+$/.test(value)) {
    throw validationError(field, `"${field}" (${show}) must contain digits only: ${expected}.`);
  }
  if (value.length === 8 && (!frequency || frequency === "D" || frequency === "W")) {
    throw validationError(
      field,
      `"${field}" (${show}) looks like a day; BOJ takes months for daily and weekly data: use YYYYMM, e.g. "${value.slice(0, 6)}".`,
    );
  }
  const annual = frequency === "CY" || frequency === "FY";
  const wantedLength = frequency ? (annual ? [4] : [6]) : [4, 6];
  if (!wantedLength.includes(value.length)) {
    throw validationError(field, `"${field}" (${show}) has the wrong length: ${expected}.`);
  }
  const year = Number(value.slice(0, 4));
  if (year < 1850 || year > 2050) {
    throw validationError(field, `"${field}" (${show}) has year ${year}; BOJ accepts years from 1850 to 2050.`);
  }
  if (value.length === 6) {
    const suffix = Number(value.slice(4));
    const max = frequency ? SUFFIX_MAX[frequency] : 12;
    if (suffix < 1 || suffix > max) {
      throw validationError(
        field,
        `"${field}" (${show}) ends in ${value.slice(4)}, which is not a valid period: ${expected}.`,
      );
    }
  }
  return value;
}

function checkRange(args: PeriodArgs, frequency?: Frequency): { start?: string; end?: string } {
  const start = args.start_date === undefined ? undefined : checkPeriod("start_date", args.start_date, frequency);
  const end = args.end_date === undefined ? undefined : checkPeriod("end_date", args.end_date, frequency);
  if (start !== undefined && end !== undefined) {
    if (start.length !== end.length) {
      throw validationError(
        "end_date",
        `"start_date" (${start}) and "end_date" (${end}) must use the same format; write both as YYYY or both as YYYYXX.`,
      );
    }
    if (start > end) {
      throw validationError(
        "start_date",
        `"start_date" (${start}) is after "end_date" (${end}); swap them or widen the range.`,
      );
    }
  }
  return { start, end };
}

function normaliseFormat(format: string | undefined): "json" | "csv" {
  return format?.toLowerCase() === "csv" ? "csv" : "json";
}

function normaliseLang(lang: string | undefined): "jp" | "en" {
  return lang?.toLowerCase() === "en" ? "en" : "jp";
}

/** format and lang go first, as in the manual's examples; only the ones the caller set. */
function leadingParams(args: CommonArgs): [string, string][] {
  const params: [string, string][] = [];
  if (args.format !== undefined) params.push(["format", normaliseFormat(args.format)]);
  if (args.lang !== undefined) params.push(["lang", normaliseLang(args.lang)]);
  return params;
}

function trailingParams(
  range: { start?: string; end?: string },
  startPosition: number | undefined,
): [string, string][] {
  const params: [string, string][] = [];
  if (range.start !== undefined) params.push(["startDate", range.start]);
  if (range.end !== undefined) params.push(["endDate", range.end]);
  if (startPosition !== undefined) params.push(["startPosition", String(startPosition)]);
  return params;
}

/** Refuses a code list whose `code` parameter would pass MAX_CODE_PARAM_LENGTH, naming the first code past it. */
function checkCodeParamLength(codes: string[]): void {
  let total = 0;
  for (const [index, code] of codes.entries()) {
    total += (index > 0 ? 1 : 0) + encodeURIComponent(code).length;
    if (total > MAX_CODE_PARAM_LENGTH) {
      throw validationError(
        `codes[${index}]`,
        `"codes" is too long for one request: up to "codes[${index}]" the codes take more than ${MAX_CODE_PARAM_LENGTH} characters of URL; send codes[0] to codes[${index - 1}] in this call and the remaining ${codes.length - index} in another.`,
      );
    }
  }
}

export function buildCodeRequest(args: CodeArgs): BojRequest {
  const db = checkDb(args.db);
  const codes = args.codes.map(checkCode);
  checkCodeParamLength(codes);
  const range = checkRange(args);
  return {
    endpoint: "getDataCode",
    params: [
      ...leadingParams(args),
      ["db", db],
      ["code", codes.join(",")],
      ...trailingParams(range, args.start_position),
    ],
    format: normaliseFormat(args.format),
    lang: normaliseLang(args.lang),
  };
}

export function buildLayerRequest(args: LayerArgs): BojRequest {
  const db = checkDb(args.db);
  const frequency = checkFrequency(args.frequency);
  const layers = args.layers.map(checkLayer);
  const range = checkRange(args, frequency);
  return {
    endpoint: "getDataLayer",
    params: [
      ...leadingParams(args),
      ["db", db],
      ["frequency", frequency],
      ["layer", layers.join(",")],
      ...trailingParams(range, args.start_position),
    ],
    format: normaliseFormat(args.format),
    lang: normaliseLang(args.lang),
  };
}

export function buildMetadataRequest(args: CommonArgs): BojRequest {
  const db = checkDb(args.db);
  return {
    endpoint: "getMetadata",
    params: [...leadingParams(args), ["db", db]],
    format: normaliseFormat(args.format),
    lang: normaliseLang(args.lang),
  };
}

/** `/api/v1/getDataCode?db=CO&code=A,B`: commas and `*` stay readable; everything else is percent-encoded. */
export function requestPath(request: BojRequest): string {
  const query = request.params
    .map(([key, value]) => `${key}=${encodeURIComponent(value).replaceAll("%2C", ",")}`)
    .join("&");
  return `/api/v1/${request.endpoint}?${query}`;
}
