/** The MCP core over stdio, through the real process: lifecycle, errors, stdout purity, fuzzing. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import packageJson from "../../package.json" with { type: "json" };
import { type RunningServer, startStdioServer } from "../support/mcp.ts";
import { isJsonRpcLine, startRawServer } from "../support/raw-stdio.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-core-"));
  writeFileSync(join(root, "a.txt"), "a");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("initialize and tools/list through the SDK client", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startStdioServer({ args: ["--toolsets", "fs", "--root", root] });
  });
  afterAll(() => server.close());

  test("serverInfo is mcpkit with package.json's version; tools (listChanged false) and logging", () => {
    expect(server.client.getServerVersion()).toMatchObject({ name: "mcpkit", version: packageJson.version });
    const capabilities = server.client.getServerCapabilities();
    expect(capabilities?.tools).toEqual({ listChanged: false });
    expect(capabilities?.resources).toBeUndefined();
    expect(capabilities?.prompts).toBeUndefined();
    expect(capabilities?.logging).toEqual({});
  });

  test("tools/list shows JSON Schema 2020-12 input and output schemas with a root object", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["fs_search_by_time"]);
    const [tool] = tools;
    expect(tool.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(tool.inputSchema.type).toBe("object");
    expect(tool.outputSchema?.type).toBe("object");
    expect(tool.title).toBeString();
    expect(tool.annotations?.readOnlyHint).toBe(true);
  });

  test("an unknown tool is JSON-RPC -32602 naming the tool", async () => {
    const error = await server.client.callTool({ name: "no_such_tool", arguments: {} }).catch((e) => e);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("no_such_tool");
  });
});

describe("protocol errors on the wire", () => {
  test("broken tools/call requests are -32602; bad lines -32700/-32600; the server keeps answering", async () => {
    const raw = startRawServer(["--toolsets", "fs", "--root", root]);
    await raw.initialize();
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } });
    expect(((await raw.response(1)).error as { code: number }).code).toBe(-32602);
    raw.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "fs_search_by_time", arguments: [1, 2] } });
    expect(((await raw.response(2)).error as { code: number }).code).toBe(-32602);
    raw.send({ jsonrpc: "2.0", id: 3, method: "no/such/method" });
    expect(((await raw.response(3)).error as { code: number }).code).toBe(-32601);
    raw.send("{not json");
    raw.send({ jsonrpc: "1.0", id: 4, method: "ping" });
    raw.send({ jsonrpc: "2.0", id: 5, method: "ping" });
    expect((await raw.response(5)).result).toEqual({});
    const errors = raw
      .lines()
      .map((line) => JSON.parse(line))
      .filter((m) => m.error && m.id === undefined);
    expect(errors.map((m) => m.error.code)).toContain(-32700);
    expect(((await raw.response(4)).error as { code: number }).code).toBe(-32600);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  });
});

describe("process lifecycle", () => {
  test("closing stdin ends the process with exit code 0", async () => {
    const raw = startRawServer(["--toolsets", "fs", "--root", root]);
    await raw.initialize();
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  });

  test("SIGTERM ends the process with exit code 0", async () => {
    const raw = startRawServer(["--toolsets", "fs", "--root", root]);
    await raw.initialize();
    raw.kill("SIGTERM");
    expect(await raw.exited).toBe(0);
  });
});

describe("stdout carries JSON-RPC only", () => {
  test("at LOG_LEVEL=trace every stdout line is a JSON-RPC message and logs go to stderr", async () => {
    const raw = startRawServer(["--toolsets", "fs", "--root", root], { LOG_LEVEL: "trace" });
    await raw.initialize();
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await raw.response(1);
    raw.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "fs.search_by_time", arguments: { timeField: "modified" } },
    });
    await raw.response(2);
    raw.closeStdin();
    await raw.exited;
    expect(raw.lines().length).toBeGreaterThanOrEqual(3);
    for (const line of raw.lines()) expect(isJsonRpcLine(line)).toBe(true);
    expect(raw.stderr()).toContain("TRACE");
  });

  test("fuzz: thousands of malformed and random frames; the server survives, stdout stays JSON-RPC, a valid request is answered", async () => {
    const raw = startRawServer(["--toolsets", "fs", "--root", root], { LOG_LEVEL: "off" });
    await raw.initialize();
    const frame = fc.oneof(
      fc.string({ maxLength: 200 }).map((s) => s.replaceAll("\n", " ")),
      fc.json({ maxDepth: 3 }),
      fc
        .record(
          {
            jsonrpc: fc.constantFrom("2.0", "1.0", 2),
            id: fc.oneof(fc.integer({ min: 1000, max: 1_000_000 }), fc.string({ maxLength: 8 }), fc.constant(null)),
            method: fc.constantFrom("tools/call", "tools/list", "initialize", "ping", "resources/read", "x", ""),
            params: fc.oneof(
              fc.anything({ maxDepth: 2 }),
              fc.record({ name: fc.string({ maxLength: 20 }), arguments: fc.anything({ maxDepth: 2 }) }),
            ),
          },
          { requiredKeys: [] },
        )
        .map((m) => JSON.stringify(m)),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("latin1").replaceAll("\n", "")),
    );
    const frames = fc.sample(frame, { numRuns: 3000, seed: 42 });
    let batch = "";
    for (const [i, f] of frames.entries()) {
      batch += `${f}\n`;
      if (i % 200 === 199) {
        raw.write(batch);
        batch = "";
      }
    }
    raw.write(batch);
    raw.send({ jsonrpc: "2.0", id: "final", method: "tools/list" });
    const reply = await raw.response("final");
    expect((reply.result as { tools: unknown[] }).tools).toHaveLength(1);
    for (const line of raw.lines()) expect(isJsonRpcLine(line)).toBe(true);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  }, 60_000);
});
