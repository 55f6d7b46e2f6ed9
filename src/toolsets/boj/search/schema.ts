/** boj_search_series's arguments and structured result (docs/contracts/boj.md "boj_search_series"). */
import * as v from "valibot";
import { frequencyCode, pageLimit } from "../schemas.ts";
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from "./limits.ts";

const dbCode = v.pipe(v.string(), v.maxLength(16, "must be a database code such as FM08 (see boj_list_databases)"));

export const searchSeriesInput = v.strictObject({
  query: v.pipe(
    v.string(),
    v.maxLength(200, "must be at most 200 characters: a few words of a series name, or a series code"),
    v.description(
      'Words of a series name in English or Japanese, in any order, or a series code: e.g. "dollar yen spot", "ドル 円", "TANKAN business conditions manufacturing", "FXERD01". Case, full-width/half-width forms and punctuation do not matter; parts of words match; currency codes (USD, JPY, EUR…) match BOJ\'s spelled-out names ("US.Dollar/Yen").',
    ),
  ),
  db: v.optional(
    v.pipe(
      v.union(
        [dbCode, v.pipe(v.array(dbCode), v.maxLength(50, "must list at most 50 databases"))],
        "must be a database code or a list of them",
      ),
      v.description(
        'Only these databases: one code ("FM08") or a list (["FM08","FM09"]); any letter case. Default: all 50.',
      ),
    ),
  ),
  frequency: v.optional(frequencyCode("Only series of this frequency: CY, FY, CH, FH, Q, M, W, D (any letter case).")),
  category: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(100, "must be at most 100 characters"),
      v.description(
        'Only series whose category (English or Japanese) contains these words, e.g. "TANKAN" or "外国為替".',
      ),
    ),
  ),
  limit: v.optional(
    pageLimit(SEARCH_LIMIT_MAX, `Hits per page, 1 to ${SEARCH_LIMIT_MAX} (default ${SEARCH_LIMIT_DEFAULT}).`),
    SEARCH_LIMIT_DEFAULT,
  ),
  cursor: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(1000, "must be the next_cursor of a previous call, unchanged"),
      v.description("next_cursor of the previous call, with the same other arguments, for the next page."),
    ),
  ),
});

export type SearchArgs = v.InferOutput<typeof searchSeriesInput>;

const text = v.nullable(v.string());

const hit = v.object({
  db: v.string(),
  series_code: v.string(),
  name: text,
  name_ja: text,
  unit: text,
  unit_ja: text,
  frequency: text,
  category: text,
  category_ja: text,
  first_period: text,
  last_period: text,
  last_update: text,
  /** The call that fetches this series' data. */
  next_call: v.object({ tool: v.string(), arguments: v.object({ db: v.string(), codes: v.array(v.string()) }) }),
});

export const searchSeriesOutput = v.object({
  query: v.string(),
  hits_count: v.number(),
  hits: v.array(hit),
  /** Pass as `cursor`, with the same other arguments, for the next page; null when nothing is left. */
  next_cursor: v.nullable(v.string()),
  catalog: v.object({
    databases_total: v.number(),
    databases_indexed: v.number(),
    series_count: v.number(),
    /** The oldest indexing time among the indexed databases (ISO 8601), or null when none is indexed yet. */
    as_of: text,
    stale: v.boolean(),
    refreshing: v.boolean(),
    /** Databases not indexed yet: their series cannot be hits until then. */
    missing: v.array(v.string()),
    failed: v.array(v.object({ db: v.string(), failure: v.string() })),
    /** Set when databases are missing: ask again after about this many seconds. */
    retry_after_s: v.optional(v.number()),
  }),
  truncated: v.optional(v.object({ shown_hits: v.number(), continuation: v.string() })),
});

export type SearchOutput = v.InferOutput<typeof searchSeriesOutput>;
export type SearchHit = SearchOutput["hits"][number];
