import { constantResult, defineTool, type ToolResult, textResult } from "../../../core/tool.ts";
import { databaseCatalog } from "../catalog.ts";
import { BOJ_SCOPE, calls, catalogAnnotations, schemas } from "./shared.ts";

export function listDatabases() {
  // The catalog is compiled in: one answer, built on first use and shared by every call.
  let answer: ToolResult | undefined;
  return defineTool({
    name: "boj_list_databases",
    title: "BOJ database codes",
    description:
      "List the Bank of Japan databases (code, Japanese and English name, category) that the db argument of the other boj tools accepts, to browse one with boj_get_metadata. To find a series by name, call boj_search_series instead. No network access.",
    get input() {
      return schemas().listDatabasesInput;
    },
    get output() {
      return schemas().listDatabasesOutput;
    },
    annotations: { title: "BOJ database codes", ...catalogAnnotations },
    scope: BOJ_SCOPE,
    handler: async () => {
      if (!answer) {
        const catalog = databaseCatalog();
        answer = constantResult(textResult(calls().renderDatabases(catalog.databases), catalog));
      }
      return answer;
    },
  });
}
