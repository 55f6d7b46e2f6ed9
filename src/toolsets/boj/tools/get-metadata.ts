import { defineTool } from "../../../core/tool.ts";
import { BOJ_SCOPE, type BojDeps, calls, dataAnnotations, schemas } from "./shared.ts";

export function getMetadata(deps: BojDeps) {
  return defineTool({
    name: "boj_get_metadata",
    title: "BOJ series catalogue of one database",
    description:
      'List the series of one Bank of Japan database (BOJ getMetadata; to find a series by name in every database at once, boj_search_series is one call): series codes, names, units, frequency, hierarchy layers (layer1..layer5), coverage and notes. Use it to find the codes for boj_get_data_code or the layers for boj_get_data_layer, e.g. db "FM08". Large databases have thousands of entries: narrow them with query (words of a name or code, any language), frequency and layer (a hierarchy prefix such as "1,2"), and page with offset/limit (next_offset continues; truncated says when a page holds fewer than asked for, to fit the output budget). Rows without a series_code are hierarchy headings.',
    get input() {
      return schemas().getMetadataInput;
    },
    get output() {
      return schemas().getMetadataOutput;
    },
    annotations: { title: "BOJ series catalogue of one database", ...dataAnnotations },
    scope: BOJ_SCOPE,
    handler: async (args, context) => {
      const { buildMetadataRequest, builtInDatabases, decodeMetadataBody, describeFilters } = calls();
      const { checkMetadataQuery, explainingUnknownDatabase, filterMetadata, fitMetadataPage } = calls();
      const request = buildMetadataRequest(args);
      checkMetadataQuery(args.query);
      const db = request.params.find(([key]) => key === "db")?.[1] ?? args.db;
      // The cache holds the whole catalogue; filters and paging apply to it on every call.
      const answer = await explainingUnknownDatabase(db, deps.knownDatabases ?? builtInDatabases, () =>
        deps.answers.fetch(request, context, (body) => decodeMetadataBody(body, request)),
      );
      const output = filterMetadata(answer.output, args);
      const { text, structured } = fitMetadataPage(
        {
          view: { output, filters: describeFilters(args), offset: args.offset },
          tool: context.calledAs,
          raw: args.include_raw ? answer.raw() : undefined,
          cached: answer.cached,
        },
        context.outputBudget,
      );
      return { content: [{ type: "text", text }], structuredContent: structured };
    },
  });
}
