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
