/**
 * The `boj` toolset module: Bank of Japan Time-Series Data Search API (docs/contracts/boj.md).
 * Always enabled: BOJ needs no key, so every option has a default and `configure` never reports
 * MissingConfig.
 */
import * as v from "valibot";
import packageJson from "../../../package.json" with { type: "json" };
import { type OptionSpec, httpUrlOption, integerOption, readDeclared } from "../../core/options.ts";
import { absoluteStoreUrl } from "../../core/store-url.ts";
import { defineToolsetModule } from "../../core/toolset-module.ts";
import type { CacheTtl } from "./answers.ts";
import type { BojClientConfig } from "./client.ts";
import { defaultCatalogDir } from "./search/cache-dir.ts";
import { parseSharedState, sharedStateRefusal } from "./shared-link.ts";

export const DEFAULT_BOJ_BASE_URL = "https://www.stat-search.boj.or.jp";
/**
 * A database's metadata grows with its series, which BOJ does not bound (FM08's answer is about
 * 820 bytes a series), so its bodies keep the old 64 MiB.
 */
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/**
 * A data page holds at most 250 series and 60,000 points. Its largest form is CSV, which repeats a
 * series' names on each point's row: 5.6 MB for the test fixtures' names, 32 MB with 150-character
 * Japanese and 300-character English names on every series; JSON stays under 2 MB. Beyond this a
 * body is not read at all, so no page can make JSON.parse hold more than a few hundred MB.
 */
const DEFAULT_MAX_DATA_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
const DEFAULT_CACHE_TTL = "data=600,metadata=3600";

/** `data=600,metadata=3600`, either half alone, or one number for both. */
const cacheTtlOption = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const ttl = parseCacheTtl(dataset.value);
      if (ttl) return ttl;
      addIssue({
        message: `expected data=SECONDS,metadata=SECONDS (either may be left out) or one number of seconds for both, each from 0 to ${ONE_DAY_S * 7}`,
      });
      return NEVER;
    }),
  ),
  DEFAULT_CACHE_TTL,
);

export const bojOptions = [
  {
    name: "boj-base-url",
    env: "BOJ_BASE_URL",
    kind: "string",
    valueName: "URL",
    help: "base URL of the BOJ Time-Series Data Search API",
    schema: httpUrlOption(DEFAULT_BOJ_BASE_URL),
  },
  {
    name: "boj-timeout-ms",
    env: "BOJ_TIMEOUT_MS",
    kind: "string",
    valueName: "MS",
    help: "timeout of each request to BOJ, body included, in milliseconds",
    schema: integerOption(1, 600_000, 10_000, "milliseconds"),
  },
  {
    name: "boj-retry-max",
    env: "BOJ_RETRY_MAX",
    kind: "string",
    valueName: "N",
    help: "retries after a transport error or a BOJ 500/503 (nothing else is retried)",
    schema: integerOption(0, 10, 2),
  },
  {
    name: "boj-retry-backoff-ms",
    env: "BOJ_RETRY_BACKOFF_MS",
    kind: "string",
    valueName: "MS",
    help: "delay before the first retry, in milliseconds; doubles on each further retry",
    schema: integerOption(0, 60_000, 200, "milliseconds"),
  },
  {
    name: "boj-min-interval-ms",
    env: "BOJ_MIN_INTERVAL_MS",
    kind: "string",
    valueName: "MS",
    help: "minimum spacing between requests to the BOJ host across all sessions, in milliseconds (BOJ forbids high-frequency access)",
    schema: integerOption(0, 60_000, 1000, "milliseconds"),
  },
  {
    name: "boj-max-body-bytes",
    env: "BOJ_MAX_BODY_BYTES",
    kind: "string",
    valueName: "BYTES",
    help: "largest BOJ response body accepted, after gzip; larger ones are a DECODE_ERROR",
    defaultText: `${DEFAULT_MAX_DATA_BODY_BYTES} for a data page, ${DEFAULT_MAX_BODY_BYTES} for metadata`,
    // Without a fallback: unset, each kind of answer has its own cap (configure).
    schema: v.optional(integerOption(1024, 1024 * 1024 * 1024, DEFAULT_MAX_BODY_BYTES, "bytes").wrapped),
  },
  {
    name: "boj-cache-bytes",
    env: "BOJ_CACHE_BYTES",
    kind: "string",
    valueName: "BYTES",
    help: "memory for cached BOJ answers (least recently used ones are dropped first); 0 turns the cache off",
    schema: integerOption(0, 16 * 1024 * 1024 * 1024, DEFAULT_CACHE_BYTES, "bytes"),
  },
  {
    name: "boj-cache-ttl-s",
    env: "BOJ_CACHE_TTL_S",
    kind: "string",
    valueName: "TTL",
    help: "how long a BOJ answer is reused, in seconds, per kind: data=S,metadata=S (one number sets both; 0 never reuses)",
    defaultText: DEFAULT_CACHE_TTL,
    schema: cacheTtlOption,
  },
  {
    name: "boj-shared-state",
    env: "BOJ_SHARED_STATE",
    kind: "string",
    valueName: "URL",
    help: "share cached BOJ answers, the request spacing and the series catalogue with every instance on this database: postgres://USER:PASSWORD@HOST/DB, or sqlite:PATH for processes on one host",
    defaultText: "off",
    // Checked by parseSharedState, whose messages never repeat the value (it may hold a password).
    schema: v.optional(v.string()),
    check: sharedStateRefusal,
    secret: true,
    path: absoluteStoreUrl,
  },
  {
    name: "boj-catalog-dir",
    env: "BOJ_CATALOG_DIR",
    kind: "string",
    valueName: "DIR|off",
    help: "folder of the BOJ series catalogue that boj_search_series reads (built from BOJ's metadata, refreshed daily); off keeps it in memory only",
    defaultText: "the user's cache folder + /mcpkit",
    schema: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "expected a folder or off"))),
    // Trimmed as the schema trims it; `off` is read as catalogDirOf reads it.
    path: (value, absolute) => (value.trim().toLowerCase() === "off" ? value : absolute(value.trim())),
  },
  {
    name: "boj-catalog-wait-ms",
    env: "BOJ_CATALOG_WAIT_MS",
    kind: "string",
    valueName: "MS",
    help: "longest a search waits for a series catalogue still being built before answering from the databases indexed so far",
    schema: integerOption(0, 600_000, 30_000, "milliseconds"),
  },
] as const satisfies readonly OptionSpec[];

