/**
 * The series search's parts wired together for the boj toolset: the catalogue store (opened on
 * first use, in the catalogue folder or in memory), the catalogue that fills it from a fleet's
 * copies (--boj-shared-state) or through the boj answers (paced client), and what
 * boj_search_series needs.
 */
import { logToStderr } from "../../../core/client-log.ts";
import type { Logger } from "../../../core/log.ts";
import type { BojAnswers } from "../answers.ts";
import { DATABASE_CODES } from "../catalog.ts";
import { decodeMetadataBody } from "../decode/index.ts";
import { buildMetadataRequest } from "../validation.ts";
import { privateCatalogFile } from "./catalog-folder.ts";
import type { SearchDeps } from "./run.ts";
import { type CatalogCopies, SeriesCatalog, type SeriesCatalogDeps, lastDailyRefresh } from "./series-catalog.ts";
import type { CatalogStore } from "./store.ts";

export const CATALOG_FILE = "boj-series-catalog.sqlite";

export interface SearchConfig {
  catalogDir?: string;
  catalogWaitMs: number;
  minIntervalMs: number;
  /** A fleet's copies (--boj-shared-state): what one instance fetched today, the others index without asking BOJ. */
  shared?: CatalogCopies;
}

/**
 * getMetadata of `db` with lang=jp (BOJ's Japanese metadata carries the English fields too),
 * through the paced client. The answer cache is read but not written: the catalogue is the lasting
 * copy, and 50 databases' metadata would fill this process's memory for nothing (226 → 122 MB peak
 * RSS for a 157,000-series build, scripts/bench/boj-search.ts).
 */
async function fetchFromBoj(answers: BojAnswers, db: string, signal: AbortSignal, log: Logger) {
  const request = buildMetadataRequest({ db, lang: "jp" });
  const answer = await answers.fetch(
    request,
    { signal, notify: (level, logger, message, data) => logToStderr(log, level, logger, message, data) },
    (body) => decodeMetadataBody(body, request),
    false,
  );
  // Heading rows are never indexed, so they are never copied either.
  return { entries: answer.output.entries.filter((entry) => entry.series_code), date: answer.output.meta.date };
}

export function createSearch(
  config: SearchConfig,
  answers: BojAnswers,
  log: Logger,
  /** The clock and the daily timer; tests pass their own. */
  timing: Pick<SeriesCatalogDeps, "now" | "schedule"> = {},
): SearchDeps & { close(): void } {
  const now = timing.now ?? Date.now;
  let store: CatalogStore | undefined;
  const catalog = new SeriesCatalog({
    store: () => {
      store ??= openCatalogStore(config.catalogDir, log);
      return store;
    },
    fetchMetadata: async (db, signal) => {
      const since = lastDailyRefresh(now());
      const copy = await config.shared?.get(db, since);
      if (copy) return copy;
      const fresh = await fetchFromBoj(answers, db, signal, log);
      await config.shared?.put(db, { ...fresh, fetchedAt: now() });
      return fresh;
    },
    databases: DATABASE_CODES,
    log,
    intervalMs: config.minIntervalMs,
    ...timing,
  });
  return {
    catalog,
    waitMs: config.catalogWaitMs,
    close() {
      catalog.close();
      store?.close();
    },
  };
}

/**
 * Opens the catalogue in `dir` (created private to the user when missing; catalog-folder.ts), or in
 * memory when `dir` is undefined or cannot be used safely; the latter is logged once, and search
 * still works.
 */
export function openCatalogStore(dir: string | undefined, log: Logger): CatalogStore {
  // Loaded on the first search: bun:sqlite costs a start 0.7 ms, and most sessions never search.
  const { CatalogStore } = require("./store.ts") as typeof import("./store.ts");
  if (dir === undefined) return new CatalogStore(":memory:");
  try {
    return new CatalogStore(privateCatalogFile(dir, CATALOG_FILE));
  } catch (error) {
    log.warn("BOJ series catalogue: cannot use the catalogue folder; keeping the catalogue in memory", {
      dir,
      error: error instanceof Error ? error.message : String(error),
    });
    return new CatalogStore(":memory:");
  }
}
