/**
 * What the boj tools do when called: their handlers' code, required by `calls()` (shared.ts) at
 * the first call rather than imported by the tool definitions, so a server lists the tools
 * without loading the decoders, the page fitting, the rendering and the series search (~100 KB of
 * source; test/stdio/startup-imports.test.ts).
 */
export { decodeMetadataBody } from "../decode/index.ts";
export { fitMetadataPage } from "../fit-page.ts";
export { checkMetadataQuery, describeFilters, filterMetadata } from "../metadata-filter.ts";
export { renderDatabases, renderMessages, renderParameterCatalog } from "../render.ts";
export { runSearch } from "../search/run.ts";
export { builtInDatabases, explainingUnknownDatabase } from "../unknown-database.ts";
export { buildCodeRequest, buildLayerRequest, buildMetadataRequest } from "../validation.ts";
export { fetchData } from "./data.ts";
