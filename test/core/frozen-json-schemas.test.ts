/**
 * The JSON Schemas a release binary embeds instead of converting them at start-up
 * (`scripts/release/frozen-schemas.ts`, read by `src/core/json-schema.ts`): a schema found in the
 * table is not converted, one that is not is converted as before, and the binary (MCPKIT_BIN)
 * embeds the table and lists, in tools/list, exactly the schemas the run-time conversion gives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { frozenJsonSchemas, shippedToolsets } from "../../scripts/release/frozen-schemas.ts";
import {
  convertToJsonSchema,
  jsonSchemaOf,
  runtimeConversions,
  schemaFingerprint,
  useFrozenJsonSchemas,
} from "../../src/core/json-schema.ts";
import type { AnySchema, Toolset } from "../../src/core/tool.ts";
import { mcpkitCommand, runProcess, testEnv } from "../support/mcp.ts";

type Mode = "input" | "output";
let toolsets: Toolset[] = [];
let table: Record<string, Record<string, unknown>> = {};
let schemas: { tool: string; mode: Mode; schema: AnySchema }[] = [];

beforeAll(() => {
  toolsets = shippedToolsets();
  table = frozenJsonSchemas(toolsets);
  schemas = toolsets.flatMap((toolset) =>
    toolset.tools.flatMap((tool) => [
      { tool: tool.name, mode: "input" as const, schema: tool.input },
      ...(tool.output ? [{ tool: tool.name, mode: "output" as const, schema: tool.output }] : []),
    ]),
  );
});
afterAll(async () => {
  useFrozenJsonSchemas(null);
  for (const toolset of toolsets) await toolset.close?.();
});

describe("frozen JSON Schemas", () => {
  test("the table holds every shipped tool's schemas, each as the run-time conversion writes it", () => {
    expect(schemas.length).toBeGreaterThan(10);
    for (const { tool, mode, schema } of schemas) {
      const key = schemaFingerprint(schema, mode);
      expect(key, `${tool} ${mode}`).toBeDefined();
      expect(JSON.stringify(table[key as string]), `${tool} ${mode}`).toBe(
        JSON.stringify(convertToJsonSchema(schema, mode)),
      );
    }
  });

  test("a schema in the table is taken from it, not converted", () => {
    useFrozenJsonSchemas(table);
    for (const { mode, schema } of schemas) {
      expect(jsonSchemaOf(schema, mode)).toBe(table[schemaFingerprint(schema, mode) as string]);
    }
    expect(runtimeConversions()).toBe(0);
  });

  test("a schema the table misses is converted at run time, and one that differs by a message only misses", () => {
    useFrozenJsonSchemas(table);
    const ours = v.strictObject({ n: v.pipe(v.number(), v.minValue(1, "at least 1")) });
    const other = v.strictObject({ n: v.pipe(v.number(), v.minValue(1, "one or more")) });
    expect(schemaFingerprint(ours, "input")).not.toBe(schemaFingerprint(other, "input"));
    const converted = jsonSchemaOf(ours, "input");
    expect(runtimeConversions()).toBe(1);
    expect(converted).toEqual(convertToJsonSchema(ours, "input"));
    // The same schema again comes from the per-schema cache.
    expect(jsonSchemaOf(ours, "input")).toBe(converted);
    expect(runtimeConversions()).toBe(2);
  });

  test("input and output modes of one schema have keys of their own", () => {
    const [{ schema }] = schemas;
    expect(schemaFingerprint(schema, "input")).not.toBe(schemaFingerprint(schema, "output"));
  });
});

const binary = process.env.MCPKIT_BIN;

describe.skipIf(!binary)("the compiled binary (MCPKIT_BIN)", () => {
  test("embeds the table: every key is in the binary", () => {
    const bytes = readFileSync(mcpkitCommand()[0]);
    const missing = Object.keys(table).filter((key) => !bytes.includes(key));
    expect(missing).toEqual([]);
  });

  test("lists in tools/list exactly the schemas the run-time conversion gives, byte for byte", async () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: initialize },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const result = await runProcess(
      [...mcpkitCommand(), "--toolsets", "all", "--oj-base-url", "http://127.0.0.1:9", "--root", "/"],
      { stdin: lines.map((line) => `${JSON.stringify(line)}\n`).join(""), env: testEnv() },
    );
    expect(result.code).toBe(0);
    const answer = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((message) => message.id === 2);
    const listed = new Map<string, { inputSchema: unknown; outputSchema?: unknown }>(
      answer.result.tools.map((tool: { name: string }) => [tool.name, tool]),
    );
    expect([...listed.keys()].sort()).toEqual([...new Set(schemas.map((entry) => entry.tool))].sort());
    for (const { tool, mode, schema } of schemas) {
      const wire = listed.get(tool)?.[mode === "input" ? "inputSchema" : "outputSchema"];
      expect(JSON.stringify(wire), `${tool} ${mode}`).toBe(JSON.stringify(convertToJsonSchema(schema, mode)));
    }
  });
});

const initialize = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "mcpkit-tests", version: "1.0.0" },
};
