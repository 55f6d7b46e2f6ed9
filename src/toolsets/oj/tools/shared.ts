/** What every `oj` tool shares: the HTTP client, the token's presence, and how results are built. */
import { fitStructured, fitText } from "../../../core/output-budget.ts";
import { byteLength } from "../../../core/text.ts";
import {
  type ToolAnnotations,
  type ToolContext,
  type ToolResult,
  argumentErrorResult,
  errorResult,
  textResult,
} from "../../../core/tool.ts";
import { truncateOutput } from "../format.ts";
import type { OjHttpClient } from "../http.ts";

export interface OjDeps {
  http: OjHttpClient;
  hasToken: boolean;
}

export const SCOPE = "oj:read";
/** The `logger` of the toolset's client notifications. */
export const LOGGER = "oj";

export function readOnly(title: string): ToolAnnotations {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
}

/**
 * Every success text leaves through here (docs/contracts/oj.md §6): at most 102,400 bytes plus
 * the `... (truncated)` suffix, and within the caller's output budget; the smaller limit wins.
 * Over the budget the text is cut at a line and ends with a note saying how to read the rest
 * (`rest`, e.g. the problem's link).
 */
export function success(
  context: Pick<ToolContext, "outputBudget" | "calledAs">,
  markdown: string,
  structured: Record<string, unknown>,
  rest?: string,
): ToolResult {
  // Without a statement's link to point to, the output budget's last resort (which knows the
  // tool's arguments) cuts both halves and says what can be done about the rest.
  if (rest === undefined) return textResult(truncateOutput(markdown), structured);
  const budget = context.outputBudget;
  const note = (shown: number, total: number) =>
    `[${context.calledAs}: cut at ${shown} of ${total} bytes to fit the output budget of ${budget} bytes (--max-output-bytes); ${rest}.]`;
  return textResult(
    fitOutput(markdown, budget, context.calledAs, rest),
    // Claude Code and VS Code show a model only structuredContent: the statement there is cut too.
    fitStructuredMarked(structured, budget, note, rest),
  );
}

/**
 * `structured` cut to `budget` like the text, and, when it was cut, saying so in a top-level
 * `truncated` field (declared by each outputSchema: `TruncatedShape`), whose room is kept before
 * the cut. Without it the output budget's last resort, should it cut the text again, took the
 * structuredContent for complete and said so.
 */
function fitStructuredMarked(
  structured: Record<string, unknown>,
  budget: number,
  note: (shown: number, total: number) => string,
  rest: string,
): Record<string, unknown> {
  if (fitStructured(structured, budget, note) === structured) return structured;
  const truncated = {
    continuation: `The statement (content) is cut to fit the output budget of ${budget} bytes (--max-output-bytes); ${rest}.`,
  };
  const room = byteLength(JSON.stringify({ truncated })) - 1; // the braces, less the comma that joins it
  return { ...fitStructured(structured, Math.max(0, budget - room), note), truncated };
}

export function fitOutput(markdown: string, budget: number, calledAs: string, rest?: string): string {
  const capped = truncateOutput(markdown);
  if (byteLength(capped) <= budget) return capped;
  return fitText(
    markdown,
    budget,
    (shown, total) =>
      `[${calledAs}: text cut at ${shown} of ${total} bytes to fit the output budget of ${budget} bytes (--max-output-bytes)` +
      `${rest ? `; ${rest}` : ""}.]`,
  ).text;
}

export function failure(message: string): ToolResult {
  return errorResult(truncateOutput(message));
}

/** The arguments are wrong in meaning (a date that is no day, a query too short): `mcpkit call` exits 2. */
export function argumentFailure(message: string): ToolResult {
  return argumentErrorResult(truncateOutput(message));
}

/** An HTTP error status from the craboj server: an `isError` result, and a warning in the client's log. */
export function upstreamFailure(context: Pick<ToolContext, "notify" | "calledAs">, message: string): ToolResult {
  context.notify("warning", LOGGER, `${context.calledAs}: the craboj server answered ${truncateOutput(message, 500)}`);
  return failure(message);
}
