import { defineTool } from "../../../core/tool.ts";
import { SEARCH_LIMIT_DEFAULT } from "../search/limits.ts";
import { BOJ_SCOPE, type BojDeps, calls, dataAnnotations, searchSchemas } from "./shared.ts";

export function searchSeries(deps: BojDeps) {
  return defineTool({
    name: "boj_search_series",
    title: "Find BOJ series by name or code",
    description: `Find Bank of Japan time series in every database at once, by words of their English or Japanese names (any order, parts of words; case, full-width forms and punctuation do not matter) or by series code, e.g. query "dollar yen spot" or "ドル 円". Start here: each hit gives db, series_code, names, unit, frequency, category, first and last period and the exact boj_get_data_code call that fetches it. Narrow with db (a code or a list), frequency (CY, FY, CH, FH, Q, M, W, D) and category; ${SEARCH_LIMIT_DEFAULT} hits a page, next_cursor continues. Searches mcpkit's copy of BOJ's catalogue (refreshed daily); the very first search may wait while it is built and then say which databases are still missing.`,
    get input() {
      return searchSchemas().searchSeriesInput;
    },
    get output() {
      return searchSchemas().searchSeriesOutput;
    },
    annotations: { title: "Find BOJ series by name or code", ...dataAnnotations },
    scope: BOJ_SCOPE,
    handler: async (args, context) => {
      if (!deps.search)
        throw new Error("boj_search_series needs the series catalogue, which this toolset was built without");
      return calls().runSearch(deps.search, args, context);
    },
  });
}
