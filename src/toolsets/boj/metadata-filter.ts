/**
 * boj_get_metadata's additive arguments (docs/contracts/boj.md "boj_get_metadata"): BOJ always
 * answers a database's whole catalogue (thousands of entries, hundreds of KB), so the tool
 * narrows it after decoding: `query` words over the series code and both names, `frequency`,
 * a `layer` prefix, then `offset`/`limit` paging with `next_offset`.
 */
import { FREQUENCY_INFO, type Frequency, LONG_FREQUENCY_NAMES } from "./catalog.ts";
import type { MetadataArgs, MetadataEntry, MetadataOutput } from "./schemas.ts";
import { validationError } from "./errors.ts";
import { foldedWords, normalizeDocument, wordAlternatives } from "./search/normalize.ts";

type Filters = Pick<MetadataArgs, "query" | "frequency" | "layer" | "offset" | "limit">;

/** The request code of BOJ's printed frequency: MONTHLY → M, WEEKLY(FRIDAY) → W. */
export function shortFrequency(printed: string | null): Frequency | undefined {
  if (!printed) return undefined;
  const upper = printed.toUpperCase();
  if (upper in FREQUENCY_INFO) return upper as Frequency;
  return LONG_FREQUENCY_NAMES[upper] ?? (upper.startsWith("WEEKLY") ? "W" : undefined);
}

function layerPattern(layer: string | undefined): (number | "*")[] {
  if (!layer) return [];
  return layer.split(",").map((part) => (part.trim() === "*" ? "*" : Number(part.trim())));
}

function matcher(filters: Filters): (entry: MetadataEntry) => boolean {
  // Folded as boj_search_series folds them (search/normalize.ts): `ドル円` meets `ドル・円`, `USD` meets `US.Dollar`.
  // Every word counts (the search keeps 12): an entry must hold all of them, as the description says.
  const words = foldedWords(filters.query ?? "");
  const layers = layerPattern(filters.layer);
  return (entry) => {
    if (filters.frequency && (!entry.series_code || shortFrequency(entry.frequency) !== filters.frequency))
      return false;
    if (layers.length) {
      const levels = [entry.layer1, entry.layer2, entry.layer3, entry.layer4, entry.layer5];
      if (!layers.every((want, i) => want === "*" || levels[i] === want)) return false;
    }
    if (words.length) {
      const haystack = normalizeDocument(entry.series_code, entry.name_of_time_series, entry.name_of_time_series_j);
      if (!words.every((word) => wordAlternatives(word).some((text) => haystack.includes(text)))) return false;
    }
    return true;
  };
}

/**
 * Refuses a `query` that holds no letter or digit before BOJ is asked: folded, it has no word to
 * match, and filtering by nothing would answer the whole catalogue as if it were the matches.
 */
export function checkMetadataQuery(query: string | undefined): void {
  if (query !== undefined && query.trim() !== "" && foldedWords(query).length === 0)
    throw validationError(
      "query",
      `"query" ${JSON.stringify(query.slice(0, 40))} holds no letter or digit: give words of a series name or a code, e.g. "USD spot" or "FXERD01", or leave it out.`,
    );
}

/** A phrase naming the filters in force, for the text form ("" when none). */
export function describeFilters(filters: Filters): string {
  const parts: string[] = [];
  if (filters.query) parts.push(`query ${JSON.stringify(filters.query)}`);
  if (filters.frequency) parts.push(`frequency ${filters.frequency}`);
  if (filters.layer) parts.push(`layer "${filters.layer.replace(/\s+/g, "")}"`);
  return parts.join(", ");
}

export function filterMetadata(whole: Omit<MetadataOutput, "raw">, filters: Filters): Omit<MetadataOutput, "raw"> {
  const matches = whole.entries.filter(matcher(filters));
  const offset = filters.offset ?? 0;
  const end = filters.limit === undefined ? matches.length : Math.min(matches.length, offset + filters.limit);
  const entries = matches.slice(offset, end);
  return {
    meta: whole.meta,
    db: whole.db,
    entries_count: entries.length,
    entries,
    total_count: whole.entries.length,
    matched_count: matches.length,
    offset,
    next_offset: end < matches.length ? end : null,
  };
}
