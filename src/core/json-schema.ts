/**
 * valibot → JSON Schema 2020-12, as `tools/list` shows it. Computed once per schema.
 *
 * A release binary does not convert its own tools' schemas at start-up: `bun run build` converts
 * every shipped tool's schemas ahead (`scripts/release/frozen-schemas.ts`) and embeds the results
 * as the `MCPKIT_FROZEN_JSON_SCHEMAS` define, keyed by a fingerprint of the valibot schema (its
 * JSON text, hashed). Converting them took a fifth of a stdio start-up's CPU time, in the
 * interpreter, plus loading the converter; the fingerprints cost one native JSON.stringify each.
 * A schema whose fingerprint is not in the table (from source, or one built from configuration)
 * is converted here as before, so a stale table can only cost time, never change a schema.
 */
import type { AnySchema } from "./tool.ts";

type JsonObject = { [key: string]: unknown };
type Mode = "input" | "output";
let cache = new WeakMap<object, { input?: JsonObject; output?: JsonObject }>();

/** Fingerprint → JSON Schema; null when this build embeds none; undefined until first read. */
let frozen: Record<string, JsonObject> | null | undefined;
let conversions = 0;

export function jsonSchemaOf(schema: AnySchema, mode: Mode): JsonObject {
  let entry = cache.get(schema);
  if (!entry) cache.set(schema, (entry = {}));
  const cached = entry[mode];
  if (cached) return cached;
  const table = frozenTable();
  const key = table ? schemaFingerprint(schema, mode) : undefined;
  const converted = (key !== undefined && table?.[key]) || convertToJsonSchema(schema, mode);
  entry[mode] = converted;
  return converted;
}

/**
 * The key of a schema in the frozen table: the mode and a hash of the schema's JSON text, which
 * holds every kind, type, message, requirement (a regex's as its `expects`), entry and option;
 * functions (the validators) drop out. Undefined for a schema JSON cannot write (a bigint).
 */
export function schemaFingerprint(schema: AnySchema, mode: Mode): string | undefined {
  try {
    return `${mode}:${Bun.hash(JSON.stringify(schema)).toString(36)}`;
  } catch {
    return undefined;
  }
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
    frozen = typeof MCPKIT_FROZEN_JSON_SCHEMAS === "string" ? JSON.parse(MCPKIT_FROZEN_JSON_SCHEMAS) : null;
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
