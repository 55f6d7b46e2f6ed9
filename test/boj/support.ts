/**
 * Flags for a boj server under test: only the boj toolset, against a local fake BOJ, with no
 * pacing and no cache, so every call reaches the fake at once and tests stay independent.
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
    ...extra,
  ];
}
