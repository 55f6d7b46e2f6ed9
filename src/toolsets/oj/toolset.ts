/**
 * The `oj` toolset built from its configuration (`index.ts` reads the options): the craboj client
 * and the tools, behind the output sanitizer. Loaded only when the toolset is built, so a start
 * with oj off, or a `mcpkit call` of another toolset's tool, never evaluates them.
 */
import { type Toolset, withMiddleware } from "../../core/tool.ts";
import type { Runtime } from "../../core/toolset-module.ts";
import type { OjConfig } from "./config.ts";
import { OjHttpClient } from "./http.ts";
import { sanitizedOutput } from "./sanitize.ts";
import { findSimilarProblems } from "./tools/find-similar-problems.ts";
import { getDailyChallenge } from "./tools/get-daily-challenge.ts";
import { getPlatformStatus } from "./tools/get-platform-status.ts";
import { getProblem } from "./tools/get-problem.ts";
import { resolveProblem } from "./tools/resolve-problem.ts";

export function createOj(config: OjConfig, runtime: Runtime): Toolset {
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
}
