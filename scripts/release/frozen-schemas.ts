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
import { convertToJsonSchema, schemaFingerprint } from "../../src/core/json-schema.ts";
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

/** Fingerprint → converted schema, for every tool's input and output schema. */
export function frozenJsonSchemas(toolsets: readonly Toolset[]): Record<string, JsonObject> {
  const table: Record<string, JsonObject> = {};
  const add = (schema: AnySchema, mode: "input" | "output") => {
    const key = schemaFingerprint(schema, mode);
    if (key !== undefined) table[key] = convertToJsonSchema(schema, mode);
  };
  for (const toolset of toolsets) {
    for (const tool of toolset.tools) {
      add(tool.input, "input");
      if (tool.output) add(tool.output, "output");
    }
  }
  return table;
}

if (import.meta.main) {
  const toolsets = shippedToolsets();
  try {
    process.stdout.write(JSON.stringify(frozenJsonSchemas(toolsets)));
  } finally {
    for (const toolset of toolsets) await toolset.close?.();
  }
}
