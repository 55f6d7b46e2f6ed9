/**
 * The most a BOJ answer can hold (BOJ's API manual, docs/contracts/boj.md "Upstream facts" and
 * "Results"), and so how much of a body the decoders take before refusing it as not BOJ's. A
 * hostile or broken upstream at --boj-base-url could otherwise make a body under the byte cap
 * cost gigabytes: JSON.parse's objects, then one object per data point.
 */
import { BASE_URL_HINT, decodeError } from "../errors.ts";

/**
 * BOJ's JSON nests 5 levels (the envelope, RESULTSET, a series, its VALUES, their arrays);
 * metadata 3. JSON.parse of 20 MB of `[` took 878 MB, so deeper text is refused unparsed.
 */
export const MAX_JSON_DEPTH = 16;

export function tooDeep(): Error {
  return decodeError(
    `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels, and BOJ's answers nest 5, so it is not BOJ's answer: ${BASE_URL_HINT}.`,
  );
}

/**
 * Series in one data answer: BOJ refuses a request for more than 1,250 (codes, or series a layer
 * condition matches: M181007E) and pages at 250.
 */
export const MAX_PAGE_SERIES = 1_250;

/**
 * Data points in one data answer: a page holds at most 60,000 (BOJ's manual); this is 4× that,
 * and above a daily series over all of 1850–2050 (73,415 points), should BOJ answer one whole.
 */
export const MAX_PAGE_POINTS = 240_000;

/** JSON values of a data page at both caps: two a point, and 32 a series for its fields and containers. */
export const MAX_PAGE_JSON_VALUES = 2 * MAX_PAGE_POINTS + 32 * MAX_PAGE_SERIES;

const PAGE = "a BOJ page holds at most 250 series and 60,000 data points (BOJ's manual)";

/** `more`: how many the body holds, when it was counted; else "more than" the cap. */
export function tooManySeries(more = `more than ${MAX_PAGE_SERIES.toLocaleString("en-US")}`): Error {
  return decodeError(
    `The body holds ${more} series, over the ${MAX_PAGE_SERIES.toLocaleString("en-US")} mcpkit reads: ${PAGE}, so it is not BOJ's answer: ${BASE_URL_HINT}.`,
  );
}

export function tooManyPoints(more = `more than ${MAX_PAGE_POINTS.toLocaleString("en-US")}`): Error {
  return decodeError(
    `The body holds ${more} data points, over the ${MAX_PAGE_POINTS.toLocaleString("en-US")} mcpkit reads: ${PAGE}, so it is not BOJ's answer: ${BASE_URL_HINT}.`,
  );
}

export function tooManyValues(): Error {
  return decodeError(
    `The JSON body holds more than ${MAX_PAGE_JSON_VALUES.toLocaleString("en-US")} values (arrays, objects and their items), the most a page of ${MAX_PAGE_SERIES.toLocaleString("en-US")} series and ${MAX_PAGE_POINTS.toLocaleString("en-US")} data points needs: ${PAGE}, so it is not BOJ's answer: ${BASE_URL_HINT}.`,
  );
}

/**
 * Entries of one database's metadata: BOJ does not bound them, but all 50 databases together hold
 * about 157,000 series; this is about twice that in one. A body of 20,000,000 `{}` (60 MB, under
 * the 64 MiB metadata cap) took 7.8 GB to decode before it was bounded.
 */
export const MAX_METADATA_ENTRIES = 300_000;

/** JSON values of a metadata answer at that cap: an entry is an object of 18 fields; 24 leaves room. */
export const MAX_METADATA_JSON_VALUES = 24 * MAX_METADATA_ENTRIES;

export function tooManyEntries(): Error {
  return decodeError(
    `The metadata body holds more than ${MAX_METADATA_ENTRIES.toLocaleString("en-US")} entries (or their ${MAX_METADATA_JSON_VALUES.toLocaleString("en-US")} JSON values), and all of BOJ's 50 databases together hold about 157,000 series, so it is not BOJ's answer: ${BASE_URL_HINT}.`,
  );
}
