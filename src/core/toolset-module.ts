/**
 * A toolset module: the options a toolset owns, how it reads them, and how it builds its tools.
 * `src/toolsets/index.ts` lists the modules; the CLI and both transports only go through this.
 */
import type { Logger } from "./log.ts";
import type { OptionSpec, OptionValues } from "./options.ts";
import type { Toolset } from "./tool.ts";

export interface Runtime {
  log: Logger;
  /**
   * How mcpkit runs: `stdio` (one local client), `http` (remote clients: their roots describe their
   * machines, not this one), or `call` (one-shot `mcpkit call`/`mcpkit tools`, no client at all).
   */
  mode: "stdio" | "http" | "call";
  cwd: string;
}

/** Returned by `configure` when the configuration the toolset requires is absent. */
export interface MissingConfig {
  /** How to supply it, e.g. `--oj-base-url URL (or OJ_BASE_URL)`. */
  missing: string;
}

export interface ToolsetModule<Config = unknown> {
  name: string;
  /** One line for --help. */
  summary: string;
  options: readonly OptionSpec[];
  /** Reads this toolset's options; throws ConfigError for a bad value, returns MissingConfig when required ones are absent. */
  configure(values: OptionValues, runtime: Runtime): Config | MissingConfig;
  /**
   * Option values that let `configure` succeed when the toolset is off, so the command line can
   * describe its tools (help, "belongs to the oj toolset") without ever running them.
   */
  placeholderValues?: OptionValues;
  create(config: Config, runtime: Runtime): Toolset;
}

export function isMissingConfig(value: unknown): value is MissingConfig {
  return typeof value === "object" && value !== null && "missing" in value && Object.keys(value).length === 1;
}

export function defineToolsetModule<Config>(module: ToolsetModule<Config>): ToolsetModule {
  return module as unknown as ToolsetModule;
}
