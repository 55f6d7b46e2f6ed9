import * as v from "valibot";
import { configurationErrorResult, defineTool } from "../../../core/tool.ts";
import { StatusShape, renderStatus } from "../render.ts";
import { UpstreamStatus, expectJson } from "../upstream.ts";
import { type OjDeps, SCOPE, readOnly, success, upstreamFailure } from "./shared.ts";

/** No arguments; a module constant, so a release binary lists its JSON Schema frozen (core/json-schema.ts). */
const Input = v.strictObject({});

export function getPlatformStatus({ http, hasToken }: OjDeps) {
  return defineTool({
    name: "get_platform_status",
    title: "Platform coverage",
    description:
      "Get problem counts and indexing coverage for each platform (LeetCode, Codeforces, AtCoder, Luogu, SPOJ). " +
      "Returns total problems, missing content count, and un-embedded count per platform. Needs the server's token (--oj-token).",
    input: Input,
    output: StatusShape,
    annotations: readOnly("Platform coverage"),
    scope: SCOPE,
    async handler(_args, context) {
      // /status is behind the bearer gate, so without a token do not even ask (docs/contracts/oj.md §4).
      if (!hasToken) {
        // Worded for a server and for `mcpkit call` alike: "restart" meant nothing to a one-shot call.
        return configurationErrorResult(
          "Authentication required: --oj-token (or OJ_TOKEN) must be provided to use get_platform_status. Run mcpkit again with --oj-token TOKEN, or with OJ_TOKEN=TOKEN in its environment, where TOKEN is the craboj server's API token.",
        );
      }
      const outcome = expectJson(await http.request("/status", { signal: context.signal }), UpstreamStatus);
      if (!outcome.ok) return upstreamFailure(context, outcome.message);
      const status = { version: outcome.value.version ?? "unknown", platforms: outcome.value.platforms };
      return success(context, renderStatus(status), status);
    },
  });
}
