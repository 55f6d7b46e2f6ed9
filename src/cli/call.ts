/** `mcpkit tools` and `mcpkit call`: the toolsets without a protocol, for scripts and people. */
import { logToStderr } from "../core/client-log.ts";
import { closestName } from "../core/did-you-mean.ts";
import { invokeTool } from "../core/invoke.ts";
import { jsonSchemaOf } from "../core/json-schema.ts";
import type { Logger } from "../core/log.ts";
import { ConfigError } from "../core/options.ts";
import {
  ErrorCode,
  ProtocolError,
  type ToolContext,
  type ToolDefinition,
  type Toolset,
  blamesArguments,
  blamesConfiguration,
  isCallFailureLevel,
  toolNamed,
} from "../core/tool.ts";
import type { DormantToolset, OffToolset } from "./toolsets.ts";

/** The toolsets that are off, described only when a name is not found among the enabled ones. */
export type DormantLookup = () => readonly DormantToolset[];

export const EXIT_OK = 0;
export const EXIT_TOOL_ERROR = 1;
export const EXIT_USAGE = 2;

/** The enabled tools (name and title), then the toolsets that are off and why. */
export function listTools(toolsets: readonly Toolset[], off: readonly OffToolset[]): string {
  const tools = toolsets.flatMap((toolset) => toolset.tools);
  const width = Math.max(...tools.map((tool) => tool.name.length));
  const lines = tools.map((tool) => `${tool.name.padEnd(width)}  ${tool.title}\n`);
  for (const toolset of off) lines.push(`${toolset.name}: off, ${toolset.reason}\n`);
  return lines.join("");
}

/**
 * For a server: which toolset that is off a tool name belongs to and how to enable it, as a
 * sentence for the caller (the toolsets that are off are described only now); undefined when no
 * toolset has that tool.
 */
export function offToolNote(name: string, dormantLookup: DormantLookup): string | undefined {
  const found = offToolNamed(dormantLookup(), name);
  return (
    found && `it belongs to the ${found.toolset.name} toolset, which is off on this server (${found.off.howToEnable}).`
  );
}

/** A tool called `name` (or by its seed name) among the toolsets that are off, with what turns its toolset on. */
function offToolNamed(
  dormant: readonly DormantToolset[],
  name: string,
): { toolset: Toolset; tool: ToolDefinition; off: DormantToolset } | undefined {
  for (const off of dormant) {
    const found = toolNamed([off.toolset], name);
    if (found) return { ...found, off };
  }
  return undefined;
}

export function findTool(
  toolsets: readonly Toolset[],
  name: string,
  dormantLookup: DormantLookup = () => [],
): { toolset: Toolset; tool: ToolDefinition } {
  const found = lookUpTool(toolsets, dormantLookup, name);
  if (found.off) {
    throw new ConfigError(
      `${found.tool.name} belongs to the ${found.toolset.name} toolset, which is off: ${found.off.howToEnable}`,
    );
  }
  return found;
}

/**
 * The tool a name stands for among the enabled toolsets, else among those that are off (`off` then
 * says how to enable it; they are described only now); a ConfigError with the closest name when
 * there is none.
 */
function lookUpTool(
  toolsets: readonly Toolset[],
  dormantLookup: DormantLookup,
  name: string,
): { toolset: Toolset; tool: ToolDefinition; off?: DormantToolset } {
  const enabled = toolNamed(toolsets, name);
  if (enabled) return enabled;
  const dormant = dormantLookup();
  const off = offToolNamed(dormant, name);
  if (off) return off;
  const near = closestName(
    name,
    [...toolsets, ...dormant.map((off) => off.toolset)].flatMap((toolset) => toolset.tools.map((tool) => tool.name)),
  );
  throw new ConfigError(
    `unknown tool "${name}"${near ? `; did you mean "${near}"?` : ""}; run 'mcpkit tools' to list the enabled tools`,
  );
}

/** `mcpkit call TOOL --help`: what the tool does and its arguments, with types, defaults and allowed values. */
export function toolHelp(toolsets: readonly Toolset[], name: string, dormantLookup: DormantLookup = () => []): string {
  const { tool, off } = lookUpTool(toolsets, dormantLookup, name);
  const schema = jsonSchemaOf(tool, "input") as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const lines = [
    `${tool.name}${tool.seedName ? ` (also ${tool.seedName})` : ""}: ${tool.title}`,
    "",
    ...wrap(tool.description, 100),
    "",
    "Arguments (one JSON object):",
  ];
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) lines.push("  (none)");
  for (const [key, property] of properties) {
    const facts = [typeOf(property)];
    if (schema.required?.includes(key)) facts.push("required");
    if (property.default !== undefined) facts.push(`default ${JSON.stringify(property.default)}`);
    if (Array.isArray(property.enum))
      facts.push(`one of ${property.enum.map((value) => JSON.stringify(value)).join(", ")}`);
    for (const [bound, word] of [
      ["minimum", "min"],
      ["maximum", "max"],
      ["minLength", "min length"],
      ["maxLength", "max length"],
    ] as const) {
      if (property[bound] !== undefined) facts.push(`${word} ${property[bound]}`);
    }
    lines.push(`  ${key} (${facts.join(", ")})`);
    if (typeof property.description === "string")
      lines.push(...wrap(property.description, 96).map((line) => `      ${line}`));
  }
  lines.push("", `Example: mcpkit call ${tool.name} '{${exampleArguments(schema)}}'`);
  if (off) lines.push("", `The ${off.toolset.name} toolset is off here: ${off.howToEnable}.`);
  return `${lines.join("\n")}\n`;
}

