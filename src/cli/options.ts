/**
 * Reads the command line and the environment into OptionValues, for every option any part of
 * mcpkit declares. Unknown flags and missing values are usage errors (exit 2).
 */
import { delimiter } from "node:path";
import { DEFAULT_OUTPUT_BUDGET } from "../core/output-budget.ts";
import * as v from "valibot";
import { ConfigError, type OptionSpec, type OptionValues, integerOption } from "../core/options.ts";
import { closestName } from "../core/did-you-mean.ts";
import { lazy } from "../core/lazy.ts";
import { toolsetModules } from "../toolsets/index.ts";
import { type ArgOption, type ParsedArgs, parsePlainArgs } from "./plain-args.ts";

/** node:util's reader, loaded only for a command line plain-args.ts leaves to it (and its errors). */
const nodeParseArgs = lazy(() => (require("node:util") as typeof import("node:util")).parseArgs);

/** Options that belong to mcpkit itself rather than to a toolset or transport, by name. */
export const toolsetsOption = {
  name: "toolsets",
  env: "MCPKIT_TOOLSETS",
  kind: "string",
  valueName: "LIST",
  help: `Comma list of toolsets to enable: ${toolsetModules.map((module) => module.name).join(", ")}, or all.`,
  defaultText: "every toolset whose configuration is present",
} as const satisfies OptionSpec;

export const logLevelOption = {
  name: "log-level",
  env: "LOG_LEVEL",
  kind: "string",
  valueName: "LEVEL",
  help: "error|warn|info|debug|trace|off, to stderr only (RUST_LOG is read when LOG_LEVEL is unset).",
  defaultText: "info (warn for tools/call)",
} as const satisfies OptionSpec;

export const logFormatOption = {
  name: "log-format",
  env: "LOG_FORMAT",
  kind: "string",
  valueName: "text|json",
  help: "text lines, or one JSON object a line (time, level, message, fields, and the trace_id and span_id of the request with OpenTelemetry on).",
  schema: v.optional(v.picklist(["text", "json"], "expected text or json"), "text"),
} as const satisfies OptionSpec;

export const toolNamesOption = {
  name: "tool-names",
  env: "MCPKIT_TOOL_NAMES",
  kind: "string",
  valueName: "portable|seed",
  help: "which tool names tools/list shows: portable ones every client accepts (fs_search_by_time), or the specification's own (fs.search_by_time); calls accept both.",
  schema: v.optional(v.picklist(["portable", "seed"], "expected portable or seed"), "portable"),
} as const satisfies OptionSpec;

export const maxOutputBytesOption = {
  name: "max-output-bytes",
  env: "MCPKIT_MAX_OUTPUT_BYTES",
  kind: "string",
  valueName: "N",
  help: "most bytes of text one tool result carries (about 4 bytes a token); longer results are cut at a clean boundary and say how to get the rest.",
  schema: integerOption(1_000, 10_000_000, DEFAULT_OUTPUT_BUDGET, "bytes"),
} as const satisfies OptionSpec;

export const maxCallsOption = {
  name: "max-calls",
  env: "MCPKIT_MAX_CALLS",
  kind: "string",
  valueName: "N",
  help: "most tool calls running at once in the whole server; more wait in a queue (--max-queued-calls), and beyond it a call is refused: HTTP 503 with Retry-After, JSON-RPC error -32000 on stdio",
  defaultText: "16 a core, at least 64 and at most 1024",
  // No fallback here: the default depends on the machine (`protocol/admission.ts` defaultCallLimits).
  schema: v.optional(integerOption(1, 100_000, 0, "calls").wrapped),
} as const satisfies OptionSpec;

export const maxCallsPerSubjectOption = {
  name: "max-calls-per-subject",
  env: "MCPKIT_MAX_CALLS_PER_SUBJECT",
  kind: "string",
  valueName: "N",
  help: "most tool calls one caller (token issuer + sub, else the 2025 session; HTTP callers with neither count as one) runs at once, and may have waiting; beyond it its calls get HTTP 429 with Retry-After; at most --max-calls",
  defaultText: "a quarter of --max-calls (at least 1)",
  schema: v.optional(integerOption(1, 100_000, 0, "calls").wrapped),
} as const satisfies OptionSpec;

export const maxQueuedCallsOption = {
  name: "max-queued-calls",
  env: "MCPKIT_MAX_QUEUED_CALLS",
  kind: "string",
  valueName: "N",
  help: "most tool calls waiting for a slot in the whole server (first come, first served; a cancelled one leaves at once); 0 refuses every call beyond --max-calls",
  defaultText: "twice --max-calls",
  schema: v.optional(integerOption(0, 1_000_000, 0, "calls").wrapped),
} as const satisfies OptionSpec;

export const textOption = {
  name: "text",
  kind: "boolean",
  help: "with 'call': print only the result's text (for people); the JSON result stays the default (for scripts).",
} as const satisfies OptionSpec;

export const chartOption = {
  name: "chart",
  kind: "boolean",
  help: "with 'call' of boj_get_data_code or boj_get_data_layer: draw each series as a sparkline labelled with its minimum, maximum and last value (plain text when stdout is not a terminal).",
} as const satisfies OptionSpec;

