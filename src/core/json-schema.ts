/** valibot → JSON Schema 2020-12, as `tools/list` shows it. Computed once per schema. */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { AnySchema } from "./tool.ts";

type JsonObject = { [key: string]: unknown };
const cache = new WeakMap<object, { input?: JsonObject; output?: JsonObject }>();

export function jsonSchemaOf(schema: AnySchema, mode: "input" | "output"): JsonObject {
  let entry = cache.get(schema);
  if (!entry) cache.set(schema, (entry = {}));
  const cached = entry[mode];
  if (cached) return cached;
  const converted = foldNullable(toJsonSchema(schema, { target: "draft-2020-12", typeMode: mode })) as JsonObject;
  // MCP requires an object at the root of both schemas.
  if (converted.type === undefined) converted.type = "object";
  entry[mode] = converted;
  return converted;
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
