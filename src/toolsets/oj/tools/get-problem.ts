import * as v from "valibot";
import { defineTool } from "../../../core/tool.ts";
import { dotSegmentError, encodeComponent } from "../encode.ts";
import { ProblemShape, TruncatedShape, readRestOf, renderProblem, toProblemView } from "../render.ts";
import { sourceSchema } from "../sources.ts";
import { UpstreamProblem, expectJson } from "../upstream.ts";
import { type OjDeps, SCOPE, argumentFailure, readOnly, success, upstreamFailure } from "./shared.ts";

const Input = v.strictObject({
  source: sourceSchema("Platform of the problem: leetcode, codeforces, atcoder, luogu or spoj (any letter case)."),
  id: v.pipe(
    v.string(),
    v.regex(/\S/, "id must be non-empty; give the problem's id on that platform"),
    v.description(
      "Problem ID on the platform. Examples: '1' or 'two-sum' (leetcode), '1A' (codeforces), 'abc001_1' (atcoder), 'P1001' (luogu)",
    ),
  ),
});

const Output = v.object({ problem: ProblemShape, truncated: TruncatedShape });

export function getProblem({ http }: OjDeps) {
  return defineTool({
    name: "get_problem",
    title: "Problem by source and ID",
    description:
      "Get a specific problem by source and ID. Returns the full problem including title, difficulty, tags, and description. " +
      "Supports LeetCode, Codeforces, AtCoder, Luogu, and SPOJ. Use resolve_problem instead when the input is a URL or the ID format is uncertain.",
    input: Input,
    output: Output,
    annotations: readOnly("Problem by source and ID"),
    scope: SCOPE,
    async handler({ source, id: rawId }: v.InferOutput<typeof Input>, context) {
      const id = rawId.trim();
      const dots = dotSegmentError(context.calledAs, "id", id);
      if (dots) return argumentFailure(dots);
      const response = await http.request(`/api/v1/problems/${encodeComponent(source)}/${encodeComponent(id)}`, {
        signal: context.signal,
      });
      const outcome = expectJson(response, UpstreamProblem);
      if (!outcome.ok) return upstreamFailure(context, outcome.message);
      const problem = toProblemView(outcome.value, source);
      return success(context, renderProblem(problem), { problem }, readRestOf([problem]));
    },
  });
}
