/**
 * The `oj` toolset: online-judge problems (LeetCode, Codeforces, AtCoder, Luogu) from a craboj
 * (oj-api-rs) server, as docs/contracts/oj.md describes. Enabled when a base URL is given.
 */
import { withMiddleware } from "../../core/tool.ts";
import { defineToolsetModule } from "../../core/toolset-module.ts";
import { type OjConfig, ojOptions, readOjConfig } from "./config.ts";
import { OjHttpClient } from "./http.ts";
import { sanitizedOutput, tokenForms } from "./sanitize.ts";
import { findSimilarProblems } from "./tools/find-similar-problems.ts";
import { getDailyChallenge } from "./tools/get-daily-challenge.ts";
import { getPlatformStatus } from "./tools/get-platform-status.ts";
import { getProblem } from "./tools/get-problem.ts";
import { resolveProblem } from "./tools/resolve-problem.ts";

export const oj = defineToolsetModule<OjConfig>({
  name: "oj",
  summary: "online-judge problems (LeetCode daily, problems, similar problems, platform status) from a craboj server",
  options: ojOptions,
  // Only to describe the tools when oj is off (mcpkit call TOOL --help); nothing is ever sent there.
  placeholderValues: { "oj-base-url": "http://127.0.0.1:9" },
  configure(values, runtime) {
    // Last line of defence, registered before anything can fail: a stray log of the token, in any
    // form an upstream could echo it in, prints "[redacted]". (The tools never log upstream text
    // before sanitizing it, which also removes fragments of the token: docs/contracts/oj.md §7.)
    const rawToken = values["oj-token"];
    if (typeof rawToken === "string" && rawToken.trim() !== "") {
      for (const form of tokenForms(rawToken.trim())) {
        runtime.log.redact(form);
        // Log fields are JSON-encoded: a form holding `"` or `\` would appear there escaped.
        runtime.log.redact(JSON.stringify(form).slice(1, -1));
      }
    }
    const config = readOjConfig(values);
    return config ?? { missing: "--oj-base-url URL (or OJ_BASE_URL)" };
  },
  create(config, runtime) {
    const log = runtime.log;
    log.info("oj: craboj server", { base_url: config.baseUrl, timeout_ms: config.timeoutMs });
    log.info(config.token === undefined ? "oj: token: not configured" : "oj: token: configured");
    const http = new OjHttpClient(config, log);
    const deps = { http, hasToken: config.token !== undefined };
    const tools = [
      getDailyChallenge(deps),
      getProblem(deps),
      findSimilarProblems(deps),
      resolveProblem(deps),
      getPlatformStatus(deps),
    ];
    return {
      name: "oj",
      tools: withMiddleware(tools, [sanitizedOutput(http.sanitize, { notifyFailures: runtime.mode !== "call" })]),
    };
  },
});