function typeOf(property: Record<string, unknown>): string {
  if (Array.isArray(property.type)) return property.type.join(" or ");
  if (typeof property.type === "string")
    return property.type === "array"
      ? `array of ${typeOf((property.items ?? {}) as Record<string, unknown>)}`
      : property.type;
  if (Array.isArray(property.anyOf))
    return property.anyOf.map((option) => typeOf(option as Record<string, unknown>)).join(" or ");
  return "any";
}

function exampleArguments(schema: {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}): string {
  return (schema.required ?? [])
    .map((key) => {
      const property = schema.properties?.[key] ?? {};
      const value = Array.isArray(property.enum)
        ? property.enum[0]
        : property.type === "number" || property.type === "integer"
          ? 1
          : "…";
      return `"${key}":${JSON.stringify(value)}`;
    })
    .join(",");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export interface CallOutcome {
  code: number;
  stdout: string;
}

export interface CallRequest {
  name: string | undefined;
  json: string | undefined;
  /** Print only the text content (for people) instead of the JSON result (for scripts). */
  textOnly: boolean;
  /** Draw the result in the terminal instead, for a tool that can (`--chart`, ToolDefinition.terminalChart). */
  chart?: boolean;
  outputBudget: number;
}

/** The warning for `--chart` on a tool without a terminal chart, naming those that have one here. */
function noChart(name: string, toolsets: readonly Toolset[]): string {
  const charted = toolsets.flatMap((toolset) =>
    toolset.tools.filter((tool) => tool.terminalChart).map((tool) => tool.name),
  );
  const others = charted.length === 0 ? "" : `; ${charted.join(" and ")} can be drawn`;
  return `--chart: ${name} has no terminal chart, so its result is printed as usual${others}`;
}

export async function callTool(
  toolsets: readonly Toolset[],
  request: CallRequest,
  log: Logger,
  signal: AbortSignal,
  dormant: DormantLookup = () => [],
): Promise<CallOutcome> {
  const { name, json } = request;
  if (!name) throw new ConfigError("usage: mcpkit call TOOL [JSON]; run 'mcpkit tools' for the tool names");
  const { toolset, tool } = findTool(toolsets, name, dormant);

  let args: unknown = {};
  if (json !== undefined) {
    try {
      if (json === "-") log.debug(`reading the JSON arguments of ${name} from stdin`);
      args = JSON.parse(json === "-" ? await Bun.stdin.text() : json);
    } catch (error) {
      throw new ConfigError(
        `the JSON arguments for ${name} do not parse (${(error as Error).message}); pass one JSON object, e.g. '{"key":"value"}'`,
      );
    }
  }
  const context: ToolContext = {
    signal,
    log,
    calledAs: name,
    outputBudget: request.outputBudget,
    // No client: what a client would be told goes to stderr, so a person sees retries and skips;
    // not the call's own failure, which is printed below once (issue 35: it was said twice).
    notify: (level, logger, message, data) => {
      if (!isCallFailureLevel(level)) logToStderr(log, level === "debug" ? "debug" : "warning", logger, message, data);
    },
    reportProgress: ({ progress, total, message }) =>
      log.debug("progress", { progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) }),
    clientRoots: async () => undefined,
  };
  try {
    const result = await invokeTool(toolset, tool, args, context);
    // Arguments the tool refuses (its schema, or wrong in meaning) and configuration it lacks (a
    // token) mean the command must change (2); any other isError result means the tool or its
    // upstream failed (1).
    const usage = blamesArguments(result) || blamesConfiguration(result);
    const code = usage ? EXIT_USAGE : result.isError ? EXIT_TOOL_ERROR : EXIT_OK;
    if (request.chart && tool.terminalChart && !result.isError && result.structuredContent) {
      const screen = { columns: process.stdout.columns ?? 80, tty: process.stdout.isTTY === true };
      return { code, stdout: await tool.terminalChart(result.structuredContent, screen) };
    }
    if (request.chart && !tool.terminalChart) log.warn(noChart(name, toolsets));
    if (!request.textOnly) return { code, stdout: `${JSON.stringify(result, null, 2)}\n` };
    const text = result.content
      .map((block) => (block.type === "text" ? block.text : `${block.name}: ${block.uri}`))
      .join("\n\n");
    return { code, stdout: text.endsWith("\n") ? text : `${text}\n` };
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    const code = isUsageError(error) ? EXIT_USAGE : EXIT_TOOL_ERROR;
    // With --text the message is the output: a person at a terminal would read it twice.
    if (request.textOnly) return { code, stdout: `${error.message}\n` };
    log.error(error.message);
    const body = { error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) } };
    return { code, stdout: `${JSON.stringify(body, null, 2)}\n` };
  }
}

/**
 * A protocol error the caller caused: invalid params without an upstream behind them (bad
 * arguments, an unknown tool). BOJ's own errors carry `data.error_type` API_ERROR,
 * TRANSPORT_ERROR or DECODE_ERROR: the upstream failed, not the call.
 */
function isUsageError(error: ProtocolError): boolean {
  if (error.code !== ErrorCode.InvalidParams) return false;
  const type = error.data?.error_type;
  return type === undefined || type === "VALIDATION_ERROR";
}
