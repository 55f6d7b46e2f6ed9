/**
 * valibot schemas for the boj tools' arguments and structured results. They carry only what
 * JSON Schema can say (types, patterns, lengths, ranges): meaning-level checks that need several
 * fields at once live in `validation.ts`, so `tools/list` shows exactly what is enforced here.
 */
import * as v from "valibot";
import { ENDPOINTS, FORMATS, FREQUENCIES, LANGUAGES, LONG_FREQUENCY_NAMES, MESSAGE_STATUSES } from "./catalog.ts";

/**
 * A closed set of words accepted in any letter case. `tools/list` shows it as a JSON Schema
 * `enum` of the canonical spellings (the metadata comes before the transform, which is where the
 * input-mode conversion stops); the value is then folded to that case and checked against the
 * set, so "CSV" and "Csv" pass while an unknown word gets a message listing the valid ones.
 */
function closedSet<const T extends string>(
  words: readonly T[],
  fold: "lower" | "upper",
  unknown: (input: string) => string,
  description: string,
) {
  return v.pipe(
    v.string(),
    v.metadata({ enum: [...words] }),
    v.description(description),
    v.transform((input: string) => (fold === "lower" ? input.trim().toLowerCase() : input.trim().toUpperCase())),
    v.picklist(words, (issue) => unknown(String(issue.input))),
  );
}

const oneOf = (words: readonly string[]) => words.map((word) => `"${word}"`).join(", ");

const db = v.pipe(
  v.string(),
  v.minLength(1, "must be a database code such as FM08 or CO (see boj_list_databases)"),
  v.maxLength(16, "must be a database code such as FM08 or CO (see boj_list_databases)"),
  v.description(
    "Database code from BOJ appendix A, e.g. FM08 (foreign exchange) or CO (TANKAN); any letter case. boj_list_databases lists them all.",
  ),
);

const format = v.optional(
  closedSet(
    FORMATS,
    "lower",
    () => 'must be "json" or "csv" (any letter case)',
    'Upstream format, "json" (default) or "csv"; any letter case. Both give the same result.',
  ),
);

const lang = v.optional(
  closedSet(
    LANGUAGES,
    "lower",
    () => 'must be "jp" or "en" (any letter case)',
    'Language of names, units and messages: "jp" (BOJ default) or "en"; any letter case.',
  ),
);

/** BOJ's short frequency codes; the long names BOJ prints (MONTHLY) get a message naming the code. */
export const frequencyCode = (description: string) =>
  closedSet(
    FREQUENCIES,
    "upper",
    (input) => {
      const short = LONG_FREQUENCY_NAMES[input] ?? (input.startsWith("WEEKLY") ? "W" : undefined);
      return short
        ? `must be the short code "${short}", not ${input} (BOJ prints long names, but requests take the short code)`
        : `must be one of ${oneOf(FREQUENCIES)} (the short code: M for monthly, not MONTHLY; any letter case)`;
    },
    description,
  );

const period = (which: "start" | "end") =>
  v.optional(
    v.pipe(
      v.union(
        [v.string(), v.pipe(v.number(), v.integer())],
        `must be a period as text, e.g. "2024" (CY/FY), "202401" (half-year, quarter or month)`,
      ),
      v.description(
        which === "start"
          ? "First period: YYYY for CY/FY, YYYYHH (01-02) for CH/FH, YYYYQQ (01-04) for Q, YYYYMM for M, W and D. Years 1850-2050. Omit to start at the first period on record: points come oldest first, so for recent values (the latest, the last year) set it, e.g. a few periods before the series' last_period, or a daily series pages through decades first."
          : "Last period, same format as start_date. Omit to run to the latest period.",
      ),
    ),
  );

const startPosition = v.optional(
  v.pipe(
    v.number(),
    v.integer("must be a whole number"),
    v.minValue(1, "must be 1 or more: pass the next_position of the previous page"),
    v.description(
      "Resume a result that hit BOJ's per-call limit (250 series / 60,000 points): the next_position of the previous page.",
    ),
  ),
);

const includeRaw = v.optional(
  v.pipe(v.boolean(), v.description("Also return the decoded upstream body as `raw`. Default false; large.")),
  false,
);

/** The optional arguments both data tools share. */
const dataPageOptions = {
  format,
  lang,
  start_date: period("start"),
  end_date: period("end"),
  start_position: startPosition,
  include_raw: includeRaw,
};

export const getDataCodeInput = v.strictObject({
  db,
  codes: v.pipe(
    v.array(v.string("each code must be text")),
    v.minLength(1, "must list at least one series code"),
    v.maxLength(1250, "must list at most 1,250 series codes; split the request"),
    v.description(
      'Series codes of one frequency, one per item, without the DB prefix: ["TK99F1000601GCQ01000"], not "CO\'TK99F1000601GCQ01000". Up to 1,250 codes; 250 series come back per call.',
    ),
  ),
  ...dataPageOptions,
});

