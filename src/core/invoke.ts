/**
 * Runs one tool call: argument checks, the handler, and the mapping of unexpected failures.
 * Shared by the MCP server and `mcpkit call`, so both behave the same way.
 */
import { shownValue } from "./text.ts";
import * as v from "valibot";
import { closestName } from "./did-you-mean.ts";
import { jitAtNormalPace } from "./jit-policy.ts";
import { type ToolShape, fitResult } from "./output-budget.ts";
import {
  ErrorCode,
  InputRequired,
  ProtocolError,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  type Toolset,
  argumentErrorResult,
  withoutNullForAbsent,
} from "./tool.ts";

/** A place the call holds while it runs (the server's admission control), given back once it ends. */
export interface Releasable {
  release(): void;
}

export async function invokeTool(
  toolset: Toolset,
  tool: ToolDefinition,
  rawArguments: unknown,
  context: ToolContext,
  slot?: Releasable,
): Promise<ToolResult> {
  // A tool call is the work that repeats: from the first one on, the JIT compiles at its usual pace.
  jitAtNormalPace();
  // One async function, its slot given back in `finally`: however the call ends, exactly once.
  try {
    const args = rawArguments ?? {};
    if (typeof args !== "object" || Array.isArray(args)) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Invalid request: "arguments" of ${context.calledAs} must be a JSON object, got ${Array.isArray(args) ? "an array" : typeof args}.`,
      );
    }
    const parsed = v.safeParse(tool.input, withoutNullForAbsent(tool.input, args));
    if (!parsed.success) {
      const message = describeArgumentIssues(tool, parsed.issues, context.calledAs);
      return toolset.rejectArguments
        ? toolset.rejectArguments(message, tool, issueField(parsed.issues[0]))
        : argumentErrorResult(message);
    }
    try {
      return fitResult(
        await tool.handler(parsed.output, context),
        context.outputBudget,
        context.calledAs,
        () => toolShape(tool),
        tool.structuredBytesAtMost,
      );
    } catch (error) {
      throw failureOf(toolset, context, error);
    }
  } finally {
    slot?.release();
  }
}

/** What a handler's failure becomes: protocol errors as they are, others mapped or reported as internal. */
function failureOf(toolset: Toolset, context: ToolContext, error: unknown): unknown {
  if (error instanceof ProtocolError || error instanceof InputRequired) return error;
  const mapped = toolset.mapError?.(error, context.calledAs);
  if (mapped) return mapped;
  if (context.signal.aborted) return new ProtocolError(ErrorCode.InternalError, `${context.calledAs} was cancelled.`);
  context.log.error("tool failed", {
    tool: context.calledAs,
    error: error instanceof Error ? error.message : String(error),
  });
  return new ProtocolError(
    ErrorCode.InternalError,
    `Internal error in ${context.calledAs}; run the server with --log-level debug for details.`,
  );
}

/** The argument an issue is about, as the tools' own checks name it (`codes[0]`, `layers`); undefined for the whole object. */
function issueField(issue: v.BaseIssue<unknown> | undefined): string | undefined {
  let field = "";
  for (const { key } of issue?.path ?? [])
    field += typeof key === "number" ? `[${key}]` : `${field ? "." : ""}${String(key)}`;
  return field || undefined;
}

/**
 * One sentence per problem, each naming the argument and what would be accepted, e.g.
 * `Invalid arguments for fs.search_by_time: "limit" must be at most 1000 (got 5000).`
 */
export function describeArgumentIssues(
  tool: ToolDefinition,
  issues: readonly v.BaseIssue<unknown>[],
  calledAs = tool.name,
): string {
  const allowed = allowedKeys(tool.input);
  const sentences = issues.slice(0, 5).map((issue) => {
    const path = (issue.path ?? []).map((item) => String(item.key)).join(".");
    // A missing required key is also reported by strict objects, so test for it first.
    if (issue.received === "undefined" && issue.kind === "schema") {
      return `missing required argument "${path}"`;
    }
    if (issue.type === "strict_object" || issue.expected === "never") {
      return `unknown argument "${path}"${unknownAdvice(path, allowed)}`;
    }
    const got = issue.kind === "schema" ? "" : ` (got ${shownValue(issue.input)})`;
    return path ? `"${path}": ${lowerFirst(issue.message)}${got}` : `${lowerFirst(issue.message)}${got}`;
  });
  const said = sentences.join("; ");
  // A sentence ending in a question ("did you mean …?") takes no full stop after it.
  return `Invalid arguments for ${calledAs}: ${said}${said.endsWith("?") ? "" : "."} Fix the argument${sentences.length > 1 ? "s" : ""} and call again.`;
}

/**
 * What to say after an unknown argument: the one it was probably meant to be, compared without
 * case, `_` and `-` (time_field → timeField, startdate → start_date, ID → id) or by a typo's edit
 * distance (code → codes, querry → query); else the list of those allowed, or, for a tool that
 * takes none, that it takes none (an empty "(allowed: )" told a model nothing).
 */
function unknownAdvice(name: string, allowed: readonly string[] | undefined): string {
  if (!allowed) return "";
  if (allowed.length === 0) return "; this tool takes no arguments; call it with {}";
  const plain = (text: string) => text.toLowerCase().replace(/[_-]/g, "");
  const wanted = plain(name);
  const meant =
    allowed.find((candidate) => plain(candidate) === wanted) ??
    allowed.find((candidate) => plain(candidate) === closestName(wanted, allowed.map(plain)));
  return meant ? `; did you mean "${meant}"?` : ` (allowed: ${allowed.join(", ")})`;
}

/** What the output budget's last resort needs to know of a tool (its arguments, where a marker may go). */
function toolShape(tool: ToolDefinition): ToolShape {
  const output = unwrap(tool.output);
  return {
    argumentNames: allowedKeys(tool.input),
    truncatedAllowed: !(output?.type === "strict_object" && !output.entries?.truncated),
  };
}

function unwrap(schema: unknown): { type?: string; entries?: Record<string, unknown> } | undefined {
  const current = schema as { type?: string; entries?: Record<string, unknown>; pipe?: unknown[] } | undefined;
  return current?.pipe ? (current.pipe[0] as typeof current) : current;
}

function allowedKeys(schema: unknown): string[] | undefined {
  const entries = unwrap(schema)?.entries;
  return entries ? Object.keys(entries) : undefined;
}

function lowerFirst(text: string): string {
  return text.length > 1 && /^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}
