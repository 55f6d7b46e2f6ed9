import * as v from "valibot";
import { defineTool } from "../../../core/tool.ts";
import { type Domain, isCalendarDate, todayFor } from "../dates.ts";
import { rawBodyText } from "../http.ts";
import { ProblemShape, TruncatedShape, readRestOf, renderProblem, toProblemView } from "../render.ts";
import { UpstreamDaily, UpstreamDailyFetching, expectJson } from "../upstream.ts";
import { LOGGER, type OjDeps, SCOPE, argumentFailure, failure, readOnly, success, upstreamFailure } from "./shared.ts";

const Input = v.strictObject({
  domain: v.optional(
    v.pipe(
      v.picklist(["com", "cn"], 'domain must be "com" (leetcode.com) or "cn" (leetcode.cn)'),
      v.description(
        "LeetCode domain: 'com' (default) or 'cn'. The daily challenge switches at 00:00 UTC on com and 00:00 UTC+8 on cn.",
      ),
    ),
    "com",
  ),
  date: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{4}-\d{2}-\d{2}$/, "invalid date format, expected YYYY-MM-DD"),
      v.description("Date as YYYY-MM-DD. Defaults to today in the domain's time zone (UTC for com, UTC+8 for cn)."),
    ),
  ),
});

const Output = v.object({
  status: v.pipe(
    v.picklist(["ready", "fetching"]),
    v.description('"fetching" when the server is still crawling the problem: call again after retry_after seconds.'),
  ),
  domain: v.picklist(["com", "cn"]),
  date: v.string(),
  retry_after: v.nullable(v.number()),
  problems: v.array(ProblemShape),
  truncated: TruncatedShape,
});

export function getDailyChallenge({ http }: OjDeps) {
  return defineTool({
    name: "get_daily_challenge",
    title: "LeetCode daily challenge",
    description:
      "Get the LeetCode daily challenge problem. Returns the full problem including title, difficulty, tags, and description. " +
      "Defaults to today in domain's timezone (UTC+0 for 'com', UTC+8 for 'cn'). Daily challenge switches at 00:00 in respective timezone.",
    input: Input,
    output: Output,
    annotations: readOnly("LeetCode daily challenge"),
    scope: SCOPE,
    async handler({ domain, date: requested }: v.InferOutput<typeof Input>, context) {
      if (requested !== undefined && !isCalendarDate(requested)) {
        return argumentFailure(
          `Invalid arguments for ${context.calledAs}: "date": invalid calendar date (got "${requested}"); give a real day as YYYY-MM-DD.`,
        );
      }
      const date = requested ?? todayFor(domain as Domain);
      const response = await http.request(`/api/v1/daily?domain=${domain}&date=${date}`, { signal: context.signal });

      // The server is crawling the problem: that is news, not an error (docs/contracts/oj.md §5).
      if (response.status === 202) {
        const retryAfter = response.isJson ? retryAfterOf(rawBodyText(response)) : undefined;
        const text =
          retryAfter === undefined
            ? "The daily challenge is currently being fetched. Please retry later."
            : `The daily challenge is currently being fetched. Please retry after ${retryAfter} seconds.`;
        context.notify(
          "info",
          LOGGER,
          `${context.calledAs}: the craboj server is still fetching the ${domain} daily challenge of ${date}`,
          {
            retry_after: retryAfter ?? null,
          },
        );
        return success(context, text, {
          status: "fetching",
          domain,
          date,
          retry_after: retryAfter ?? null,
          problems: [],
        });
      }

      const outcome = expectJson(response, UpstreamDaily);
      if (!outcome.ok) return upstreamFailure(context, outcome.message);
      const upstream = "problems" in outcome.value ? outcome.value.problems : [outcome.value];
      if (upstream.length === 0) {
        return failure(
          `No daily challenge was returned for leetcode.${domain} on ${date}; try another date or retry later.`,
        );
      }
      const problems = upstream.map((problem) => toProblemView(problem, "leetcode"));
      return success(
        context,
        // The date lives in structuredContent too, but a client that shows only text must see it.
        `Daily challenge of leetcode.${domain} for ${date}:\n\n${problems.map(renderProblem).join("\n\n")}`,
        { status: "ready", domain, date, retry_after: null, problems },
        readRestOf(problems),
      );
    },
  });
}

function retryAfterOf(text: string): number | undefined {
  try {
    const parsed = v.safeParse(UpstreamDailyFetching, JSON.parse(text));
    return parsed.success ? parsed.output.retry_after : undefined;
  } catch {
    return undefined;
  }
}
