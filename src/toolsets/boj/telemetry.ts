/** The BOJ toolset's own metric: how often an answer came from its cache (answers.ts). */
import { defineCounter } from "../../core/telemetry/index.ts";

export const cacheLookups = defineCounter({
  name: "mcpkit.boj.cache.lookups",
  unit: "{lookup}",
  description: "BOJ answer cache lookups, by mcpkit.cache.result (hit or miss).",
});
