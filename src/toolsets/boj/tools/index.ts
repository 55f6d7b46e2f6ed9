/**
 * The boj tools (docs/contracts/boj.md "Tools"): three that call BOJ, three that answer from the
 * manual's appendices without the network, and the series search over mcpkit's copy of BOJ's catalogue. One file per tool; each BojError leaves as
 * the JSON-RPC error the contract prescribes (the toolset's `mapError`, `../toolset.ts`).
 */
import type { ToolDefinition } from "../../../core/tool.ts";
import { getDataCode } from "./get-data-code.ts";
import { getDataLayer } from "./get-data-layer.ts";
import { getMessageCatalog } from "./get-message-catalog.ts";
import { getMetadata } from "./get-metadata.ts";
import { getParameterCatalog } from "./get-parameter-catalog.ts";
import { listDatabases } from "./list-databases.ts";
import { searchSeries } from "./search-series.ts";
import type { BojDeps } from "./shared.ts";

export { BOJ_SCOPE, type BojDeps } from "./shared.ts";

export function bojTools(deps: BojDeps): ToolDefinition[] {
  return [
    getDataCode(deps),
    getDataLayer(deps),
    getMetadata(deps),
    listDatabases(),
    getParameterCatalog(),
    getMessageCatalog(),
    searchSeries(deps),
  ];
}
