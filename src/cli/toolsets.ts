/** Decides which toolsets run (PRODUCT.md `--toolsets`) and builds them. */
import { ConfigError, type OptionValues, describeOption } from "../core/options.ts";
import type { Toolset } from "../core/tool.ts";
import { type Runtime, type ToolsetModule, isMissingConfig } from "../core/toolset-module.ts";
import { coreOptions } from "./options.ts";

export function selectToolsets(modules: readonly ToolsetModule[], values: OptionValues, runtime: Runtime): Toolset[] {
  const requested = requestedNames(modules, values.toolsets as string | undefined);
  const toolsets: Toolset[] = [];
  for (const module of modules) {
    // Every module reads its options, so a bad value is reported even for a toolset left off.
    const config = module.configure(values, runtime);
    const named = requested?.has(module.name) ?? false;
    if (isMissingConfig(config)) {
      if (named) throw new ConfigError(`toolset ${module.name} needs ${config.missing}`);
      continue;
    }
    if (requested && !named) continue;
    toolsets.push(module.create(config, runtime));
  }
  if (toolsets.length === 0) throw new ConfigError("no toolset is enabled; name one with --toolsets (boj, oj, fs)");
  return toolsets;
}

function requestedNames(modules: readonly ToolsetModule[], list: string | undefined): Set<string> | undefined {
  if (list === undefined) return undefined;
  const known = modules.map((m) => m.name);
  const names = list.split(",").map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0) throw new ConfigError(`${describeOption(coreOptions[0])} is empty; use a comma list of ${known.join(", ")} or all`);
  const requested = new Set<string>();
  for (const name of names) {
    if (name === "all") known.forEach((k) => requested.add(k));
    else if (known.includes(name)) requested.add(name);
    else throw new ConfigError(`unknown toolset "${name}" in ${describeOption(coreOptions[0])}; choose from ${known.join(", ")}, all`);
  }
  return requested;
}
