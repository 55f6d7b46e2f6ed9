import { defineTool } from "../../../core/tool.ts";
import { BOJ_CHART_URI } from "../resources.ts";
import type { CodeArgs } from "../schemas.ts";
import { BOJ_SCOPE, type BojDeps, PAGING, calls, dataAnnotations, drawSeries, schemas } from "./shared.ts";

export function getDataCode(deps: BojDeps) {
  return defineTool({
    name: "boj_get_data_code",
    title: "BOJ time series by series code",
    description: `Fetch Bank of Japan time-series data for given series codes (BOJ getDataCode). Use when you know the series codes (from boj_search_series, boj_get_metadata or the BOJ site), e.g. db "CO", codes ["TK99F1000601GCQ01000"], start_date "202401". All codes in one call must share one frequency. ${PAGING}`,
    get input() {
      return schemas().getDataCodeInput;
    },
    get output() {
      return schemas().getDataCodeOutput;
    },
    annotations: { title: "BOJ time series by series code", ...dataAnnotations },
    scope: BOJ_SCOPE,
    ui: { resourceUri: BOJ_CHART_URI },
    terminalChart: drawSeries,
    handler: (args, context) => {
      const { fetchData, buildCodeRequest } = calls();
      return fetchData<CodeArgs>(deps, "code", buildCodeRequest, args, context);
    },
  });
}
