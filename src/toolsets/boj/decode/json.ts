/**
 * Decoding BOJ's JSON bodies (docs/contracts/boj.md "Upstream facts") into the structured output.
 * valibot checks the envelope and each series object; the parallel SURVEY_DATES / VALUES arrays,
 * which hold nearly all of the data, are walked by hand since each item needs converting anyway.
 */
import * as v from "valibot";
import { decodeError } from "../errors.ts";
import type { MetadataEntry, MetadataOutput, Series } from "../schemas.ts";
import { MAX_PAGE_POINTS, MAX_PAGE_SERIES, tooManyPoints, tooManySeries } from "./limits.ts";
import { layerField, nextPositionField, statusField, surveyDateField, textField, valueField } from "./fields.ts";
import { assertSuccess, buildMeta, type DataKind, type ParameterEcho, parameterEcho } from "./shape.ts";

const scalar = v.optional(v.nullable(v.union([v.string(), v.number(), v.boolean()])));

const envelopeSchema = v.looseObject({
  STATUS: v.union([v.number(), v.string()], "STATUS must be a number"),
  MESSAGEID: scalar,
  MESSAGE: scalar,
  DATE: scalar,
  DB: scalar,
  PARAMETER: v.optional(v.nullable(v.record(v.string(), scalar))),
  NEXTPOSITION: scalar,
  // Each row is checked by seriesSchema / metadataEntry; here only that it is a list.
  RESULTSET: v.optional(v.nullable(v.array(v.unknown(), "RESULTSET must be an array"))),
});

const seriesSchema = v.looseObject({
  SERIES_CODE: v.pipe(v.string("SERIES_CODE must be text"), v.minLength(1, "SERIES_CODE must not be empty")),
  NAME_OF_TIME_SERIES_J: scalar,
  NAME_OF_TIME_SERIES: scalar,
  UNIT_J: scalar,
  UNIT: scalar,
  FREQUENCY: scalar,
  CATEGORY_J: scalar,
  CATEGORY: scalar,
  LAST_UPDATE: scalar,
  // Checked by hand in decodeSeries: validating 60,000 array items through a schema would only copy them.
  VALUES: v.optional(v.unknown()),
});

type Envelope = v.InferOutput<typeof envelopeSchema>;

export interface DecodedData {
  meta: ReturnType<typeof buildMeta>;
  parameter: ParameterEcho;
  next_position: number | null;
  series_count: number;
  series: Series[];
}

/** BOJ writes upper-case keys; lower- or mixed-case ones are accepted too, as the manual calls names case-insensitive. */
function upperKeys(object: Record<string, unknown>): Record<string, unknown> {
  for (const key in object) {
    if (key !== key.toUpperCase()) {
      const copy: Record<string, unknown> = {};
      for (const [k, value] of Object.entries(object)) copy[k.toUpperCase()] = value;
      return copy;
    }
  }
  return object;
}

function parseJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw decodeError(`The body is not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw decodeError("The JSON body is not an object.");
  return upperKeys(value as Record<string, unknown>);
}

function parseEnvelope(text: string): Envelope {
  const parsed = v.safeParse(envelopeSchema, parseJson(text));
  if (!parsed.success) throw decodeError(describe("The JSON body", parsed.issues));
  const envelope = parsed.output;
  // STATUS first: an error body has nothing else, and its STATUS is what the caller needs.
  assertSuccess(buildMeta(statusField(envelope.STATUS), envelope.MESSAGEID, envelope.MESSAGE, envelope.DATE));
  return envelope;
}

function describe(what: string, issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  const path = (issue.path ?? []).map((item) => String(item.key)).join(".");
  return `${what} does not have BOJ's layout${path ? ` at ${path}` : ""}: ${issue.message}.`;
}

export function decodeDataJson(text: string, kind: DataKind): DecodedData {
  const envelope = parseEnvelope(text);
  const meta = buildMeta(statusField(envelope.STATUS), envelope.MESSAGEID, envelope.MESSAGE, envelope.DATE);
  const rows = envelope.RESULTSET ?? [];
  // Before any series is decoded, and each series' points before they become objects.
  if (rows.length > MAX_PAGE_SERIES) throw tooManySeries(rows.length.toLocaleString("en-US"));
  const series: Series[] = new Array(rows.length);
  const dateText = surveyDateCache();
  let room = MAX_PAGE_POINTS;
  for (let index = 0; index < rows.length; index++) {
    series[index] = decodeSeries(rows[index], index, dateText, room);
    room -= series[index].points.length;
  }
  return {
    meta,
    parameter: parameterEcho(kind, Object.entries(envelope.PARAMETER ?? {})),
    next_position: nextPositionField(envelope.NEXTPOSITION),
    series_count: series.length,
    series,
  };
}

function asObject(row: unknown, where: string): Record<string, unknown> {
  if (typeof row !== "object" || row === null || Array.isArray(row)) throw decodeError(`${where} is not an object.`);
  return row as Record<string, unknown>;
}