const ONE_DAY_S = 86_400;

export function parseCacheTtl(text: string): CacheTtl | undefined {
  const seconds = (value: string) =>
    /^\d+$/.test(value) && Number(value) <= ONE_DAY_S * 7 ? Number(value) * 1000 : undefined;
  const whole = seconds(text);
  if (whole !== undefined) return { dataMs: whole, metadataMs: whole };
  const ttl: CacheTtl = { dataMs: 600_000, metadataMs: 3_600_000 };
  for (const part of text.split(",")) {
    const [kind, value = ""] = part.split("=").map((piece) => piece.trim().toLowerCase());
    const ms = seconds(value);
    if (ms === undefined || (kind !== "data" && kind !== "metadata")) return undefined;
    if (kind === "data") ttl.dataMs = ms;
    else ttl.metadataMs = ms;
  }
  return ttl;
}

/** `off` (any case) keeps the catalogue in memory; nothing given means the user's cache folder. */
function catalogDirOf(value: string | undefined): string | undefined {
  if (value === undefined) return defaultCatalogDir();
  return value.toLowerCase() === "off" ? undefined : value;
}

export interface BojConfig extends BojClientConfig {
  cacheBytes: number;
  cacheTtl: CacheTtl;
  /** `postgres://…` or `sqlite:PATH`; undefined: cache and pacing are this process's own. */
  sharedState?: string;
  /** Folder of the series catalogue; undefined keeps it in memory (`off`). */
  catalogDir?: string;
  catalogWaitMs: number;
}

export const boj = defineToolsetModule<BojConfig>({
  name: "boj",
  summary: "Bank of Japan time-series statistics from the BOJ Time-Series Data Search API (no key needed)",
  options: bojOptions,
  configure(values) {
    const options = readDeclared(bojOptions, values);
    return {
      baseUrl: options["boj-base-url"] as string,
      timeoutMs: options["boj-timeout-ms"] as number,
      retryMax: options["boj-retry-max"] as number,
      retryBackoffMs: options["boj-retry-backoff-ms"] as number,
      minIntervalMs: options["boj-min-interval-ms"] as number,
      maxBodyBytes: (options["boj-max-body-bytes"] as number | undefined) ?? DEFAULT_MAX_BODY_BYTES,
      maxDataBodyBytes: (options["boj-max-body-bytes"] as number | undefined) ?? DEFAULT_MAX_DATA_BODY_BYTES,
      userAgent: `mcpkit/${packageJson.version} (+boj toolset)`,
      cacheBytes: options["boj-cache-bytes"] as number,
      cacheTtl: options["boj-cache-ttl-s"] as CacheTtl,
      sharedState: parseSharedState(options["boj-shared-state"]),
      catalogDir: catalogDirOf(options["boj-catalog-dir"] as string | undefined),
      catalogWaitMs: options["boj-catalog-wait-ms"] as number,
    };
  },
  // The tools, their client and schemas load only when the toolset is built (toolset.ts).
  create: (config, runtime) => (require("./toolset.ts") as typeof import("./toolset.ts")).createBoj(config, runtime),
});
