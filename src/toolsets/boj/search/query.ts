/**
 * Ranked search over the catalogue (store.ts). Words match in any order, as parts of words (the
 * trigram index; words under three characters, such as 円 or "us", are checked by substring on
 * the rows the others select, or on every row when no word is longer). Two phases, each paged by
 * its own offset so that a cursor resumes exactly: first the series that contain every word, a
 * series whose code is the query first, then those whose names hold every word, then the rest by
 * BM25 with names weighing ten times the notes; then the series whose code or names hold only some
 * of the words, most words first.
 */
import type { Frequency } from "../catalog.ts";
import type { CatalogStore, StoredSeries } from "./store.ts";
import { characters, normalizeDocument, queryWords, wordAlternatives } from "./normalize.ts";

export interface SearchFilters {
  dbs?: readonly string[];
  frequency?: Frequency;
  /** Words of a category name, either language. */
  category?: string;
}

/** Where a page starts: phase 0 holds series with every word, phase 1 those with some. */
export interface SearchPosition {
  phase: 0 | 1;
  offset: number;
}

export interface Hit extends StoredSeries {
  /** How many of the query's words the series contains, and how many are in its code or names. */
  matched: number;
  in_names: number;
  /** The position right after this hit, for a cursor that resumes there. */
  after: SearchPosition;
}

export interface SearchPage {
  hits: Hit[];
  /** Where the next page starts, or null when nothing is left. */
  next: SearchPosition | null;
}

const COLUMNS = `s.id, s.db, s.code, s.name_en, s.name_ja, s.unit_en, s.unit_ja, s.frequency, s.category_en,
  s.category_ja, s.first_period, s.last_period, s.last_update`;

type Params = Record<string, string | number>;

/** The SQL text and parameters of one phase, or undefined when the phase cannot hold anything. */
function phaseQuery(
  phase: 0 | 1,
  words: string[],
  raw: string,
  filters: SearchFilters,
): { sql: string; params: Params } | undefined {
  const long = words.filter((word) => characters(word) >= 3);
  if (phase === 1 && words.length < 2) return undefined;
  const params: Params = {};
  // Each word matches itself or, for a currency code, BOJ's spelling (wordAlternatives).
  const alternatives = words.map(wordAlternatives);
  for (const [index, alts] of alternatives.entries())
    for (const [alt, text] of alts.entries()) params[`w${index}_${alt}`] = text;
  const has = (column: string, index: number) =>
    `(${alternatives[index].map((_, alt) => `instr(t.${column}, $w${index}_${alt}) > 0`).join(" OR ")})`;
  const inAny = (index: number) => `(${has("names", index)} OR ${has("more", index)})`;
  const matched = words.map((_, index) => inAny(index)).join(" + ");
  const inNames = words.map((_, index) => has("names", index)).join(" + ");
  const where: string[] = [];
  const quote = (word: string) => `"${word.replaceAll('"', '""')}"`;
  const either = (word: string) => `(${wordAlternatives(word).map(quote).join(" OR ")})`;
  if (long.length > 0) {
    where.push("catalog_text MATCH $match");
    // Some words: only in the code or names. A word that is in nearly every unit or note ("yen" in
    // "100 million yen") would otherwise pull in the whole catalogue: 880 → 14 ms for
    // "dollar yen spot" over 157,000 series.
    params.match =
      phase === 0
        ? long.map(either).join(" AND ")
        : `names : (${long.flatMap(wordAlternatives).map(quote).join(" OR ")})`;
  }
  if (phase === 0) {
    for (const [index, word] of words.entries()) if (characters(word) < 3) where.push(inAny(index));
  } else {
    where.push(`(${matched}) < ${words.length}`);
    if (long.length === 0) where.push(`(${inNames}) > 0`);
  }
  if (filters.dbs?.length) {
    where.push("s.db IN (SELECT value FROM json_each($dbs))");
    params.dbs = JSON.stringify(filters.dbs);
  }
  if (filters.frequency) {
    where.push("s.frequency_code = $frequency");
    params.frequency = filters.frequency;
  }
  const categoryWords = queryWords(filters.category ?? "");
  for (const [index, word] of categoryWords.entries()) {
    where.push(`instr(s.category_norm, $c${index}) > 0`);
    params[`c${index}`] = normalizeDocument(word);
  }
  // Ranked on the index alone (the page's rows are joined afterwards) unless a filter needs the
  // series table: joining every match first cost a third of a query over 157,000 series.
  const filtered = Boolean(filters.dbs?.length || filters.frequency || categoryWords.length);
  // The code leads `names` in lower case (store.ts), so a query that is a code is found there.
  const code = raw.normalize("NFKC").toLowerCase();
  params.rawPrefix = `${code} `;
  params.rawLength = characters(code) + 1;
  const exact = "(substr(t.names, 1, $rawLength) = $rawPrefix)";
  const score = long.length > 0 ? "bm25(catalog_text, 10.0, 1.0)" : "0";
  const order =
    phase === 0 ? `exact DESC, in_names = ${words.length} DESC, score, id` : "in_names DESC, matched DESC, score, id";
  const page = `SELECT t.rowid AS id, ${matched} AS matched, ${inNames} AS in_names, ${exact} AS exact, ${score} AS score
    FROM catalog_text t ${filtered ? "JOIN catalog_series s ON s.id = t.rowid" : ""}
    WHERE ${where.join(" AND ") || "1"}
    ORDER BY ${order}
    LIMIT $limit OFFSET $offset`;
  const sql = `SELECT ${COLUMNS}, page.matched, page.in_names
    FROM (${page}) page JOIN catalog_series s ON s.id = page.id
    ORDER BY ${order.replace(/\b(exact|in_names|matched|score|id)\b/g, "page.$1")}`;
  return { sql, params };
}

/** One page of at most `limit` hits from `start`; `query` must hold at least one word (queryWords). */
export function searchCatalog(
  store: CatalogStore,
  query: string,
  filters: SearchFilters,
  start: SearchPosition,
  limit: number,
): SearchPage {
  const words = queryWords(query);
  const hits: Hit[] = [];
  for (let phase = start.phase; phase <= 1; phase++) {
    const offset = phase === start.phase ? start.offset : 0;
    const built = phaseQuery(phase as 0 | 1, words, query.trim(), filters);
    if (!built) break;
    const want = limit - hits.length;
    const rows = store.db.query(built.sql).all({ ...built.params, limit: want + 1, offset }) as (StoredSeries & {
      matched: number;
      in_names: number;
    })[];
    for (const [index, row] of rows.slice(0, want).entries()) {
      hits.push({ ...row, after: { phase: phase as 0 | 1, offset: offset + index + 1 } });
    }
    if (rows.length > want) return { hits, next: { phase: phase as 0 | 1, offset: offset + want } };
    if (hits.length >= limit) {
      // This phase is exhausted exactly at the page's end: the next page starts the next phase.
      const nextPhase = { phase: 1 as const, offset: 0 };
      return { hits, next: phase === 0 && hasAny(store, nextPhase, words, query, filters) ? nextPhase : null };
    }
  }
  return { hits, next: null };
}

function hasAny(
  store: CatalogStore,
  start: SearchPosition,
  words: string[],
  query: string,
  filters: SearchFilters,
): boolean {
  const built = phaseQuery(start.phase, words, query.trim(), filters);
  if (!built) return false;
  return store.db.query(built.sql).all({ ...built.params, limit: 1, offset: start.offset }).length > 0;
}
