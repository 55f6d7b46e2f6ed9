/**
 * The JSON Schemas a release binary embeds instead of converting them at start-up
 * (`scripts/release/frozen-schemas.ts`, read by `src/core/json-schema.ts`), keyed by tool name and
 * mode: a schema found in the table is neither converted nor serialized, one that is not is
 * converted as before, a schema built per build of its toolset (from configuration) is never
 * frozen, and the binary (MCPKIT_BIN) embeds the table and lists, in tools/list, exactly the
 * schemas the run-time conversion gives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { frozenJsonSchemas, shippedToolsets } from "../../scripts/release/frozen-schemas.ts";
import {
  convertToJsonSchema,
  frozenKey,
  jsonSchemaOf,
  type Mode,
  runtimeConversions,
  useFrozenJsonSchemas,
} from "../../src/core/json-schema.ts";
import type { AnySchema, ToolDefinition, Toolset } from "../../src/core/tool.ts";
import { meta } from "../modern/support.ts";
import { REPO_ROOT, mcpkitCommand, runProcess, testEnv } from "../support/mcp.ts";

let toolsets: Toolset[] = [];
let again: Toolset[] = [];
let table: Record<string, Record<string, unknown>> = {};
let schemas: { tool: ToolDefinition; mode: Mode; schema: AnySchema }[] = [];

beforeAll(() => {
  toolsets = shippedToolsets();
  again = shippedToolsets();
  table = frozenJsonSchemas(toolsets, again);
  schemas = toolsets.flatMap((toolset) =>
    toolset.tools.flatMap((tool) => [
      { tool, mode: "input" as const, schema: tool.input },
      ...(tool.output ? [{ tool, mode: "output" as const, schema: tool.output }] : []),
    ]),
  );
});
afterAll(async () => {
  useFrozenJsonSchemas(null);
  for (const toolset of [...toolsets, ...again]) await toolset.close?.();
});

/** A toolset of one tool per schema, for the table builder. */
function toolsetOf(tools: Record<string, AnySchema>): Toolset {
  return {
    name: "t",
    tools: Object.entries(tools).map(([name, input]) => ({ name, input }) as unknown as ToolDefinition),
  };
}

describe("frozen JSON Schemas", () => {
  test("the table holds every shipped tool's schemas, each as the run-time conversion writes it", () => {
    expect(schemas.length).toBeGreaterThan(10);
    expect(Object.keys(table).length).toBe(schemas.length);
    for (const { tool, mode, schema } of schemas) {
      const frozen = table[frozenKey(tool.name, mode)];
      expect(frozen, `${tool.name} ${mode}`).toBeDefined();
      expect(JSON.stringify(frozen), `${tool.name} ${mode}`).toBe(JSON.stringify(convertToJsonSchema(schema, mode)));
    }
  });

  test("a schema in the table is taken from it, not converted", () => {
    useFrozenJsonSchemas(table);
    for (const { tool, mode } of schemas) {
      expect(jsonSchemaOf(tool, mode)).toBe(table[frozenKey(tool.name, mode)]);
    }
    expect(runtimeConversions()).toBe(0);
  });

  test("a lookup in the table never serializes the schema (hashing its JSON text cost 0.9 ms of a start)", () => {
    let serialized = 0;
    const input = Object.assign(v.strictObject({ n: v.number() }), {
      toJSON() {
        serialized++;
        return {};
      },
    });
    const frozen = { type: "object", properties: { n: { type: "number" } } };
    useFrozenJsonSchemas({ [frozenKey("watched", "input")]: frozen });
    expect(jsonSchemaOf({ name: "watched", input }, "input")).toBe(frozen);
    expect(serialized).toBe(0);
    expect(runtimeConversions()).toBe(0);
  });

  test("a tool the table misses is converted at run time, then taken from the per-schema cache", () => {
    useFrozenJsonSchemas(table);
    const tool = { name: "not_shipped", input: v.strictObject({ n: v.pipe(v.number(), v.minValue(1, "at least 1")) }) };
    const converted = jsonSchemaOf(tool, "input");
    expect(runtimeConversions()).toBe(1);
    expect(converted).toEqual(convertToJsonSchema(tool.input, "input"));
    expect(jsonSchemaOf(tool, "input")).toBe(converted);
    expect(runtimeConversions()).toBe(2);
  });

  test("a schema built anew by each build of its toolset (from configuration) is left out, so it is converted at run time", () => {
    const constant = v.strictObject({ n: v.number() });
    const built = frozenJsonSchemas(
      [toolsetOf({ constant, configured: v.strictObject({ root: v.picklist(["/a"]) }) })],
      [toolsetOf({ constant, configured: v.strictObject({ root: v.picklist(["/b"]) }) })],
    );
    expect(Object.keys(built)).toEqual([frozenKey("constant", "input")]);
  });
});

const binary = process.env.MCPKIT_BIN;

describe.skipIf(!binary)("the compiled binary (MCPKIT_BIN)", () => {
  test("embeds the table: every key is in the binary", () => {
    const bytes = readFileSync(mcpkitCommand()[0]);
    const missing = Object.keys(table).filter((key) => !bytes.includes(key));
    expect(missing).toEqual([]);
  });

  test("reads the table at start-up: it converts no schema to list the tools (from source, each is converted)", async () => {
    const line = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } })}\n`;
    const listed = async (command: string[]) => {
      const result = await runProcess([...command, "--toolsets", "boj,fs", "--root", "/", "--log-level", "debug"], {
        stdin: line,
        env: testEnv(),
      });
      expect(result.code, result.stderr).toBe(0);
      return /tools listed tools=(\d+) schemasConverted=(\d+)/.exec(result.stderr)?.slice(1).map(Number);
    };
    const [tools, converted] = (await listed(mcpkitCommand())) ?? [];
    expect(tools).toBeGreaterThan(5);
    expect(converted).toBe(0);
    const [, fromSource] = (await listed([process.execPath, join(REPO_ROOT, "src/main.ts")])) ?? [];
    expect(fromSource).toBeGreaterThan(tools);
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
    expect([...listed.keys()].sort()).toEqual([...new Set(schemas.map((entry) => entry.tool.name))].sort());
    for (const { tool, mode, schema } of schemas) {
      const wire = listed.get(tool.name)?.[mode === "input" ? "inputSchema" : "outputSchema"];
      expect(JSON.stringify(wire), `${tool.name} ${mode}`).toBe(JSON.stringify(convertToJsonSchema(schema, mode)));
    }
  });
});

const initialize = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "mcpkit-tests", version: "1.0.0" },
};
