/**
 * Reads the command line and the environment into OptionValues, for every option any part of
 * mcpkit declares. Unknown flags and missing values are usage errors (exit 2).
 */
import { delimiter } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, type OptionSpec, type OptionValues } from "../core/options.ts";

/** Options that belong to mcpkit itself rather than to a toolset or transport. */
export const coreOptions: readonly OptionSpec[] = [
  {
    name: "toolsets",
    env: "MCPKIT_TOOLSETS",
    kind: "string",
    valueName: "LIST",
    help: "Comma list of toolsets to enable: boj, oj, fs, or all.",
    defaultText: "every toolset whose configuration is present",
  },
  {
    name: "log-level",
    env: "LOG_LEVEL",
    kind: "string",
    valueName: "LEVEL",
    help: "error|warn|info|debug|trace|off, to stderr only (RUST_LOG is read when LOG_LEVEL is unset).",
    defaultText: "info (warn for tools/call)",
  },
];

export interface ParsedCommandLine {
  values: OptionValues;
  positionals: string[];
  help: boolean;
  version: boolean;
}

export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  specs: readonly OptionSpec[],
): ParsedCommandLine {
  const config: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean", short: "V" },
  };
  for (const spec of specs) {
    config[spec.name] = { type: spec.kind === "boolean" ? "boolean" : "string", ...(spec.kind === "list" ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options: config, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(explainParseError(error as Error & { code?: string }));
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

function fromEnvironment(spec: OptionSpec, env: Record<string, string | undefined>): string | string[] | boolean | undefined {
  const raw = spec.env ? env[spec.env] : undefined;
  if (raw === undefined || raw === "") return undefined;
  if (spec.kind === "boolean") return /^(1|true|yes|on)$/i.test(raw.trim());
  if (spec.kind === "list") return raw.split(spec.envSeparator ?? delimiter).filter((part) => part !== "");
  return raw;
}

function explainParseError(error: Error & { code?: string }): string {
  const option = /'(-[^' ]*)/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? ""}; run 'mcpkit --help' for the options`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return `option ${option ?? ""} needs a value (e.g. ${option ?? "--flag"} VALUE); run 'mcpkit --help'`;
    default:
      return `${error.message.split("\n")[0]}; run 'mcpkit --help'`;
  }
}
