import { defineTool } from "../../../core/tool.ts";
import { BOJ_CHART_URI } from "../resources.ts";
import type { LayerArgs } from "../schemas.ts";
import { BOJ_SCOPE, type BojDeps, PAGING, calls, dataAnnotations, drawSeries, schemas } from "./shared.ts";

export function getDataLayer(deps: BojDeps) {
  return defineTool({
    name: "boj_get_data_layer",
    title: "BOJ time series by hierarchy layer",
    description: `Fetch Bank of Japan time-series data selected by position in a database's hierarchy (BOJ getDataLayer), e.g. db "MD10", frequency "Q", layers ["*"] or ["1","2"]. Layer positions are in boj_get_metadata (layer1..layer5); "*" matches any entry at that level. The layer condition may match at most 1,250 series. ${PAGING}`,
    get input() {
      return schemas().getDataLayerInput;
    },
    get output() {
      return schemas().getDataLayerOutput;
    },
    annotations: { title: "BOJ time series by hierarchy layer", ...dataAnnotations },
    scope: BOJ_SCOPE,
    ui: { resourceUri: BOJ_CHART_URI },
    terminalChart: drawSeries,
    handler: (args, context) => {
      const { fetchData, buildLayerRequest } = calls();
      return fetchData<LayerArgs>(deps, "layer", buildLayerRequest, args, context);
    },
  });
}
