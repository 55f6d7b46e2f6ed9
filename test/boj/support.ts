import type { BojClientConfig } from "../../src/toolsets/boj/client.ts";

/**
 * Flags for a boj server under test: only the boj toolset, against a local fake BOJ, with no
 * pacing, no cache and the series catalogue in memory, so every call reaches the fake at once and
 * tests stay independent.
 */
export function bojTestArgs(fakeUrl: string, ...extra: string[]): string[] {
  return [
    "--toolsets",
    "boj",
    "--boj-base-url",
    fakeUrl,
    "--boj-min-interval-ms",
    "0",
    "--boj-cache-bytes",
    "0",
    // Never the user's own cache folder: a test that searches gives its own (a later flag wins).
    "--boj-catalog-dir",
    "off",
    ...extra,
  ];
}

/** A BOJ client's configuration for in-process tests against the fake at `baseUrl`: no pacing. */
export function bojClientConfig(baseUrl: string, overrides: Partial<BojClientConfig> = {}): BojClientConfig {
  return {
    baseUrl,
    timeoutMs: 30_000,
    retryMax: 2,
    retryBackoffMs: 40,
    minIntervalMs: 0,
    maxBodyBytes: 64 * 1024 * 1024,
    userAgent: "mcpkit-test",
    ...overrides,
  };
}
