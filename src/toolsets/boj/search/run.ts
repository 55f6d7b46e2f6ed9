/**
 * boj_search_series from arguments to result: checks what the schema cannot (a query with words,
 * known databases, the cursor), waits a bounded time for a catalogue still being built (with
 * progress notifications), searches, and fits the page to the output budget in both halves with
 * the exact call for the rest. A search sends no request of its own; only the catalogue's
 * refresh talks to BOJ.
 */
import { closestName } from "../../../core/did-you-mean.ts";
import { rememberSize } from "../../../core/output-budget.ts";
import { byteLength } from "../../../core/text.ts";
import type { ToolContext, ToolResult } from "../../../core/tool.ts";
import { DATABASE_CODES, findDatabase } from "../catalog.ts";
import { validationError } from "../errors.ts";
import { decodeCursor, encodeCursor, searchKey } from "./cursor.ts";
import { queryWords } from "./normalize.ts";
import { type SearchFilters, type SearchPage, searchCatalog } from "./query.ts";
import { catalogSummary, renderSearchText, toSearchHit } from "./render.ts";
import { SEARCH_LIMIT_DEFAULT } from "./limits.ts";
import type { SearchArgs, SearchOutput } from "./schema.ts";
import type { SeriesCatalog } from "./series-catalog.ts";

export interface SearchDeps {
  catalog: SeriesCatalog;
  /** --boj-catalog-wait-ms: the longest a search waits for a catalogue being built. */
  waitMs: number;
}

function checkQuery(query: string): string[] {
  const words = queryWords(query);
  if (words.length === 0) {
    throw validationError(
      "query",
      `"query" (${JSON.stringify(query.slice(0, 40))}) has no letter or digit; give words of a series name in English or Japanese (e.g. "dollar yen spot", "ドル 円") or a series code (e.g. "FXERD01").`,
    );
  }
  return words;
}

/** The category's words, or undefined for none; punctuation alone would silently filter nothing. */
function checkCategory(category: string | undefined): string | undefined {
  const given = category?.trim();
  if (!given) return undefined;
  if (queryWords(given).length === 0) {
    throw validationError(
      "category",
      `"category" (${JSON.stringify(given.slice(0, 40))}) has no letter or digit; give words of a category name in English or Japanese (e.g. "TANKAN", "外国為替"), or leave category out.`,
    );
  }
  return given;
}

/** The databases asked for, upper-cased; each must be one the catalogue indexes. */
function checkDatabases(db: string | string[] | undefined): string[] | undefined {
  if (db === undefined) return undefined;
  const list = Array.isArray(db) ? db : [db];
  return [
    ...new Set(
      list.map((raw, index) => {
        const code = raw.trim().toUpperCase();
        if (findDatabase(code)) return code;
        const field = Array.isArray(db) ? `db[${index}]` : "db";
        const near = code ? closestName(code, DATABASE_CODES) : undefined;
        throw validationError(
          field,
          `"${field}" (${JSON.stringify(raw.slice(0, 20))}) is not one of the ${DATABASE_CODES.length} BOJ databases the series catalogue covers${near ? `; did you mean "${near}"?` : "."} Call boj_list_databases for the codes, or leave db out to search them all.`,
        );
      }),
    ),
  ];
}

/** Waits (bounded) for databases never indexed yet, telling the client how far the build has come. */
async function awaitCatalogue(deps: SearchDeps, context: ToolContext): Promise<void> {
  const { catalog } = deps;
  catalog.refreshIfDue();
  const before = catalog.status();
  if (before.missing.length === 0 || !before.refreshing) return;
  const total = before.total;
  context.reportProgress({
    progress: before.indexed.length,
    total,
    message: `Building the BOJ series catalogue: ${before.indexed.length} of ${total} databases indexed`,
  });
  await catalog.waitForRound(deps.waitMs, context.signal, (progress) => {
    const indexed = catalog.status().indexed.length;
    context.reportProgress({
      progress: indexed,
      total,
      message: `Building the BOJ series catalogue: indexed ${progress.db} (${indexed} of ${total} databases)`,
    });
  });
  if (context.signal.aborted) throw context.signal.reason;
}

export async function runSearch(deps: SearchDeps, args: SearchArgs, context: ToolContext): Promise<ToolResult> {
  const words = checkQuery(args.query);
  const dbs = checkDatabases(args.db);
  const category = checkCategory(args.category);
  const filters: SearchFilters = { dbs, frequency: args.frequency, category };
  const key = searchKey({ words, dbs, frequency: args.frequency, category: queryWords(category ?? "").join(" ") });
  const start = args.cursor ? decodeCursor(key, args.cursor) : { phase: 0 as const, offset: 0 };
  await awaitCatalogue(deps, context);
  const status = deps.catalog.status();
  const page = searchCatalog(deps.catalog.store(), args.query, filters, start, args.limit);
  const retryAfterS = status.missing.length > 0 ? deps.catalog.secondsToComplete(status.missing) : undefined;
  const catalog = catalogSummary(status, retryAfterS);
  return fitSearchPage({ args, page, key, catalog, tool: context.calledAs }, context.outputBudget);
}

interface PageParts {
  args: SearchArgs;
  page: SearchPage;
  key: string;
  catalog: SearchOutput["catalog"];
  tool: string;
}

/** The call that continues after the shown hits: the same arguments with `cursor`. */
function nextCall(parts: PageParts, cursor: string): string {
  const { args } = parts;
  const same: Record<string, unknown> = { query: args.query };
  if (args.db !== undefined) same.db = args.db;
  if (args.frequency !== undefined) same.frequency = args.frequency;
  if (args.category !== undefined) same.category = args.category;
  if (args.limit !== SEARCH_LIMIT_DEFAULT) same.limit = args.limit;
  return `${parts.tool} ${JSON.stringify({ ...same, cursor })}`;
}

function assemble(parts: PageParts, shown: number, budget: number): { text: string; structured: SearchOutput } {
  const { page } = parts;
  const all = page.hits.length;
  const position = shown < all ? page.hits[shown - 1].after : page.next;
  const cursor = position ? encodeCursor(parts.key, position) : null;
  const call = cursor ? nextCall(parts, cursor) : null;
  const structured: SearchOutput = {
    query: parts.args.query,
    hits_count: shown,
    hits: page.hits.slice(0, shown).map(toSearchHit),
    next_cursor: cursor,
    catalog: parts.catalog,
  };
  let truncation: string | undefined;
  if (shown < all) {
    truncation = `[${parts.tool}: this page holds ${shown} of the ${all} hits asked for, to fit the output budget of ${budget} bytes (--max-output-bytes); the call below continues right after them.]`;
    structured.truncated = { shown_hits: shown, continuation: call ?? "" };
  }
  return { text: renderSearchText(structured, call, truncation), structured };
}

function fitSearchPage(parts: PageParts, budget: number): ToolResult {
  let shown = parts.page.hits.length;
  for (;;) {
    const { text, structured } = assemble(parts, shown, budget);
    const json = byteLength(JSON.stringify(structured));
    if ((byteLength(text) <= budget && json <= budget) || shown <= 1) {
      rememberSize(structured, json);
      return { content: [{ type: "text", text }], structuredContent: structured };
    }
    shown = Math.max(1, Math.min(shown - 1, Math.floor(shown * 0.8)));
  }
}
