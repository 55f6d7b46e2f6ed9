/**
 * From a raw HTTP answer to structured output, whatever BOJ (or a gateway in front of it) sent:
 * JSON is decoded as JSON even when CSV was asked for (BOJ's errors are always JSON); a non-JSON
 * body with HTTP ≥ 500 is a transport failure, so it is retried; with HTTP 4xx it is an
 * API_ERROR carrying the HTTP status and an excerpt. The same holds for a JSON body that is not
 * BOJ's (a gateway's own JSON error).
 */
import { jsonShapeOver } from "../../../core/json-depth.ts";
import { BojError, apiError, decodeError, transportError } from "../errors.ts";
import type { MetadataOutput } from "../schemas.ts";
import type { BojRequest } from "../validation.ts";
import { decodeCsvText, decodeUtf8, excerpt, looksLikeJson, type RawBody } from "./body.ts";
import { decodeDataCsv, decodeMetadataCsv } from "./csv.ts";
import { type DecodedData, decodeDataJson, decodeMetadataJson } from "./json.ts";
import {
  MAX_JSON_DEPTH,
  MAX_METADATA_JSON_VALUES,
  MAX_PAGE_JSON_VALUES,
  tooDeep,
  tooManyEntries,
  tooManyValues,
} from "./limits.ts";
import type { DataKind } from "./shape.ts";

export type { RawBody } from "./body.ts";

export interface Decoded<T> {
  output: T;
  /** The decoded body text, for `include_raw`; computed only when asked for. */
  raw(): string;
}

type Route = { as: "json"; text: string } | { as: "csv" };

/**
 * `maxValues`: the most JSON values the answer can hold (a data page's are bounded by BOJ's paging;
 * a database's metadata is not).
 */
function route(body: RawBody, request: BojRequest, maxValues: number, tooMany = tooManyValues): Route {
  if (looksLikeJson(body.bytes)) {
    // Counted on the bytes, before the text and JSON.parse's objects are made.
    const over = jsonShapeOver(body.bytes, MAX_JSON_DEPTH, maxValues);
    if (over === "depth") throw tooDeep();
    if (over === "values") throw tooMany();
    return { as: "json", text: decodeUtf8(body.bytes, "The JSON body") };
  }
  if (body.httpStatus >= 500)
    throw transportError(`HTTP ${body.httpStatus} with a non-JSON body: ${excerpt(body.bytes)}`);
  if (body.httpStatus >= 400) throw apiError(body.httpStatus, null, excerpt(body.bytes));
  if (request.format === "csv") return { as: "csv" };
  throw decodeError(
    `Expected a JSON body (HTTP ${body.httpStatus}, ${body.contentType || "no content type"}) but got: ${excerpt(body.bytes, 200)}`,
  );
}

/**
 * A body that is not BOJ's, under an HTTP error status, came from something in front of BOJ:
 * with 5xx it is a transport failure (retried), with 4xx an API_ERROR carrying the HTTP status.
 */
function unlessGateway<T>(body: RawBody, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof BojError) || error.type !== "DECODE_ERROR" || body.httpStatus < 400) throw error;
    if (body.httpStatus >= 500)
      throw transportError(`HTTP ${body.httpStatus} with a body that is not BOJ's: ${excerpt(body.bytes)}`);
    throw apiError(body.httpStatus, null, excerpt(body.bytes));
  }
}

export function decodeDataBody(body: RawBody, request: BojRequest, kind: DataKind): Decoded<DecodedData> {
  return unlessGateway(body, () => decodeData(body, request, kind));
}

export function decodeMetadataBody(body: RawBody, request: BojRequest): Decoded<Omit<MetadataOutput, "raw">> {
  return unlessGateway(body, () => decodeMetadata(body, request));
}

function decodeData(body: RawBody, request: BojRequest, kind: DataKind): Decoded<DecodedData> {
  const routed = route(body, request, MAX_PAGE_JSON_VALUES);
  if (routed.as === "json") return { output: decodeDataJson(routed.text, kind), raw: () => routed.text };
  return { output: decodeDataCsv(body, request.lang, kind), raw: () => decodeCsvText(body, request.lang) };
}

function decodeMetadata(body: RawBody, request: BojRequest): Decoded<Omit<MetadataOutput, "raw">> {
  const routed = route(body, request, MAX_METADATA_JSON_VALUES, tooManyEntries);
  if (routed.as === "json") return { output: decodeMetadataJson(routed.text), raw: () => routed.text };
  return { output: decodeMetadataCsv(body, request.lang), raw: () => decodeCsvText(body, request.lang) };
}
