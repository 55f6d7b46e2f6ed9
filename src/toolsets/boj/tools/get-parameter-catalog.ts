import { defineTool, textResult } from "../../../core/tool.ts";
import { parameterCatalog, parameterCatalogBytes } from "../catalog.ts";
import { BOJ_SCOPE, calls, catalogAnnotations, schemas } from "./shared.ts";

export function getParameterCatalog() {
  return defineTool({
    name: "boj_get_parameter_catalog",
    title: "BOJ API parameters and limits",
    description:
      'Describe the parameters of the boj data tools (which are required, allowed values, period formats per frequency), BOJ\'s per-request limits and the layer rules, from the BOJ API manual. endpoint: "all" (default), "get_data_code", "get_data_layer" or "get_metadata". No network access.',
    get input() {
      return schemas().getParameterCatalogInput;
    },
    get output() {
      return schemas().getParameterCatalogOutput;
    },
    // Every answer is a cut of one embedded catalogue: measured once, not at every call.
    get structuredBytesAtMost() {
      return parameterCatalogBytes.get();
    },
    annotations: { title: "BOJ API parameters and limits", ...catalogAnnotations },
    scope: BOJ_SCOPE,
    handler: async (args) => {
      const catalog = parameterCatalog(args.endpoint);
      return textResult(calls().renderParameterCatalog(catalog), catalog);
    },
  });
}
