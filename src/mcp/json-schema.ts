/** valibot → JSON Schema 2020-12, as `tools/list` shows it. Computed once per schema. */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { AnySchema } from "../core/tool.ts";

type JsonObject = { [key: string]: unknown };
const cache = new WeakMap<object, { input?: JsonObject; output?: JsonObject }>();

export function jsonSchemaOf(schema: AnySchema, mode: "input" | "output"): JsonObject {
  let entry = cache.get(schema);
  if (!entry) cache.set(schema, (entry = {}));
  const cached = entry[mode];
  if (cached) return cached;
  const converted = toJsonSchema(schema, { target: "draft-2020-12", typeMode: mode }) as JsonObject;
  // MCP requires an object at the root of both schemas.
  if (converted.type === undefined) converted.type = "object";
  entry[mode] = converted;
  return converted;
}
