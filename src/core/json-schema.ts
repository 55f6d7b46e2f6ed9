/**
 * valibot → JSON Schema 2020-12, as `tools/list` shows it. Computed once per schema.
 *
 * A release binary does not convert its own tools' schemas at start-up: `bun run build` converts
 * every shipped tool's schemas ahead (`scripts/release/frozen-schemas.ts`) and embeds the results
 * as the `MCPKIT_FROZEN_JSON_SCHEMAS` define, keyed by tool name and mode (`frozenKey`).
 * Converting them took a fifth of a stdio start-up's CPU time, in the interpreter, plus loading
 * the converter; keying the table by a hash of each schema's JSON text instead cost another
 * 0.9 ms (serializing 90 KB of valibot objects). A name is a safe key because the build freezes
 * only schemas that are constants of their module: the same object in two builds of the toolset
 * (one built from configuration is converted here, at run time). A tool the table misses (from
 * source, or such a schema) is converted here as before.
 */
import type { AnySchema, ToolDefinition } from "./tool.ts";

type JsonObject = { [key: string]: unknown };
export type Mode = "input" | "output";
/** What names a tool's schemas: the tool (its name keys the frozen table) and the schemas themselves. */
export type SchemaOwner = Pick<ToolDefinition, "name" | "input" | "output">;
let cache = new WeakMap<object, { input?: JsonObject; output?: JsonObject }>();

/** Key → JSON Schema; null when this build embeds none; undefined until first read. */
let frozen: Record<string, JsonObject> | null | undefined;
let conversions = 0;

/**
 * The JSON Schema of a tool's input or output schema; undefined for the output of a tool without
 * one. The frozen table is asked first, by name, so a tool found there never has its valibot
 * schema read (a toolset may build its schemas only at their first use: boj's tools/shared.ts).
 */
export function jsonSchemaOf(tool: SchemaOwner, mode: "input"): JsonObject;
export function jsonSchemaOf(tool: SchemaOwner, mode: Mode): JsonObject | undefined;
export function jsonSchemaOf(tool: SchemaOwner, mode: Mode): JsonObject | undefined {
  const frozenSchema = frozenTable()?.[frozenKey(tool.name, mode)];
  if (frozenSchema) return frozenSchema;
  const schema = mode === "input" ? tool.input : tool.output;
  if (!schema) return undefined;
  let entry = cache.get(schema);
  if (!entry) cache.set(schema, (entry = {}));
  entry[mode] ??= convertToJsonSchema(schema, mode);
  return entry[mode];
}

/** A schema's key in the frozen table. */
export function frozenKey(toolName: string, mode: Mode): string {
  return `${toolName}:${mode}`;
}

/** The conversion itself, always at run time (the build uses it to make the table). */
export function convertToJsonSchema(schema: AnySchema, mode: Mode): JsonObject {
  conversions++;
  // Required here, not imported: a binary whose table holds every schema never loads the converter.
  const { toJsonSchema } = require("@valibot/to-json-schema") as typeof import("@valibot/to-json-schema");
  const converted = foldNullable(toJsonSchema(schema, { target: "draft-2020-12", typeMode: mode })) as JsonObject;
  // MCP requires an object at the root of both schemas.
  if (converted.type === undefined) converted.type = "object";
  return converted;
}

function frozenTable(): Record<string, JsonObject> | null {
  if (frozen === undefined) {
    // Read once and not behind `typeof`: each mention of the define is a copy of the literal, built
    // when reached. From source it is undeclared, and reading it throws.
    try {
      frozen = MCPKIT_FROZEN_JSON_SCHEMAS ?? null;
    } catch {
      frozen = null;
    }
  }
  return frozen ?? null;
}

/**
 * For tests: use `table` as if the build had embedded it (null: none), forget every schema looked
 * up so far, and count conversions from zero.
 */
export function useFrozenJsonSchemas(table: Record<string, JsonObject> | null): void {
  frozen = table;
  cache = new WeakMap();
  conversions = 0;
}

/** How many schemas were converted at run time (not found in the frozen table) since the last reset. */
export function runtimeConversions(): number {
  return conversions;
}

/**
 * Writes `anyOf: [{type: T, …}, {type: "null"}]` (how valibot renders `nullable`) as
 * `{type: [T, "null"], …}`, the form the contracts' schemas use (docs/contracts/) and the simpler one for clients.
 */
function foldNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(foldNullable);
  if (typeof node !== "object" || node === null) return node;
  const object = node as JsonObject;
  const anyOf = object.anyOf as JsonObject[] | undefined;
  if (anyOf?.length === 2) {
    const nullIndex = anyOf.findIndex((option) => option.type === "null" && Object.keys(option).length === 1);
    const other = anyOf[1 - nullIndex];
    if (nullIndex !== -1 && typeof other?.type === "string" && other.anyOf === undefined) {
      const { anyOf: _, ...rest } = object;
      return foldNullable({ ...rest, ...other, type: [other.type, "null"] });
    }
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) out[key] = foldNullable(value);
  return out;
}
