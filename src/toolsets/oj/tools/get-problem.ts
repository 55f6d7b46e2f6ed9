import * as v from "valibot";
import { defineTool } from "../../../core/tool.ts";
import { encodeComponent } from "../encode.ts";
import { ProblemShape, renderProblem, toProblemView } from "../render.ts";
import { UpstreamProblem, expectJson } from "../upstream.ts";
import { type OjDeps, SCOPE, failure, readOnly, success } from "./shared.ts";

const Input = v.strictObject({
  source: v.pipe(
    v.string(),
    v.regex(/\S/, "source and id must be non-empty; give a platform such as leetcode, codeforces, atcoder or luogu"),
    v.description("Problem source: leetcode, codeforces, atcoder, luogu (or spoj)"),
  ),
  id: v.pipe(
    v.string(),
    v.regex(/\S/, "source and id must be non-empty; give the problem's id on that platform"),
    v.description("Problem ID on the platform. Examples: '1' or 'two-sum' (leetcode), '1A' (codeforces), 'abc001_1' (atcoder), 'P1001' (luogu)"),
  ),
});

export function getProblem({ http }: OjDeps) {
  return defineTool({
    name: "get_problem",
    title: "Problem by source and ID",
    description:
      "Get a specific problem by source and ID. Returns the full problem including title, difficulty, tags, and description. " +
      "Supports LeetCode, Codeforces, AtCoder, and Luogu. Use resolve_problem instead when the input is a URL or the ID format is uncertain.",
    input: Input,
    output: v.object({ problem: ProblemShape }),
    annotations: readOnly("Problem by source and ID"),
    scope: SCOPE,
    async handler(args, { signal }) {
      const source = args.source.trim();
      const id = args.id.trim();
      const response = await http.request(`/api/v1/problems/${encodeComponent(source)}/${encodeComponent(id)}`, { signal });
      const outcome = expectJson(response, UpstreamProblem);
      if (!outcome.ok) return failure(outcome.message);
      const problem = toProblemView(outcome.value, source);
      return success(renderProblem(problem), { problem });
    },
  });
}