export const getDataLayerInput = v.strictObject({
  db,
  frequency: frequencyCode(
    "Frequency: CY (calendar year), FY (fiscal year), CH/FH (half-years), Q, M, W (all weekly kinds), D; any letter case.",
  ),
  layers: v.pipe(
    v.array(v.union([v.string(), v.pipe(v.number(), v.integer())], 'each layer must be "*" or a positive integer')),
    v.minLength(1, 'must have 1 to 5 levels, e.g. ["1"] or ["1","*","2"]'),
    v.maxLength(5, "must have at most 5 levels (BOJ's hierarchy is 5 deep)"),
    v.description(
      'Hierarchy path, level 1 first, 1 to 5 items, each "*" (any) or a positive integer: ["1","*"]. Positions come from boj_get_metadata (layer1..layer5).',
    ),
  ),
  ...dataPageOptions,
});

/** A `limit` argument: a whole number from 1 to `max`. */
export const pageLimit = (max: number, description: string) =>
  v.pipe(
    v.number(),
    v.integer("must be a whole number"),
    v.minValue(1, "must be 1 or more"),
    v.maxValue(max, `must be at most ${max}`),
    v.description(description),
  );

/** Largest `limit` of boj_get_metadata; BOJ's biggest databases have a few thousand entries. */
export const METADATA_LIMIT_MAX = 10_000;

export const getMetadataInput = v.strictObject({
  db,
  format,
  lang,
  include_raw: includeRaw,
  query: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(200, "must be at most 200 characters: a few words of a series name or code"),
      v.description(
        'Only entries whose series code or name (Japanese or English) contains every word of this text, matched as boj_search_series matches (case, width and punctuation do not matter; currency codes such as USD match BOJ\'s "US.Dollar"), e.g. "USD spot", "預金", or a code such as "FXERD01". Headings match by name.',
      ),
    ),
  ),
  frequency: v.optional(
    frequencyCode(
      "Only series of this frequency: CY, FY, CH, FH, Q, M, W, D (any letter case); headings are left out.",
    ),
  ),
  layer: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^\s*(\*|[1-9]\d*)\s*(,\s*(\*|[1-9]\d*)\s*){0,4}$/,
        'must be 1 to 5 comma-separated levels, each "*" or a positive integer, e.g. "1" or "1,2"',
      ),
      v.description(
        'Only entries under this hierarchy position, level 1 first: "1,2" keeps entries with layer1 = 1 and layer2 = 2; "*" matches any value at its level. The same positions boj_get_data_layer takes.',
      ),
    ),
  ),
  offset: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be a whole number"),
      v.minValue(0, "must be 0 or more: pass the next_offset of the previous call"),
      v.description("Skip this many matching entries; pass next_offset from the previous call to continue. Default 0."),
    ),
    0,
  ),
  limit: v.optional(
    pageLimit(
      METADATA_LIMIT_MAX,
      "Return at most this many matching entries (default: all). A page holds as many of them as fit the output budget, in the text and structuredContent alike: truncated then says so and next_offset continues right after them.",
    ),
  ),
});

export const listDatabasesInput = v.strictObject({});

export const getParameterCatalogInput = v.strictObject({
  endpoint: v.optional(
    v.pipe(
      v.picklist(["all", ...ENDPOINTS], 'must be "all", "get_data_code", "get_data_layer" or "get_metadata"'),
      v.description("Which tool's parameters to describe; default all."),
    ),
    "all",
  ),
});

export const getMessageCatalogInput = v.strictObject({
  status: v.optional(
    v.pipe(
      v.picklist([...MESSAGE_STATUSES], "must be 200, 400, 500 or 503"),
      v.description("Only messages with this STATUS (200, 400, 500, 503); omit for all 24."),
    ),
  ),
});

// ---------------------------------------------------------------------------------------------
// Structured results

const text = v.nullable(v.string());

const meta = v.object({ status: v.number(), message_id: text, message: text, date: text });

const commonEcho = {
  format: text,
  lang: text,
  db: text,
  start_date: text,
  end_date: text,
  start_position: text,
  /** PARAMETER keys this version does not know, kept so nothing BOJ says is lost. */
  extras: v.record(v.string(), text),
};

/** Present when the answer came from mcpkit's BOJ cache instead of a new request to BOJ. */
const cached = v.optional(
  v.object({
    age_seconds: v.number(),
    fetched_at: v.string(),
  }),
);

const point = v.object({ survey_date: text, value: v.nullable(v.number()) });

/** What BOJ says about a series, in both its data and its metadata answers. */
const seriesDescription = {
  name_of_time_series_j: text,
  name_of_time_series: text,
  unit_j: text,
  unit: text,
  frequency: text,
  category_j: text,
  category: text,
  last_update: text,
};

