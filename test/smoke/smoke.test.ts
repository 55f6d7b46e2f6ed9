/**
 * Smoke test of a build: initialize, tools/list and tools/call over stdio with the SDK client.
 * A plain `bun test` runs it against a compiled binary of the sources; CI runs it a second time with
 * `MCPKIT_BIN=`, against `bun src/main.ts`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { type RunningServer, startStdioServer } from "../support/mcp.ts";

let root: string;
let server: RunningServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-smoke-"));
  mkdirSync(join(root, "notes"));
  writeFileSync(join(root, "notes", "new.md"), "new");
  writeFileSync(join(root, "old.md"), "old");
  utimesSync(join(root, "old.md"), new Date("2020-01-01T00:00:00Z"), new Date("2020-01-01T00:00:00Z"));
  server = await startStdioServer({ args: ["--toolsets", "boj,fs", "--root", root] });
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

test("initialize answers with mcpkit and its version", () => {
  expect(server.client.getServerVersion()).toMatchObject({ name: "mcpkit", version: packageJson.version });
});

test("tools/list has the boj and fs tools", async () => {
  const names = (await server.client.listTools()).tools.map((tool) => tool.name);
  expect(names).toContain("boj_get_data_code");
  expect(names).toContain("fs_search_by_time");
});

test("tools/call fs_search_by_time finds the file modified since 2024, not the old one", async () => {
  const result = await server.client.callTool({
    name: "fs_search_by_time",
    arguments: { timeField: "modified", from: "2024-01-01T00:00:00Z" },
  });
  expect(result.isError).toBeFalsy();
  const structured = result.structuredContent as { matches: { path: string }[] };
  expect(structured.matches.map((match) => match.path)).toEqual(["notes/new.md"]);
});

test("tools/call of a boj catalog tool needs no network", async () => {
  const result = await server.client.callTool({ name: "boj_list_databases", arguments: {} });
  expect(result.isError).toBeFalsy();
  expect(JSON.stringify(result.structuredContent)).toContain("FM01");
});
