/**
 * The one handler behind boj_get_data_code and boj_get_data_layer: they differ only in how the
 * arguments become a BOJ request and in how a cut text says to fetch the rest.
 */
import type { ToolContext, ToolResult } from "../../../core/tool.ts";
import { decodeDataBody } from "../decode/index.ts";
import type { DataKind } from "../decode/shape.ts";
import { fitDataPage } from "../fit-page.ts";
import { builtInDatabases, explainingUnknownDatabase } from "../unknown-database.ts";
import type { BojRequest } from "../validation.ts";
import type { BojDeps } from "./shared.ts";

interface DataArgs {
  db: string;
  start_position?: number;
  include_raw: boolean;
  start_date?: string | number;
  end_date?: string | number;
  lang?: string;
  format?: string;
}

export async function fetchData<A extends DataArgs>(
  deps: BojDeps,
  kind: DataKind,
  build: (args: A) => BojRequest,
  args: A,
  context: ToolContext,
): Promise<ToolResult> {
  const request = build(args);
  const db = request.params.find(([key]) => key === "db")?.[1] ?? args.db;
  const answer = await explainingUnknownDatabase(db, deps.knownDatabases ?? builtInDatabases, () =>
    deps.answers.fetch(request, context, (body) => decodeDataBody(body, request, kind)),
  );
  const { start_date, end_date, lang, format } = args;
  const continuation = {
    tool: context.calledAs,
    db,
    kind,
    startPosition: args.start_position ?? 1,
    carried: { start_date, end_date, lang, format },
  };
  const { text, structured } = fitDataPage(
    { output: answer.output, raw: args.include_raw ? answer.raw() : undefined, cached: answer.cached },
    continuation,
    context.outputBudget,
  );
  return { content: [{ type: "text", text }], structuredContent: structured };
}
