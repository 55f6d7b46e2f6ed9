/**
 * The craboj (oj-api-rs) response shapes (docs/contracts/oj.md §8), and the one place that turns
 * an HTTP response into either parsed data or the text of an `isError` result.
 *
 * Every field the upstream may send as `null` is nullable here: a problem with no title or a
 * similar-search with no rewritten query must never become a protocol error.
 */
import * as v from "valibot";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import { formatApiError, takeScalars } from "./errors.ts";
import { BASE_URL_HINT, type UpstreamResponse, decodeJsonBody } from "./http.ts";

const text = v.nullish(v.string());
/** Ids are strings, but the daily endpoint once sent the database integer. */
const identifier = v.pipe(v.union([v.string(), v.number()]), v.transform(String));

export const UpstreamProblem = v.object({
  id: identifier,
  source: text,
  slug: text,
  title: text,
  title_cn: text,
  difficulty: text,
  ac_rate: v.nullish(v.number()),
  rating: v.nullish(v.number()),
  tags: v.nullish(v.array(v.string())),
  link: text,
  content: text,
  content_cn: text,
  /** Present on daily payloads. */
  date: text,
  domain: text,
});
export type UpstreamProblem = v.InferOutput<typeof UpstreamProblem>;

/** Old daily: one DailyChallenge object. New daily (§8): `{source, date, problems[]}`. */
export const UpstreamDaily = v.union([
  v.object({ source: text, date: text, problems: v.array(UpstreamProblem) }),
  UpstreamProblem,
]);

/**
 * The crawler's 202. A wait past a day is no wait a caller can act on (a hostile `1e300` read
 * "retry after 1e+300 seconds"): it fails the schema, and the answer says "retry later".
 */
export const UpstreamDailyFetching = v.object({
  retry_after: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400)),
});

export const UpstreamSimilar = v.object({
  rewritten_query: text,
  results: v.array(
    v.object({
      source: v.string(),
      id: identifier,
      title: text,
      difficulty: text,
      link: text,
      similarity: v.number(),
    }),
  ),
});

export const UpstreamResolve = v.object({
  source: text,
  id: v.nullish(identifier),
  problem: v.nullish(UpstreamProblem),
});

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const UpstreamStatus = v.object({
  version: text,
  platforms: v.array(v.object({ source: v.string(), total: count, missing_content: count, not_embedded: count })),
});

/** How much of a validation message a protocol error quotes. */
const MAX_ISSUE_SCALARS = 200;

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * 200 with a JSON Content-Type → the parsed, validated body. Any other status → the RFC 7807 or
 * fallback message (§5). A 200 whose Content-Type is not JSON is never parsed: it is reported with
 * the fallback template like any non-RFC 7807 body.
 */
export function expectJson<S extends v.GenericSchema>(
  response: UpstreamResponse,
  schema: S,
): Outcome<v.InferOutput<S>> {
  if (response.status !== 200 || !response.isJson) return { ok: false, message: formatApiError(response) };
  return { ok: true, value: parseBody(response, schema) };
}

/** Decodes and validates a JSON body; anything that does not fit is a protocol error (§5). */
export function parseBody<S extends v.GenericSchema>(response: UpstreamResponse, schema: S): v.InferOutput<S> {
  const parsed = v.safeParse(schema, decodeJsonBody(response));
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const path = (issue.path ?? []).map((item) => String(item.key)).join(".");
  // valibot quotes the value it received, which may be most of a 1 MiB body: keep messages short.
  const message = takeScalars(issue.message, MAX_ISSUE_SCALARS);
  throw new ProtocolError(
    ErrorCode.InternalError,
    `the craboj server at ${response.host} answered ${response.method} ${response.path} with JSON of an unexpected shape ` +
      `(${path ? `"${path}": ` : ""}${message}${message.length < issue.message.length ? "…" : ""}): ${BASE_URL_HINT}`,
  );
}
