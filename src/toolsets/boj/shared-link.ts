/**
 * `--boj-shared-state`: reading the value, and a handle that opens the shared store on first use.
 * shared-state.ts (and Bun's SQL clients behind it) is imported dynamically from here, so a
 * process started without the option never loads it.
 */
import type { Logger } from "../../core/log.ts";
import { ConfigError } from "../../core/options.ts";
import { checkPrivateSqlitePath, sqlitePathOf, sqliteStoreRule } from "../../core/private-sqlite-file.ts";
import { describeStoreUrl, scrubStoreSecrets } from "../../core/store-url.ts";
import type { AnswerCache } from "./cache.ts";
import { transportError } from "./errors.ts";
import type { Pacer } from "./pacer.ts";
import type { CatalogCopies } from "./search/series-catalog.ts";
import type { SharedState } from "./shared-state.ts";

const FLAG = "--boj-shared-state (BOJ_SHARED_STATE)";

/**
 * Accepts `postgres://…`, `postgresql://…` or `sqlite:PATH`. The message never repeats the
 * value: a Postgres URL may carry a password.
 */
export function parseSharedState(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const refusal = sharedStateRefusal(text);
  if (refusal !== undefined) throw new ConfigError(`invalid ${FLAG}: ${refusal}`);
  return text;
}

/** Why a --boj-shared-state value is refused (completing "invalid --boj-shared-state: …"); undefined when accepted. */
export function sharedStateRefusal(value: string): string | undefined {
  const text = value.trim();
  if (/^sqlite:/i.test(text)) {
    return text.replace(/^sqlite:(\/\/)?/i, "") === ""
      ? "sqlite: needs a file path, e.g. sqlite:/var/lib/mcpkit/boj.db"
      : undefined;
  }
  if (/^postgres(ql)?:\/\//i.test(text)) {
    if (URL.parse(text)?.hostname) return undefined;
    return "the Postgres URL could not be parsed; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (percent-encode special characters in the password)";
  }
  return "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or sqlite:PATH (the value is not repeated here because it may contain a password)";
}

export interface SharedLink {
  cache: AnswerCache | undefined;
  pace: Pacer;
  /** The series catalogue's copies; a store that cannot be reached reads as no copy and keeps nothing. */
  catalog: CatalogCopies;
  close(): Promise<void>;
}

/**
 * The store is opened by the first call that needs it (a listing of tools never connects); a
 * `sqlite:PATH` that is not private to the user (a folder others can write, a link or another
 * user's file at the database's name or a companion's) stops the start here, with an
 * `UnsafeSqliteFile` that says how to fix it, and is checked again when opened. A
 * failed open is not remembered: the next call tries again. Pacing never falls back to this
 * process alone while the store is unreachable, since that is how a fleet would exceed BOJ's
 * rate: the call fails with a TRANSPORT_ERROR instead. The cache only degrades to a miss.
 */
export function linkSharedState(
  url: string,
  options: { cacheBytes: number; upstream: string; log: Logger },
): SharedLink {
  const file = /^sqlite:/i.test(url) ? sqlitePathOf(url) : ":memory:";
  if (file !== ":memory:") checkPrivateSqlitePath(file, sqliteStoreRule(file, FLAG));
  let opened: Promise<SharedState> | undefined;
  const where = describeStoreUrl(url);
  const scrub = (text: string) => scrubStoreSecrets(url, text);
  const open = (): Promise<SharedState> => {
    opened ??= import("./shared-state.ts")
      .then((module) => module.openSharedState({ url, flag: FLAG, ...options }))
      .catch((error: unknown) => {
        opened = undefined;
        const reason = scrub(error instanceof Error ? error.message : String(error));
        throw transportError(
          `the shared state store ${where} (--boj-shared-state) could not be opened: ${reason}. No request was sent to BOJ; check that the database is reachable, or start without --boj-shared-state.`,
        );
      });
    return opened;
  };

  const store: OpenedStore = { open, log: options.log, scrub };
  const cache = options.cacheBytes > 0 ? sharedCache(store) : undefined;
  const catalog = sharedCatalog(store);

  return {
    cache,
    catalog,
    pace: async (origin, intervalMs, signal, onWait) => {
      if (intervalMs <= 0) return;
      const state = await open();
      try {
        await state.awaitTurn(origin, intervalMs, signal, onWait);
      } catch (error) {
        if (signal.aborted) throw error;
        const reason = scrub(error instanceof Error ? error.message : String(error));
        throw transportError(
          `could not claim a request slot in the shared state store ${where} (--boj-shared-state): ${reason}. No request was sent to BOJ; retry later.`,
        );
      }
    },
    async close() {
      const state = await opened?.catch(() => undefined);
      await state?.close();
    },
  };
}

/** How the cache and the catalogue reach the store: opened on first use, with messages made safe to log. */
interface OpenedStore {
  open: () => Promise<SharedState>;
  log: Logger;
  /** A driver's message without the store's password. */
  scrub: (text: string) => string;
}

/** The answer cache in the store: an unreachable store reads as a miss and keeps nothing. */
function sharedCache({ open, log, scrub }: OpenedStore): AnswerCache {
  return {
    async get(key) {
      try {
        return await (await open()).cache?.get(key);
      } catch (error) {
        log.warn("boj: shared cache unavailable; treating as a miss", { error: scrub((error as Error).message) });
        return undefined;
      }
    },
    async set(key, answer, bytes, ttlMs) {
      try {
        await (await open()).cache?.set(key, answer, bytes, ttlMs);
      } catch {
        // get() already said the store is unavailable.
      }
    },
  };
}

/** The series catalogue's copies in the store: an unreachable store reads as no copy and keeps nothing. */
function sharedCatalog({ open, log, scrub }: OpenedStore): CatalogCopies {
  return {
    async get(db, since) {
      try {
        return await (await open()).catalog.get(db, since);
      } catch (error) {
        log.warn("boj: the shared catalogue copy could not be read; asking BOJ", {
          db,
          error: scrub((error as Error).message),
        });
        return undefined;
      }
    },
    async put(db, copy) {
      try {
        await (await open()).catalog.put(db, copy);
      } catch (error) {
        log.warn("boj: the catalogue copy could not be shared", { db, error: scrub((error as Error).message) });
      }
    },
  };
}
