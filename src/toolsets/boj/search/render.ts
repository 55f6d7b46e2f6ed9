/**
 * The two halves of a boj_search_series result: structuredContent (every field of each hit and
 * the call that fetches it) and the text a model reads, one line per hit ending in that call,
 * under 8,000 bytes at the default limit (names are shortened in the text only).
 */
import type { CatalogStatus } from "./series-catalog.ts";
import type { Hit } from "./query.ts";
import type { SearchHit, SearchOutput } from "./schema.ts";

/**
 * Characters of each name shown in the text (structuredContent keeps them whole): a Japanese
 * character is three bytes, so at these lengths a line stays under about 600 bytes and ten hits
 * with their notes under 8,000.
 */
const TEXT_NAME_CHARS = { en: 120, ja: 60 };
/** Failed refreshes the text names, and how much of each failure it quotes. */
const TEXT_FAILURES = 3;
const TEXT_FAILURE_CHARS = 120;

export function toSearchHit(hit: Hit): SearchHit {
  return {
    db: hit.db,
    series_code: hit.code,
    name: hit.name_en,
    name_ja: hit.name_ja,
    unit: hit.unit_en,
    unit_ja: hit.unit_ja,
    frequency: hit.frequency,
    category: hit.category_en,
    category_ja: hit.category_ja,
    first_period: hit.first_period,
    last_period: hit.last_period,
    last_update: hit.last_update,
    next_call: { tool: "boj_get_data_code", arguments: { db: hit.db, codes: [hit.code] } },
  };
}

function shorten(text: string | null, chars: number): string {
  if (!text) return "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= chars ? flat : `${flat.slice(0, chars - 1)}…`;
}

function hitLine(hit: SearchHit): string {
  const names = [shorten(hit.name, TEXT_NAME_CHARS.en), shorten(hit.name_ja, TEXT_NAME_CHARS.ja)]
    .filter(Boolean)
    .join(" / ");
  const unit = shorten(hit.unit || hit.unit_ja, 60);
  const period = hit.first_period || hit.last_period ? `${hit.first_period ?? "?"}–${hit.last_period ?? "?"}` : "";
  const facts = [unit, hit.frequency ?? "", period, hit.last_update ? `updated ${hit.last_update}` : ""]
    .filter(Boolean)
    .join(" · ");
  return `${hit.db} ${hit.series_code} · ${names}${facts ? ` · ${facts}` : ""} → ${hit.next_call.tool} ${JSON.stringify(hit.next_call.arguments)}`;
}

function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export function catalogSummary(status: CatalogStatus, retryAfterS: number | undefined): SearchOutput["catalog"] {
  return {
    databases_total: status.total,
    databases_indexed: status.indexed.length,
    series_count: status.seriesCount,
    as_of: isoTime(status.oldestIndexedAt),
    stale: status.stale.length > 0,
    refreshing: status.refreshing,
    missing: status.missing,
    failed: status.failed.map(({ db, failure }) => ({ db, failure: failure.slice(0, 200) })),
    ...(retryAfterS !== undefined ? { retry_after_s: retryAfterS } : {}),
  };
}

/** What the text says about the catalogue itself: its date when stale, what is missing and when to ask again. */
function catalogNotes(catalog: SearchOutput["catalog"]): string[] {
  const notes: string[] = [];
  if (catalog.missing.length > 0) {
    const list =
      catalog.missing.length > 12
        ? `${catalog.missing.slice(0, 12).join(", ")} and ${catalog.missing.length - 12} more`
        : catalog.missing.join(", ");
    const state = catalog.refreshing ? "is still being built" : "is incomplete";
    notes.push(
      `The catalogue ${state}: ${catalog.databases_indexed} of ${catalog.databases_total} databases are indexed; not yet ${list}. Ask again in about ${catalog.retry_after_s ?? 60} s for hits from them.`,
    );
  }
  if (catalog.stale && catalog.as_of) {
    notes.push(
      `The catalogue dates from ${catalog.as_of.slice(0, 10)} (BOJ refreshes its metadata daily at about 08:50 JST)${catalog.refreshing ? "; a refresh is running" : ""}.`,
    );
  }
  for (const { db, failure } of catalog.failed.slice(0, TEXT_FAILURES)) {
    const kept = catalog.missing.includes(db) ? "it has no copy yet" : "its last copy is used";
    notes.push(`${db} could not be refreshed (${shorten(failure, TEXT_FAILURE_CHARS)}); ${kept}.`);
  }
  if (catalog.failed.length > TEXT_FAILURES)
    notes.push(`${catalog.failed.length - TEXT_FAILURES} more databases could not be refreshed (see catalog.failed).`);
  return notes;
}

export function renderSearchText(output: SearchOutput, nextCall: string | null, truncation?: string): string {
  const lines: string[] = [];
  const scope = `${output.catalog.series_count.toLocaleString("en-US")} series in ${output.catalog.databases_indexed} databases`;
  lines.push(
    output.hits.length === 0
      ? `No series match ${JSON.stringify(output.query)} (searched ${scope}). Try other words, English or Japanese, or fewer filters.`
      : `${output.hits.length} series for ${JSON.stringify(output.query)}, best first (searched ${scope}); each line ends with the call that fetches its data:`,
  );
  for (const hit of output.hits) lines.push(hitLine(hit));
  if (truncation) lines.push(truncation);
  if (nextCall) lines.push(`More: ${nextCall}`);
  lines.push(...catalogNotes(output.catalog));
  return `${lines.join("\n")}\n`;
}
