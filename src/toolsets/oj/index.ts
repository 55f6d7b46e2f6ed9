/**
 * The `oj` toolset: online-judge problems (LeetCode, Codeforces, AtCoder, Luogu) from a craboj
 * (oj-api-rs) server, per seed 003 and research/oj.md. Enabled when a base URL is given.
 */
import { defineToolsetModule } from "../../core/toolset-module.ts";
import { type OjConfig, ojOptions, readOjConfig } from "./config.ts";
import { OjHttpClient } from "./http.ts";
import { withTokenRedacted } from "./redact.ts";
import { findSimilarProblems } from "./tools/find-similar-problems.ts";
import { getDailyChallenge } from "./tools/get-daily-challenge.ts";
import { getPlatformStatus } from "./tools/get-platform-status.ts";
import { getProblem } from "./tools/get-problem.ts";
import { resolveProblem } from "./tools/resolve-problem.ts";

export const oj = defineToolsetModule<OjConfig>({
  name: "oj",
  summary: "online-judge problems (LeetCode daily, problems, similar problems, platform status) from a craboj server",
  options: ojOptions,
  configure(values, runtime) {
    // Last line of defence, registered before anything can fail: even a stray log of the token prints "[redacted]".
    const rawToken = values["oj-token"];
    if (typeof rawToken === "string" && rawToken.trim() !== "") {
      runtime.log.redact(rawToken.trim());
      // Log fields are JSON-encoded: a token holding `"` or `\` would appear there escaped.
      runtime.log.redact(JSON.stringify(rawToken.trim()).slice(1, -1));
    }
    const config = readOjConfig(values);
    return config ?? { missing: "--oj-base-url URL (or OJ_BASE_URL)" };
  },
  create(config, runtime) {
    const log = runtime.log;
    log.info("oj: craboj server", { base_url: config.baseUrl, timeout_ms: config.timeoutMs });
    log.info(config.token === undefined ? "oj: token: not configured" : "oj: token: configured");
    const deps = { http: new OjHttpClient(config, log), hasToken: config.token !== undefined };
    return {
      name: "oj",
      tools: [getDailyChallenge(deps), getProblem(deps), findSimilarProblems(deps), resolveProblem(deps), getPlatformStatus(deps)].map(
        (tool) => withTokenRedacted(tool, config.token),
      ),
    };
  },
});