/** `room`: the points the page may still hold (MAX_PAGE_POINTS less the series before). */
function decodeSeries(row: unknown, index: number, dateText: (date: unknown) => string | null, room: number): Series {
  const upper = upperKeys(asObject(row, `RESULTSET[${index}]`));
  if (typeof upper.VALUES === "object" && upper.VALUES !== null && !Array.isArray(upper.VALUES)) {
    upper.VALUES = upperKeys(upper.VALUES as Record<string, unknown>);
  }
  const parsed = v.safeParse(seriesSchema, upper);
  if (!parsed.success) throw decodeError(describe(`RESULTSET[${index}]`, parsed.issues));
  const item = parsed.output;
  const code = item.SERIES_CODE;
  const { dates, values } = pointArrays(item.VALUES, code);
  if (dates.length !== values.length) {
    // Pairing them anyway would shift values onto the wrong dates.
    throw decodeError(
      `Series ${code} has ${dates.length} SURVEY_DATES but ${values.length} VALUES; they must pair up one to one.`,
    );
  }
  if (dates.length > room) throw tooManyPoints();
  const points = new Array(dates.length);
  for (let i = 0; i < dates.length; i++) {
    const value = values[i];
    points[i] = {
      survey_date: dateText(dates[i]),
      // A finite number is taken as it is; anything else (1e400 parses to Infinity) goes to the check.
      value:
        typeof value === "number" && Number.isFinite(value)
          ? value
          : valueField(value, () => `Series ${code}, point ${i + 1},`),
    };
  }
  return {
    series_code: code,
    name_of_time_series_j: textField(item.NAME_OF_TIME_SERIES_J),
    name_of_time_series: textField(item.NAME_OF_TIME_SERIES),
    unit_j: textField(item.UNIT_J),
    unit: textField(item.UNIT),
    frequency: textField(item.FREQUENCY),
    category_j: textField(item.CATEGORY_J),
    category: textField(item.CATEGORY),
    last_update: textField(item.LAST_UPDATE),
    points,
  };
}

/** The series of a page share their survey dates, so each numeric date is turned into text once. */
function surveyDateCache(): (date: unknown) => string | null {
  const cache = new Map<number, string>();
  return (date) => {
    if (typeof date !== "number") return surveyDateField(date);
    let text = cache.get(date);
    if (text === undefined) cache.set(date, (text = String(date)));
    return text;
  };
}

function pointArrays(container: unknown, code: string): { dates: unknown[]; values: unknown[] } {
  if (container === null || container === undefined) return { dates: [], values: [] };
  if (typeof container !== "object" || Array.isArray(container))
    throw decodeError(`Series ${code}: VALUES must be an object with SURVEY_DATES and VALUES arrays.`);
  const { SURVEY_DATES: dates = [], VALUES: values = [] } = container as Record<string, unknown>;
  if (!Array.isArray(dates ?? [])) throw decodeError(`Series ${code}: VALUES.SURVEY_DATES must be an array.`);
  if (!Array.isArray(values ?? [])) throw decodeError(`Series ${code}: VALUES.VALUES must be an array.`);
  return { dates: (dates ?? []) as unknown[], values: (values ?? []) as unknown[] };
}

export function decodeMetadataJson(text: string): Omit<MetadataOutput, "raw"> {
  const envelope = parseEnvelope(text);
  const meta = buildMeta(statusField(envelope.STATUS), envelope.MESSAGEID, envelope.MESSAGE, envelope.DATE);
  const rows = envelope.RESULTSET ?? [];
  const entries = rows.map((row, index) =>
    metadataEntry(upperKeys(asObject(row, `RESULTSET[${index}]`)), () => `RESULTSET[${index}]`),
  );
  return { meta, db: textField(envelope.DB), entries_count: entries.length, entries };
}

/** One metadata row from either format (CSV rows are turned into the same key → cell record). */
export function metadataEntry(row: Record<string, unknown>, where: () => string): MetadataEntry {
  const layer = (n: number) => layerField(row[`LAYER${n}`], () => `${where()} LAYER${n}`);
  return {
    series_code: textField(row.SERIES_CODE),
    name_of_time_series_j: textField(row.NAME_OF_TIME_SERIES_J),
    name_of_time_series: textField(row.NAME_OF_TIME_SERIES),
    unit_j: textField(row.UNIT_J),
    unit: textField(row.UNIT),
    frequency: textField(row.FREQUENCY),
    category_j: textField(row.CATEGORY_J),
    category: textField(row.CATEGORY),
    layer1: layer(1),
    layer2: layer(2),
    layer3: layer(3),
    layer4: layer(4),
    layer5: layer(5),
    start_of_the_time_series: textField(row.START_OF_THE_TIME_SERIES),
    end_of_the_time_series: textField(row.END_OF_THE_TIME_SERIES),
    last_update: textField(row.LAST_UPDATE),
    notes_j: textField(row.NOTES_J),
    notes: textField(row.NOTES),
  };
}
