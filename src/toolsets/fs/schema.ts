/**
 * Argument and result schemas of `fs_search_by_time`, written to produce exactly the JSON Schemas
 * of docs/contracts/fs-search-by-time.md through `@valibot/to-json-schema`; only descriptions are
 * ours (every argument has one, so a model knows what each does).
 */
import * as v from "valibot";

export const TIME_FIELDS = ["modified", "created"] as const;
export const SORT_ORDERS = ["time_desc", "time_asc", "path_asc"] as const;
export const MAX_LIMIT = 1000;

const DATE_TIME_HINT =
  "must be an ISO 8601 date-time with a time zone, e.g. 2025-12-15T00:00:00Z or 2025-12-15T09:00:00+09:00";

/** An ISO 8601 date-time with an explicit offset; shown as `format: "date-time"`. */
const dateTime = (description: string) =>
  v.optional(v.pipe(v.string(), v.isoTimestamp(DATE_TIME_HINT), v.description(description)));

export const searchInput = v.strictObject({
  root: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Search root. Must be one of the roots the server allows (allowed roots). When omitted, the default root is used.",
      ),
    ),
  ),
  path: v.optional(
    v.pipe(
      v.string(),
      v.description("Start path below root (a relative path). Defaults to the root itself (the empty string)."),
    ),
  ),
  timeField: v.pipe(
    v.picklist(TIME_FIELDS, `must be "modified" or "created"`),
    v.description("Which time to search by"),
  ),
  from: dateTime("Start of the time range (inclusive). Optional."),
  to: dateTime("End of the time range (exclusive). Optional."),
  glob: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Glob pattern relative to the start path, fast-glob syntax (e.g. **/*.md for any depth; *.md matches only the start directory). When omitted, every entry matches.",
      ),
    ),
  ),
  recursive: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Whether to search subdirectories too (default true); false searches only the start directory."),
    ),
    true,
  ),
  maxDepth: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be a whole number"),
      v.minValue(0, "must be 0 or more"),
      v.description(
        "Maximum depth for a recursive search, in levels below the start directory: 1 = only the entries directly in it, 2 = those and the entries of its subdirectories, and so on; 0 examines only the start directory itself, so nothing matches. Ignored when recursive=false. When omitted there is no limit (the server's own default limit still applies).",
      ),
    ),
  ),
  includeFiles: v.optional(
    v.pipe(v.boolean(), v.description("Whether regular files are returned (default true).")),
    true,
  ),
  includeDirectories: v.optional(
    v.pipe(v.boolean(), v.description("Whether directories are returned (default false); their sizeBytes is null.")),
    false,
  ),
  sort: v.optional(
    v.pipe(
      v.picklist(SORT_ORDERS, `must be "time_desc", "time_asc" or "path_asc"`),
      v.description(
        "Order of the matches: newest first (time_desc, default), oldest first (time_asc) or by path (path_asc).",
      ),
    ),
    "time_desc",
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be a whole number"),
      v.minValue(1, `must be from 1 to ${MAX_LIMIT}`),
      v.maxValue(MAX_LIMIT, `must be from 1 to ${MAX_LIMIT}`),
      v.description(`Matches per page, 1 to ${MAX_LIMIT} (default 100); use 'cursor' for the next page.`),
    ),
    100,
  ),
  cursor: v.optional(v.pipe(v.string(), v.description("Pagination cursor (opaque)."))),
  includeUnknownTime: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Whether to include entries whose created time the OS/file system does not provide (default false).",
      ),
    ),
    false,
  ),
});

export type SearchArguments = v.InferOutput<typeof searchInput>;

const isoOrNull = v.nullable(v.pipe(v.string(), v.isoTimestamp()));

export const searchMatch = v.strictObject({
  path: v.string(),
  isDirectory: v.boolean(),
  sizeBytes: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  modifiedAt: v.pipe(v.string(), v.isoTimestamp()),
  createdAt: isoOrNull,
});

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const searchOutput = v.strictObject({
  timeField: v.picklist(TIME_FIELDS),
  range: v.strictObject({ from: isoOrNull, to: isoOrNull }),
  matches: v.array(searchMatch),
  nextCursor: v.nullable(v.string()),
  stats: v.strictObject({
    scannedFiles: count,
    scannedDirectories: count,
    returned: count,
    unsearchableDirectories: v.optional(
      v.pipe(
        count,
        v.description(
          "Present when some directories could be listed but not searched: they lack search (execute, x) permission for the server's user, so their entries' times cannot be read. Grant it (chmod +x) or narrow 'path'.",
        ),
      ),
    ),
    unsearchableEntries: v.optional(
      v.pipe(count, v.description("Entries of those directories left out, with unsearchableDirectories.")),
    ),
  }),
  serverTime: v.pipe(
    v.string(),
    v.isoTimestamp(),
    v.description(
      "The server's current time (UTC, to the second): compute 'from' and 'to' from it for questions like 'what changed in the last week'.",
    ),
  ),
  notices: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description(
        "Present when something limited the search or left entries out (the time budget, the depth limit, unreadable directories, names that are not UTF-8, a page shortened to fit): the same sentences as the text's summary, each saying what to change.",
      ),
    ),
  ),
});

export type SearchOutput = v.InferOutput<typeof searchOutput>;
export type SearchMatch = v.InferOutput<typeof searchMatch>;
