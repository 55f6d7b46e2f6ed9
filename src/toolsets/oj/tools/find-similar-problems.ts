import * as v from "valibot";
import { shownValue } from "../../../core/text.ts";
import { type ToolContext, defineTool } from "../../../core/tool.ts";
import { dotSegmentError, encodeComponent } from "../encode.ts";
import { formatDecimal, utf8Length } from "../format.ts";
import type { OjHttpClient, UpstreamResponse } from "../http.ts";
import { SimilarShape, type SimilarView, renderSimilar, webLink } from "../render.ts";
import { UpstreamSimilar, expectJson } from "../upstream.ts";
import { readSourceFilter, sourceSchema } from "../sources.ts";
import { LOGGER, type OjDeps, SCOPE, argumentFailure, readOnly, success, upstreamFailure } from "./shared.ts";

/** The upstream's bounds for a text query, counted in UTF-8 bytes as it counts them (docs/contracts/oj.md §4). */
export const QUERY_MIN_BYTES = 3;
export const QUERY_MAX_BYTES = 2000;

const LIMIT_MESSAGE = "limit must be between 1 and 50";
const THRESHOLD_MESSAGE = "threshold must be between 0.0 and 1.0";

const Input = v.strictObject({
  source: v.optional(
    sourceSchema(
      "Platform of the problem for an ID-based search (with id): leetcode, codeforces, atcoder, luogu or spoj (any letter case).",
      { blankMeansAbsent: true },
    ),
  ),
  id: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Problem ID for an ID-based search, e.g. '1' (leetcode), '1A' (codeforces), 'abc001_1' (atcoder), 'P1001' (luogu)",
      ),
    ),
  ),
  query: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Free-text query for a semantic search (3-2000 UTF-8 bytes after trimming); takes priority over source + id",
      ),
    ),
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(`${LIMIT_MESSAGE} (a whole number)`),
      v.minValue(1, LIMIT_MESSAGE),
      v.maxValue(50, LIMIT_MESSAGE),
      v.description("Maximum number of results, 1-50 (default 10)"),
    ),
    10,
  ),
  threshold: v.optional(
    v.pipe(
      v.number(),
      v.minValue(0, THRESHOLD_MESSAGE),
      v.maxValue(1, THRESHOLD_MESSAGE),
      v.description("Minimum similarity, 0.0-1.0 (default 0.0)"),
    ),
    0,
  ),
  source_filter: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Comma-separated platforms to search in, from leetcode, codeforces, atcoder, luogu and spoj, e.g. 'leetcode,codeforces' (default: all)",
      ),
    ),
  ),
});

export function findSimilarProblems({ http }: OjDeps) {
  // Newer craboj servers answer 405 to GET /api/v1/similar and take a JSON POST (docs/contracts/oj.md §8);
  // once seen, go straight to POST (and back to GET if the server answers 405 to POST later).
  const textSearch = { post: false };

  return defineTool({
    name: "find_similar_problems",
    title: "Similar problems",
    description:
      "Find similar problems by problem ID or free-text query across LeetCode, Codeforces, AtCoder, Luogu, and SPOJ. " +
      "Returns a ranked list with similarity scores. Provide either a text query, or a source + ID pair.",
    input: Input,
    output: SimilarShape,
    annotations: readOnly("Similar problems"),
    scope: SCOPE,
    async handler(args: v.InferOutput<typeof Input>, context) {
      const { limit, threshold } = args;
      const filterCheck = readSourceFilter(args.source_filter ?? "");
      if (!filterCheck.ok) return argumentFailure(invalid(context.calledAs, filterCheck.message));
      const filter = filterCheck.value;
      const common = `limit=${limit}&threshold=${formatDecimal(threshold)}${filter ? `&source=${encodeComponent(filter)}` : ""}`;
      const asked = await askUpstream(http, textSearch, args, { common, filter }, context);
      if (typeof asked === "string") return argumentFailure(asked);
      const { response, label } = asked;

      const outcome = expectJson(response, UpstreamSimilar);
      if (!outcome.ok) return upstreamFailure(context, outcome.message);
      const rewritten = outcome.value.rewritten_query?.trim();
      const similar: SimilarView = {
        query: rewritten || label,
        results: outcome.value.results.map((row, index) => ({
          rank: index + 1,
          source: row.source,
          id: row.id,
          title: row.title ?? null,
          difficulty: row.difficulty ?? null,
          link: webLink(row.link),
          similarity: row.similarity,
        })),
      };
      return success(context, renderSimilar(similar), similar);
    },
  });
}

