import * as v from "valibot";
import { defineTool } from "../../../core/tool.ts";
import { dotSegmentError, encodeComponent } from "../encode.ts";
import { quotedUpstream } from "../errors.ts";
import { ProblemShape, TruncatedShape, readRestOf, renderProblem, toProblemView } from "../render.ts";
import { UpstreamResolve, expectJson } from "../upstream.ts";
import { type OjDeps, SCOPE, argumentFailure, failure, readOnly, success, upstreamFailure } from "./shared.ts";

const Input = v.strictObject({
  query: v.pipe(
    v.string(),
    v.regex(/\S/, "query must be non-empty; give a problem URL, slug or prefixed ID such as cf1A"),
    v.description(
      "A problem URL, slug, or prefixed ID. Examples: 'https://leetcode.com/problems/two-sum', " +
        "'https://codeforces.com/problemset/problem/1/A', 'two-sum', 'cf1A', 'P1001', 'atcoder:abc001_1'",
    ),
  ),
});

const Output = v.object({
  resolved: v.object({ source: v.string(), id: v.string() }),
  problem: ProblemShape,
  truncated: TruncatedShape,
});

export function resolveProblem({ http }: OjDeps) {
  return defineTool({
    name: "resolve_problem",
    title: "Resolve a problem URL or ID",
    description:
      "Preferred way to look up a problem. Accepts a URL, problem slug, or prefixed ID and returns the full problem " +
      "(title, difficulty, tags, and description). Supports LeetCode, Codeforces, AtCoder, Luogu, and SPOJ. " +
      "Use this when the input format is uncertain; use get_problem when source and ID are already known.",
    input: Input,
    output: Output,
    annotations: readOnly("Resolve a problem URL or ID"),
    scope: SCOPE,
    async handler(args: v.InferOutput<typeof Input>, context) {
      const query = normalizeQuery(args.query.trim());
      const dots = dotSegmentError(context.calledAs, "query", query);
      if (dots) return argumentFailure(dots);
      const response = await http.request(`/api/v1/resolve/${encodeComponent(query)}`, { signal: context.signal });
      const outcome = expectJson(response, UpstreamResolve);
      if (!outcome.ok) return upstreamFailure(context, outcome.message);
      const { source, id, problem } = outcome.value;
      // The upstream answers 200 with `problem: null` when nothing matches (docs/contracts/oj.md §9).
      if (!problem) {
        return failure(
          `problem not found (${quotedUpstream(`${source || "unknown"}:${id || query}`)}). Check the URL or ID, or call get_problem with an explicit source and id.`,
        );
      }
      const view = toProblemView(problem, source || "leetcode");
      return success(
        context,
        renderProblem(view),
        { resolved: { source: source || view.source, id: id ?? view.id }, problem: view },
        readRestOf([view]),
      );
    },
  });
}

/**
 * `leetcode/two-sum` (an example the reference itself gives) has no `:` prefix, so the upstream
 * would look it up as the slug "leetcode/two-sum" and find nothing (docs/contracts/oj.md §9). Rewrite a
 * `platform/id` pair to the `platform:id` form the upstream understands; URLs are left alone.
 */
export function normalizeQuery(query: string): string {
  const pair = /^(atcoder|leetcode|codeforces|luogu|uva|spoj)\/([^/\s]+)$/i.exec(query);
  return pair ? `${pair[1]}:${pair[2]}` : query;
}
