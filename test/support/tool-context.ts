/** What a tool's handler sees of a call made directly by a test: no client, no log, nothing cancelled. */
import { silentLogger } from "../../src/core/log.ts";
import type { ToolContext } from "../../src/core/tool.ts";

export function quietToolContext(calledAs: string, outputBudget = 100_000): ToolContext {
  return {
    signal: new AbortController().signal,
    calledAs,
    outputBudget,
    notify: () => {},
    reportProgress: () => {},
    clientRoots: async () => undefined,
    log: silentLogger,
  };
}