const series = v.object({
  series_code: v.string(),
  ...seriesDescription,
  points: v.array(point),
});

const dataOutput = <E extends v.ObjectEntries>(echo: E) =>
  v.object({
    meta,
    parameter: v.object(echo),
    next_position: v.nullable(v.number()),
    series_count: v.number(),
    series: v.array(series),
    raw: v.optional(v.string()),
    cached,
    /** Present when the page was shortened to fit the output budget: what it holds and the call for the rest. */
    truncated: v.optional(
      v.object({
        shown_series: v.optional(v.number()),
        total_series: v.optional(v.number()),
        continuation: v.string(),
      }),
    ),
  });

export const getDataCodeOutput = dataOutput(commonEcho);

export const getDataLayerOutput = dataOutput({
  ...commonEcho,
  frequency: text,
  layer1: text,
  layer2: text,
  layer3: text,
  layer4: text,
  layer5: text,
});

const layerNumber = v.nullable(v.number());

const metadataEntry = v.object({
  series_code: text,
  ...seriesDescription,
  layer1: layerNumber,
  layer2: layerNumber,
  layer3: layerNumber,
  layer4: layerNumber,
  layer5: layerNumber,
  start_of_the_time_series: text,
  end_of_the_time_series: text,
  notes_j: text,
  notes: text,
});

export const getMetadataOutput = v.object({
  meta,
  db: text,
  /** Entries returned in this result (after the filters and paging). */
  entries_count: v.number(),
  entries: v.array(metadataEntry),
  /** Entries in the whole database, before filters. */
  total_count: v.optional(v.number()),
  /** Entries that pass the filters, before offset and limit. */
  matched_count: v.optional(v.number()),
  offset: v.optional(v.number()),
  /** The offset that continues after this result, or null when nothing is left. */
  next_offset: v.optional(v.nullable(v.number())),
  raw: v.optional(v.string()),
  cached,
  /** Present when the page is empty because offset is past the matching entries: which offsets exist. */
  notice: v.optional(v.string()),
  /** Present when the page holds fewer entries than asked for, to fit the output budget, and the call for the rest. */
  truncated: v.optional(
    v.object({
      shown_entries: v.number(),
      total_entries: v.number(),
      continuation: v.string(),
    }),
  ),
});

const source = { source_document: v.string(), source_date: v.string() };

export const listDatabasesOutput = v.object({
  ...source,
  count: v.number(),
  databases: v.array(
    v.object({
      code: v.string(),
      name_ja: v.string(),
      name_en: v.string(),
      category_ja: v.string(),
      category_en: v.string(),
    }),
  ),
});

const endpointRequirement = v.picklist(["required", "optional", "unsupported"]);

export const getParameterCatalogOutput = v.object({
  ...source,
  endpoint_scope: v.string(),
  general_notes: v.array(v.string()),
  format_codes: v.array(v.string()),
  language_codes: v.array(v.string()),
  frequency_codes: v.array(
    v.object({ code: v.string(), name: v.string(), period_format: v.string(), example: v.string() }),
  ),
  parameters: v.array(
    v.object({
      name: v.string(),
      tool_argument: v.string(),
      description: v.string(),
      allowed_values: v.string(),
      requirements: v.object({
        get_data_code: endpointRequirement,
        get_data_layer: endpointRequirement,
        get_metadata: endpointRequirement,
      }),
      notes: v.array(v.string()),
    }),
  ),
  limits: v.array(
    v.object({ api_scope: v.string(), target: v.string(), max_value: v.number(), overflow_behavior: v.string() }),
  ),
  layer_rules: v.array(v.string()),
});

export const getMessageCatalogOutput = v.object({
  ...source,
  status_filter: v.nullable(v.number()),
  count: v.number(),
  messages: v.array(v.object({ status: v.number(), message_id: v.string(), message: v.string(), note: v.string() })),
});

export type DataPoint = v.InferOutput<typeof point>;
export type Series = v.InferOutput<typeof series>;
export type Meta = v.InferOutput<typeof meta>;
export type CodeOutput = v.InferOutput<typeof getDataCodeOutput>;
export type LayerOutput = v.InferOutput<typeof getDataLayerOutput>;
export type MetadataEntry = v.InferOutput<typeof metadataEntry>;
export type MetadataOutput = v.InferOutput<typeof getMetadataOutput>;

export type CodeArgs = v.InferOutput<typeof getDataCodeInput>;
export type LayerArgs = v.InferOutput<typeof getDataLayerInput>;
export type MetadataArgs = v.InferOutput<typeof getMetadataInput>;
export type Cached = NonNullable<v.InferOutput<typeof cached>>;
