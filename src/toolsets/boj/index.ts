/**
 * The `boj` toolset module: Bank of Japan Time-Series Data Search API (seed 000). Always enabled:
 * BOJ needs no key, so every option has a default and `configure` never reports MissingConfig.
 */
import * as v from "valibot";
import packageJson from "../../../package.json" with { type: "json" };
import { type OptionSpec, httpUrlOption, integerOption, readOptions } from "../../core/options.ts";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import { defineToolsetModule } from "../../core/toolset-module.ts";
import { BojClient, type BojClientConfig } from "./client.ts";
import { bojPrompts } from "./prompts.ts";
import { bojResourceTemplates, bojResources } from "./resources.ts";
import { bojTools } from "./tools.ts";

export const DEFAULT_BOJ_BASE_URL = "https://www.stat-search.boj.or.jp";
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export const bojOptions: readonly OptionSpec[] = [
  { name: "boj-base-url", env: "BOJ_BASE_URL", kind: "string", valueName: "URL", help: "base URL of the BOJ Time-Series Data Search API", defaultText: DEFAULT_BOJ_BASE_URL },
  { name: "boj-timeout-ms", env: "BOJ_TIMEOUT_MS", kind: "string", valueName: "MS", help: "timeout of each request to BOJ, body included, in milliseconds", defaultText: "10000" },
  { name: "boj-retry-max", env: "BOJ_RETRY_MAX", kind: "string", valueName: "N", help: "retries after a transport error or a BOJ 500/503 (nothing else is retried)", defaultText: "2" },
  { name: "boj-retry-backoff-ms", env: "BOJ_RETRY_BACKOFF_MS", kind: "string", valueName: "MS", help: "delay before the first retry, in milliseconds; doubles on each further retry", defaultText: "200" },
  { name: "boj-min-interval-ms", env: "BOJ_MIN_INTERVAL_MS", kind: "string", valueName: "MS", help: "minimum spacing between requests to the BOJ host across all sessions, in milliseconds (BOJ forbids high-frequency access)", defaultText: "1000" },
  { name: "boj-max-body-bytes", env: "BOJ_MAX_BODY_BYTES", kind: "string", valueName: "BYTES", help: "largest BOJ response body accepted, after gzip; larger ones are a DECODE_ERROR", defaultText: String(DEFAULT_MAX_BODY_BYTES) },
];

const optionsSchema = v.object({
  "boj-base-url": httpUrlOption(DEFAULT_BOJ_BASE_URL),
  "boj-timeout-ms": integerOption(1, 600_000, 10_000, "milliseconds"),
  "boj-retry-max": integerOption(0, 10, 2),
  "boj-retry-backoff-ms": integerOption(0, 60_000, 200, "milliseconds"),
  "boj-min-interval-ms": integerOption(0, 60_000, 1000, "milliseconds"),
  "boj-max-body-bytes": integerOption(1024, 1024 * 1024 * 1024, DEFAULT_MAX_BODY_BYTES, "bytes"),
});

export const boj = defineToolsetModule<BojClientConfig>({
  name: "boj",
  summary: "Bank of Japan time-series statistics from the BOJ Time-Series Data Search API (no key needed)",
  options: bojOptions,
  configure(values) {
    const options = readOptions(optionsSchema, bojOptions, values);
    return {
      baseUrl: options["boj-base-url"] as string,
      timeoutMs: options["boj-timeout-ms"] as number,
      retryMax: options["boj-retry-max"] as number,
      retryBackoffMs: options["boj-retry-backoff-ms"] as number,
      minIntervalMs: options["boj-min-interval-ms"] as number,
      maxBodyBytes: options["boj-max-body-bytes"] as number,
      userAgent: `mcpkit/${packageJson.version} (+boj toolset)`,
    };
  },
  create(config, runtime) {
    const client = new BojClient(config, runtime.log);
    return {
      name: "boj",
      tools: bojTools(client),
      resources: bojResources,
      resourceTemplates: bojResourceTemplates,
      prompts: bojPrompts,
      // Seed 000 §4: arguments that break the schema are a JSON-RPC invalid_params error, not an isError result.
      rejectArguments(message) {
        throw new ProtocolError(ErrorCode.InvalidParams, message, { error_type: "VALIDATION_ERROR", message });
      },
    };
  },
});