export const coreOptions = [
  toolsetsOption,
  logLevelOption,
  logFormatOption,
  toolNamesOption,
  maxOutputBytesOption,
  maxCallsOption,
  maxCallsPerSubjectOption,
  maxQueuedCallsOption,
  textOption,
  chartOption,
] as const satisfies readonly OptionSpec[];

export interface ParsedCommandLine {
  values: OptionValues;
  positionals: string[];
  help: boolean;
  version: boolean;
}

/** The options `parseArgs` reads for these specs, plus -h/--help and -V/--version. */
export function argOptionsOf(specs: readonly OptionSpec[]): Record<string, ArgOption> {
  const config: Record<string, ArgOption> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean", short: "V" },
  };
  for (const spec of specs) {
    config[spec.name] = {
      type: spec.kind === "boolean" ? "boolean" : "string",
      ...(spec.kind === "list" ? { multiple: true } : {}),
    };
  }
  return config;
}

export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  specs: readonly OptionSpec[],
): ParsedCommandLine {
  const config = argOptionsOf(specs);
  let parsed: ParsedArgs | undefined;
  // People type -v as often as -V; no option of mcpkit takes a value that could be "-v".
  const args = argv.map((arg) => (arg === "-v" ? "--version" : arg));
  try {
    parsed =
      parsePlainArgs(args, config) ??
      nodeParseArgs.get()({ args, options: config, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(explainParseError(error as Error & { code?: string }, config, args));
  }
  const values: OptionValues = {};
  for (const spec of specs) {
    const fromFlag = parsed.values[spec.name] as string | string[] | boolean | undefined;
    values[spec.name] = fromFlag ?? fromEnvironment(spec, env);
  }
  return {
    values,
    positionals: parsed.positionals,
    help: parsed.values.help === true,
    version: parsed.values.version === true,
  };
}

function fromEnvironment(
  spec: OptionSpec,
  env: Record<string, string | undefined>,
): string | string[] | boolean | undefined {
  const raw = spec.env ? env[spec.env] : undefined;
  if (raw === undefined || raw === "") return undefined;
  if (spec.kind === "boolean") return /^(1|true|yes|on)$/i.test(raw.trim());
  if (spec.kind === "list") return raw.split(spec.envSeparator ?? delimiter).filter((part) => part !== "");
  return raw;
}

function explainParseError(
  error: Error & { code?: string },
  config: Record<string, ArgOption>,
  args: readonly string[],
): string {
  // parseArgs quotes what it refused: '-x' or '--name', a switch as '-h, --help', a letter of a group bare ('v' of -hv).
  const quoted = /'([^']*)'/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return explainUnknownOption(quoted, config, args);
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      // A switch given a value (--help=1): it needs none, so "needs a value" would send the reader the wrong way.
      if (error.message.includes("does not take an argument")) return explainSwitchValue(quoted, args);
      const option = quoted?.split(" ")[0];
      return `option ${option ?? ""} needs a value (e.g. ${option ?? "--flag"} VALUE); run 'mcpkit --help'`;
    }
    default:
      return `${error.message.split("\n")[0]}; run 'mcpkit --help'`;
  }
}

/** `--help takes no value; drop '=1'`, for `--help=1`. */
function explainSwitchValue(quoted: string | undefined, args: readonly string[]): string {
  const name = quoted?.split(", ").at(-1) ?? "the switch";
  const given = args.find((arg) => arg.startsWith(`${name}=`));
  return given === undefined ? `${name} takes no value` : `${name} takes no value; drop '${given.slice(name.length)}'`;
}

function explainUnknownOption(
  quoted: string | undefined,
  config: Record<string, ArgOption>,
  args: readonly string[],
): string {
  // A letter of a group (-hv, -h=1) is quoted alone, which names nothing the reader typed: name the whole argument.
  const letter = quoted?.length === 1 ? quoted : undefined;
  const group = letter && args.find((arg) => /^-[^-]/.test(arg) && arg.length > 2 && arg.includes(letter));
  if (group) {
    const equals = group.indexOf("=");
    const shorts = Object.values(config).flatMap((option) => (option.short ? [option.short] : []));
    if (equals > 1 && [...group.slice(1, equals)].every((each) => shorts.includes(each))) {
      return `${group.slice(0, equals)} takes no value; drop '${group.slice(equals)}'`;
    }
    // Only what comes before '=': the value after it may be a token typed after a mistyped option.
    const named = equals > 0 ? group.slice(0, equals) : group;
    return `unknown option '${letter}' in ${named}; the switches that group are ${shorts.map((each) => `-${each}`).join(" and ")} (-v only alone); run 'mcpkit --help' for the options`;
  }
  const option = quoted ?? "";
  const near = option ? closestName(option.replace(/^-+/, "").split("=")[0], Object.keys(config)) : undefined;
  return `unknown option ${option}${near ? `; did you mean --${near}?` : ""}; run 'mcpkit --help' for the options`;
}