/**
 * Sends the search the arguments ask for: by text (mode B; an invalid query is an error, never a
 * fall-back to source + id), else by source and id. Returns the answer and the label naming the
 * search, or the argument error to answer instead.
 */
async function askUpstream(
  http: OjHttpClient,
  textSearch: { post: boolean },
  args: v.InferOutput<typeof Input>,
  { common, filter }: { common: string; filter: string | undefined },
  context: Pick<ToolContext, "signal" | "notify" | "calledAs">,
): Promise<{ response: UpstreamResponse; label: string } | string> {
  const { limit, threshold } = args;
  const query = args.query?.trim() ?? "";
  if (query !== "") {
    const bytes = utf8Length(withoutSurroundingQuotes(query));
    if (bytes < QUERY_MIN_BYTES || bytes > QUERY_MAX_BYTES) {
      const advice = bytes < QUERY_MIN_BYTES ? "describe the problem in a few more words" : "shorten the query";
      return invalid(
        context.calledAs,
        `"query": must be between ${QUERY_MIN_BYTES} and ${QUERY_MAX_BYTES} characters, counted as UTF-8 bytes like the server counts them; ${advice} (got ${bytes} bytes: ${shownValue(query)})`,
      );
    }
    const body = { limit, threshold, source: filter };
    return { response: await searchByText(http, textSearch, { query, common, body }, context), label: query };
  }
  const source = args.source ?? "";
  const id = args.id?.trim() ?? "";
  if (source === "" || id === "") {
    // The argument to give: the missing half of a pair, else the query.
    const field = source !== "" ? "id" : id !== "" ? "source" : "query";
    return invalid(
      context.calledAs,
      `"${field}": either 'query' or both 'source' and 'id' must be provided: pass a text query, or a problem's source and id (e.g. source 'leetcode', id '1')`,
    );
  }
  const dots = dotSegmentError(context.calledAs, "id", id);
  if (dots) return dots;
  const path = `/api/v1/similar/${encodeComponent(source)}/${encodeComponent(id)}?${common}`;
  return { response: await http.request(path, { signal: context.signal }), label: `${source} ${id}` };
}

/** An argument error in the words of every other one (core/invoke.ts describeArgumentIssues). */
function invalid(calledAs: string, said: string): string {
  return `Invalid arguments for ${calledAs}: ${said}. Fix the argument and call again.`;
}

interface TextSearch {
  query: string;
  /** The query string shared by both search modes. */
  common: string;
  body: { limit: number; threshold: number; source?: string };
}

async function searchByText(
  http: OjHttpClient,
  mode: { post: boolean },
  { query, common, body }: TextSearch,
  context: Pick<ToolContext, "signal" | "notify" | "calledAs">,
): Promise<UpstreamResponse> {
  const { signal } = context;
  const get = () => http.request(`/api/v1/similar?q=${encodeComponent(query)}&${common}`, { signal });
  const post = () => http.request("/api/v1/similar", { method: "POST", json: { query, ...body }, signal });
  // Try the form that worked last; on 405 try the other one, and remember it only if it was accepted
  // (a proxy's stray 405 must not lock the toolset onto a method the server refuses).
  const [preferred, other] = mode.post ? [post, get] : [get, post];
  const first = await preferred();
  if (first.status !== 405) return first;
  context.notify(
    "info",
    LOGGER,
    `${context.calledAs}: the craboj server refused ${first.method} /api/v1/similar (405); retrying as ${mode.post ? "GET" : "POST"}`,
  );
  const second = await other();
  if (second.status !== 405) mode.post = !mode.post;
  return second;
}

/** The upstream strips one pair of surrounding double quotes before it measures the query. */
function withoutSurroundingQuotes(query: string): string {
  return query.length >= 2 && query.startsWith('"') && query.endsWith('"') ? query.slice(1, -1) : query;
}
