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
import { BojError } from "../errors.ts";

interface DataArgs {
  db: string;
  codes?: readonly string[];
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
  ).catch((error: unknown) => {
    if (args.codes) namingTheCode(error, args.codes, db);
    throw error;
  });
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

/** BOJ's messages that name a code by its 1-based place in the list ("…:2番目のコード"), and what to do. */
const CODE_AT_POSITION: Readonly<Record<string, (code: string, db: string) => string>> = {
  M181013E: (code, db) =>
    `${code} does not exist in db "${db}": find its code and db with boj_search_series, or list "${db}"'s codes with boj_get_metadata`,
  M181014E: (code) => `${code} has another frequency than the codes before it: request each frequency in its own call`,
};

/**
 * Names the argument BOJ's position points at (`codes[1] "BPBP6JYNCB"`): a model would otherwise
 * map "2番目" to an index and a code itself. Sets the error's hint; the error is thrown on as it is.
 */
function namingTheCode(error: unknown, codes: readonly string[], db: string): void {
  if (!(error instanceof BojError) || error.type !== "API_ERROR") return;
  const explain = CODE_AT_POSITION[error.details.message_id ?? ""];
  const position = Number(/:(\d+)番目/.exec(error.message)?.[1]);
  const code = codes[position - 1];
  if (!explain || code === undefined) return;
  error.details.hint = explain(`codes[${position - 1}] ${JSON.stringify(code)}`, db);
}
