/**
 * Every shipped tool's input and output JSON Schemas, converted at build time for
 * `MCPKIT_FROZEN_JSON_SCHEMAS` (`compile.ts` passes it as a define; `src/core/json-schema.ts` reads
 * it), so a release binary's start-up does not run the valibot → JSON Schema conversion.
 *
 * Each toolset is built as `mcpkit call TOOL --help` builds one that is off (its placeholder
 * options, no environment), which is enough: the schemas are the tool modules' own constants.
 * A schema the table misses at run time is converted there, as from source.
 *
 *   bun scripts/release/frozen-schemas.ts    prints the table (JSON) on stdout (what compile.ts runs)
 */
import { coreOptions, parseCommandLine } from "../../src/cli/options.ts";
import { convertToJsonSchema, frozenKey, type Mode } from "../../src/core/json-schema.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { AnySchema, Toolset } from "../../src/core/tool.ts";
import { isMissingConfig, type Runtime } from "../../src/core/toolset-module.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";

type JsonObject = { [key: string]: unknown };

/** Every toolset mcpkit ships, built with placeholder options; the caller closes them. */
export function shippedToolsets(): Toolset[] {
  const specs = [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions];
  const { values } = parseCommandLine([], {}, specs);
  const runtime: Runtime = { log: silentLogger, mode: "stdio", cwd: "/" };
  return toolsetModules.flatMap((module) => {
    const config = module.configure({ ...values, ...(module.placeholderValues ?? {}) }, runtime);
    if (isMissingConfig(config)) throw new Error(`toolset ${module.name} needs ${config.missing} to be described`);
    return [module.create(config, runtime)];
  });
}

/**
 * Tool name and mode → converted schema, for every tool's input and output schema that is a
 * constant of its module: the same object in `again`, a second build of the same toolsets. A
 * schema built from configuration (a new object per build) is left out, so the binary converts
 * it at run time from the configuration it runs with; the table is keyed by name, not content.
 */
export function frozenJsonSchemas(toolsets: readonly Toolset[], again: readonly Toolset[]): Record<string, JsonObject> {
  const table: Record<string, JsonObject> = {};
  const rebuilt = new Map(again.flatMap((toolset) => toolset.tools.map((tool) => [tool.name, tool])));
  for (const toolset of toolsets) {
    for (const tool of toolset.tools) {
      const twin = rebuilt.get(tool.name);
      const modes: Mode[] = tool.output ? ["input", "output"] : ["input"];
      for (const mode of modes) {
        if (twin?.[mode] === tool[mode])
          table[frozenKey(tool.name, mode)] = convertToJsonSchema(tool[mode] as AnySchema, mode);
      }
    }
  }
  return table;
}

if (import.meta.main) {
  const toolsets = shippedToolsets();
  const again = shippedToolsets();
  try {
    process.stdout.write(JSON.stringify(frozenJsonSchemas(toolsets, again)));
  } finally {
    for (const toolset of [...toolsets, ...again]) await toolset.close?.();
  }
}
