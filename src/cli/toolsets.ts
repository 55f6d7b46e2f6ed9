/** Decides which toolsets run (`--toolsets`) and builds them; remembers why the others are off. */
import { closestName } from "../core/did-you-mean.ts";
import { type Logger, silentLogger } from "../core/log.ts";
import { ConfigError, type OptionValues, describeOption } from "../core/options.ts";
import { type Toolset, toolNamed } from "../core/tool.ts";
import { type Runtime, type ToolsetModule, isMissingConfig } from "../core/toolset-module.ts";
import { toolsetsOption } from "./options.ts";

export interface OffToolset {
  name: string;
  /** Why it is off, as `mcpkit tools` and the start-up log say it: "needs --oj-base-url URL (or OJ_BASE_URL)". */
  reason: string;
  /**
   * The user gave a --toolsets list without it: they chose, so a server's start-up says nothing
   * about it (issue 35: `--toolsets fs,boj` logged "oj: off, needs --oj-base-url"). With no list,
   * a toolset off for want of configuration is worth a line: the user may not know it exists.
   */
  leftOut: boolean;
}

export interface ToolsetSelection {
  toolsets: Toolset[];
  off: OffToolset[];
}

/**
 * The toolsets that run, built, and those that are off. `forTool` (`mcpkit call TOOL`) builds only
 * the toolset its name starts with (`fs_…`, `boj.…`) when that one has the tool: a one-shot call
 * then never loads the other toolsets' code (`toolset.ts` of each). Every module still reads its options.
 */
export function selectToolsets(
  modules: readonly ToolsetModule[],
  values: OptionValues,
  runtime: Runtime,
  forTool?: string,
): ToolsetSelection {
  const { enabled, off } = chooseToolsets(modules, values, runtime);
  const named = forTool === undefined ? [] : enabled.filter(({ module }) => namesToolset(forTool, module.name));
  const built = named.map(({ module, config }) => module.create(config, runtime));
  if (forTool !== undefined && toolNamed(built, forTool)) return { toolsets: built, off };
  // Everything else: a toolset built above is not built twice.
  const toolsets = enabled.map(({ module, config }) => {
    const index = named.findIndex((entry) => entry.module === module);
    return index === -1 ? module.create(config, runtime) : built[index];
  });
  return { toolsets, off };
}

/** Whether a tool name starts with a toolset's name and a separator (`fs_search_by_time`, `fs.search_by_time`). */
function namesToolset(tool: string, toolset: string): boolean {
  return tool.startsWith(`${toolset}_`) || tool.startsWith(`${toolset}.`);
}

/** Every module configured (a bad value is reported even for a toolset left off): those that run, and why the rest do not. */
function chooseToolsets(
  modules: readonly ToolsetModule[],
  values: OptionValues,
  runtime: Runtime,
): { enabled: { module: ToolsetModule; config: unknown }[]; off: OffToolset[] } {
  const requested = requestedNames(modules, values[toolsetsOption.name] as string | undefined);
  const enabled: { module: ToolsetModule; config: unknown }[] = [];
  const off: OffToolset[] = [];
  for (const module of modules) {
    // Every module reads its options, so a bad value is reported even for a toolset left off.
    const config = module.configure(values, runtime);
    const named = requested?.has(module.name) ?? false;
    const leftOut = requested !== undefined && !named;
    if (isMissingConfig(config)) {
      if (named) throw new ConfigError(`toolset ${module.name} needs ${config.missing}`);
      off.push({ name: module.name, reason: `needs ${config.missing}`, leftOut });
      continue;
    }
    if (leftOut) {
      off.push({ name: module.name, reason: `not named in ${describeOption(toolsetsOption)}`, leftOut });
      continue;
    }
    enabled.push({ module, config });
  }
  if (enabled.length === 0) {
    throw new ConfigError(`no toolset is enabled; name one with --toolsets (${modules.map((m) => m.name).join(", ")})`);
  }
  return { enabled, off };
}

function requestedNames(modules: readonly ToolsetModule[], list: string | undefined): Set<string> | undefined {
  if (list === undefined) return undefined;
  const known = modules.map((m) => m.name);
  const names = list
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0)
    throw new ConfigError(`${describeOption(toolsetsOption)} is empty; use a comma list of ${known.join(", ")} or all`);
  const requested = new Set<string>();
  for (const name of names) {
    if (name === "all") for (const k of known) requested.add(k);
    else if (known.includes(name)) requested.add(name);
    else {
      const near = closestName(name, known);
      throw new ConfigError(
        `unknown toolset "${name}" in ${describeOption(toolsetsOption)}${near ? `; did you mean "${near}"?` : ""}; choose from ${known.join(", ")}, all`,
      );
    }
  }
  return requested;
}

/** A toolset that is off, built from its placeholder configuration so its tools can be named and explained. */
export interface DormantToolset {
  toolset: Toolset;
  /** What turns it on, e.g. "start with --oj-base-url URL (or OJ_BASE_URL)". */
  howToEnable: string;
}

/**
 * The toolsets that are off, built only to describe their tools (`mcpkit call TOOL --help`, and an
 * error that says which toolset a tool belongs to); they never run. A module without placeholder
 * values, or whose placeholder still fails, is left out.
 */
export function dormantToolsets(
  modules: readonly ToolsetModule[],
  off: readonly OffToolset[],
  values: OptionValues,
  runtime: Runtime,
): DormantToolset[] {
  const dormant: DormantToolset[] = [];
  // Built only to be described: their start-up lines ("oj: craboj server base_url=…" with the
  // placeholder) would tell the user about a configuration they never gave.
  const quiet: Runtime = { ...runtime, log: quietLogger(runtime.log) };
  for (const { name, reason, leftOut } of off) {
    const module = modules.find((candidate) => candidate.name === name);
    if (!module) continue;
    try {
      const config = module.configure({ ...values, ...(module.placeholderValues ?? {}) }, quiet);
      if (isMissingConfig(config)) continue;
      const addIt = `add ${name} to ${describeOption(toolsetsOption)}`;
      const howToEnable = reason.startsWith("needs ")
        ? `start with ${reason.slice("needs ".length)}${leftOut ? ` and ${addIt}` : ""}`
        : addIt;
      dormant.push({ toolset: module.create(config, quiet), howToEnable });
    } catch {
      // Not describable without its real configuration: its tools stay unknown, as before.
    }
  }
  return dormant;
}

/** Drops every line but still registers secrets with the real logger, so a token given is redacted either way. */
function quietLogger(log: Logger): Logger {
  return { ...silentLogger, redact: (secret) => log.redact(secret) };
}
