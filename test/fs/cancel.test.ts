/**
 * Long walks through a real server: progress notifications (at most every 100 ms), cancellation
 * that stops the walk promptly while the server keeps answering, and the per-call time budget.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";

const DIRECTORIES = 240;
const FILES_PER_DIRECTORY = 500;
const TOTAL_FILES = DIRECTORIES * FILES_PER_DIRECTORY; // big enough that a walk takes a few hundred ms

let tree: string;
let server: RunningServer;

beforeAll(async () => {
  tree = mkdtempSync(join(tmpdir(), "mcpkit-fs-big-"));
  for (let d = 0; d < DIRECTORIES; d++) {
    const dir = join(tree, `d${d}`);
    mkdirSync(dir);
    for (let f = 0; f < FILES_PER_DIRECTORY; f++) writeFileSync(join(dir, `f${f}.txt`), "");
  }
  server = await startStdioServer({ args: ["--toolsets", "fs", "--root", tree, "--log-level", "info"] });
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(tree, { recursive: true, force: true });
});

type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: { stats: { scannedFiles: number }; matches: unknown[] } };

test("a long walk reports progress at most every 100 ms, with growing counts", async () => {
  const seen: { at: number; progress: number }[] = [];
  const started = performance.now();
  const result = (await server.client.callTool({ name: "fs.search_by_time", arguments: { timeField: "modified", limit: 1 } }, CallToolResultSchema, {
    onprogress: ({ progress }) => seen.push({ at: performance.now(), progress }),
    timeout: 30_000,
  })) as Result;
  const elapsed = performance.now() - started;
  expect(result.structuredContent?.stats.scannedFiles).toBe(TOTAL_FILES);
  if (elapsed > 250) expect(seen.length).toBeGreaterThan(0); // a walk this long must have reported
  expect(seen.length).toBeLessThanOrEqual(Math.floor(elapsed / 100) + 1);
  for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
  expect(seen.every((p) => p.progress <= TOTAL_FILES + DIRECTORIES + 1)).toBe(true);
});

test("a long walk (stat calls shared with the worker thread) still ranks exactly and pages on", async () => {
  const call = async (args: Record<string, unknown>) =>
    (await server.client.callTool({ name: "fs.search_by_time", arguments: { timeField: "modified", sort: "path_asc", ...args } })) as unknown as {
      structuredContent: { matches: { path: string }[]; nextCursor: string | null; stats: { scannedFiles: number } };
    };
  const all: string[] = [];
  for (let d = 0; d < DIRECTORIES; d++) for (let f = 0; f < FILES_PER_DIRECTORY; f++) all.push(`d${d}/f${f}.txt`);
  all.sort();
  const first = await call({ limit: 300 });
  expect(first.structuredContent.matches.map((m) => m.path)).toEqual(all.slice(0, 300));
  const second = await call({ limit: 300, cursor: first.structuredContent.nextCursor });
  expect(second.structuredContent.matches.map((m) => m.path)).toEqual(all.slice(300, 600));
  expect(second.structuredContent.stats.scannedFiles).toBe(TOTAL_FILES);
});

test("cancelling stops the walk early and the server keeps answering", async () => {
  const controller = new AbortController();
  const progress: number[] = [];
  const call = server.client.callTool({ name: "fs.search_by_time", arguments: { timeField: "modified", includeDirectories: true } }, CallToolResultSchema, {
    signal: controller.signal,
    timeout: 30_000,
    onprogress: ({ progress: scanned }) => {
      progress.push(scanned);
      controller.abort("the user changed their mind");
    },
  });
  await expect(call).rejects.toThrow();
  expect(progress.length).toBeGreaterThan(0);

  const answeredWithin = performance.now();
  const small = (await server.client.callTool({ name: "fs.search_by_time", arguments: { timeField: "modified", path: "d0", limit: 2 } })) as Result;
  expect(small.isError).toBeFalsy();
  expect(small.structuredContent?.matches).toHaveLength(2);
  expect(performance.now() - answeredWithin).toBeLessThan(5_000);

  // The server logs how far the cancelled walk got: well short of the whole tree.
  for (let i = 0; i < 50 && !server.stderr().includes("fs.search_by_time cancelled"); i++) await Bun.sleep(20);
  const line = server.stderr().split("\n").find((l) => l.includes("fs.search_by_time cancelled")) ?? "";
  const scanned = Number(/scannedFiles\D{0,4}(\d+)/.exec(line)?.[1]);
  expect(scanned).toBeGreaterThan(0);
  expect(scanned).toBeLessThan(TOTAL_FILES);
});

test("the time budget ends a walk with partial results and says so", async () => {
  const limited = await startStdioServer({ args: ["--toolsets", "fs", "--root", tree, "--fs-time-budget-ms", "100"] });
  try {
    const result = (await limited.client.callTool({ name: "fs.search_by_time", arguments: { timeField: "modified" } })) as Result;
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text).toContain("time budget of 100 ms");
    expect(result.structuredContent?.stats.scannedFiles).toBeLessThan(TOTAL_FILES);
  } finally {
    await limited.close();
  }
});
