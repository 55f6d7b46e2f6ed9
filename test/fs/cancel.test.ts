/**
 * Long walks through a real server: progress notifications (at most every 100 ms), cancellation
 * that stops the walk promptly while the server keeps answering, and the per-call time budget.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CallToolResultSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";
import { largeTreeDir } from "../support/scratch.ts";

const DIRECTORIES = 240;
const FILES_PER_DIRECTORY = 1500;
// Big enough that a walk takes a few hundred ms even with the stat worker thread sharing the stats.
const TOTAL_FILES = DIRECTORIES * FILES_PER_DIRECTORY;
/**
 * A whole walk of the tree: well under a second alone, 9 s in a full suite run beside another
 * (load 35-40), where the tests with three or more of them took 18-22 s of bun's default 30.
 */
const WALKS_TIMEOUT = 120_000;
setDefaultTimeout(WALKS_TIMEOUT);

let tree: string;
let server: RunningServer;

beforeAll(async () => {
  tree = largeTreeDir("mcpkit-fs-big-");
  // One file per directory and hard links to it: as many entries to list and stat, made faster.
  for (let d = 0; d < DIRECTORIES; d++) {
    const dir = join(tree, `d${d}`);
    mkdirSync(dir);
    const original = join(dir, "f0.txt");
    writeFileSync(original, "");
    for (let f = 1; f < FILES_PER_DIRECTORY; f++) linkSync(original, join(dir, `f${f}.txt`));
  }
  // At debug, the server logs how long each walk took by its own clock ("walked … ms=N").
  server = await startStdioServer({ args: ["--toolsets", "fs", "--root", tree, "--log-level", "debug"] });
  // 360,000 link calls: 2.6 s alone, past 60 s in a full suite run beside another (load 35-40).
}, 300_000);
afterAll(async () => {
  await server?.close();
  rmSync(tree, { recursive: true, force: true });
}, WALKS_TIMEOUT);

type Result = {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: { stats: { scannedFiles: number }; matches: unknown[]; notices?: string[] };
};

test("a long walk reports progress at most every 100 ms, with growing counts", async () => {
  const seen: { at: number; progress: number }[] = [];
  const walked = server.nextStderrLine(/fs_search_by_time walked/);
  const result = (await server.client.callTool(
    { name: "fs_search_by_time", arguments: { timeField: "modified", limit: 1 } },
    CallToolResultSchema,
    {
      onprogress: ({ progress }) => seen.push({ at: performance.now(), progress }),
      timeout: WALKS_TIMEOUT,
    },
  )) as Result;
  // The walk's own duration, not the round trip's, which a busy machine lengthens without the server
  // having had the time to report.
  const ms = Number(/\bms=(\d+)/.exec(await walked)?.[1]);
  expect(result.structuredContent?.stats.scannedFiles).toBe(TOTAL_FILES);
  if (ms > 250) expect(seen.length).toBeGreaterThan(0); // a walk this long must have reported
  expect(seen.length).toBeLessThanOrEqual(Math.floor(ms / 100) + 1);
  for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
  expect(seen.every((p) => p.progress <= TOTAL_FILES + DIRECTORIES + 1)).toBe(true);
});

test("a long walk (stat calls shared with the worker thread) still ranks exactly and pages on", async () => {
  const call = async (args: Record<string, unknown>) =>
    (await server.client.callTool({
      name: "fs_search_by_time",
      arguments: { timeField: "modified", sort: "path_asc", ...args },
    })) as unknown as {
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
  const call = server.client.callTool(
    { name: "fs_search_by_time", arguments: { timeField: "modified", includeDirectories: true } },
    CallToolResultSchema,
    {
      signal: controller.signal,
      timeout: WALKS_TIMEOUT,
      onprogress: ({ progress: scanned }) => {
        progress.push(scanned);
        controller.abort("the user changed their mind");
      },
    },
  );
  await expect(call).rejects.toThrow();
  expect(progress.length).toBeGreaterThan(0);

  const small = (await server.client.callTool({
    name: "fs_search_by_time",
    arguments: { timeField: "modified", path: "d0", limit: 2 },
  })) as Result;
  expect(small.isError).toBeFalsy();
  expect(small.structuredContent?.matches).toHaveLength(2);

  // The server logs how far the cancelled walk got: well short of the whole tree. The first progress
  // can come from the root's 240 directories alone, so the cancel may land before any file is scanned.
  const line = await server.stderrLine(/fs_search_by_time cancelled/);
  const scannedFiles = Number(/scannedFiles\D{0,4}(\d+)/.exec(line)?.[1]);
  const scannedDirectories = Number(/scannedDirectories\D{0,4}(\d+)/.exec(line)?.[1]);
  expect(scannedFiles + scannedDirectories).toBeGreaterThan(0);
  expect(scannedFiles).toBeLessThan(TOTAL_FILES);
});

test("the time budget ends a walk with partial results and says so", async () => {
  const limited = await startStdioServer({ args: ["--toolsets", "fs", "--root", tree, "--fs-time-budget-ms", "100"] });
  try {
    const messages: { level: string; logger?: string; data: unknown }[] = [];
    limited.client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      messages.push(params);
    });
    await limited.client.setLoggingLevel("info");
    const result = (await limited.client.callTool({
      name: "fs_search_by_time",
      arguments: { timeField: "modified" },
    })) as Result;
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text).toContain("time budget of 100 ms");
    expect(result.structuredContent?.stats.scannedFiles).toBeLessThan(TOTAL_FILES);
    // A client that shows a model only structuredContent is told too, in the same words.
    const notice = result.structuredContent?.notices?.find((note) => note.includes("time budget of 100 ms"));
    expect(notice).toBeDefined();
    expect(result.content[0].text).toContain(notice as string);
    await limited.client.ping(); // its answer comes after every notification sent before it
    const partial = messages.filter(
      (m) => m.logger === "fs" && JSON.stringify(m.data).includes("time budget of 100 ms"),
    );
    expect(partial).toHaveLength(1);
    expect(partial[0].level).toBe("warning");
  } finally {
    await limited.close();
  }
});

test("while a long search runs, other requests are answered (the walk never holds the event loop)", async () => {
  const slow = await startStdioServer({ args: ["--toolsets", "fs", "--root", tree] });
  try {
    await slow.client.ping(); // warm
    let running = true;
    const walking = Promise.withResolvers<void>();
    const search = slow.client
      .callTool(
        {
          name: "fs_search_by_time",
          arguments: { timeField: "modified", glob: "**/f*[0-9].txt", includeDirectories: true },
        },
        CallToolResultSchema,
        { timeout: WALKS_TIMEOUT, onprogress: () => walking.resolve() },
      )
      .finally(() => {
        running = false;
        walking.resolve();
      });
    const lags: number[] = [];
    await walking.promise; // its first progress notification: the walk is under way
    while (running) {
      const started = performance.now();
      await slow.client.ping();
      if (running) lags.push(performance.now() - started);
    }
    await search;
    lags.sort((a, b) => a - b);
    console.error(
      `ping during a search: ${lags.length} pings, median ${lags[lags.length >> 1]?.toFixed(1)} ms, max ${lags.at(-1)?.toFixed(1)} ms`,
    );
    // Counted, not timed: a walk that held the event loop would answer the first ping after its own
    // result, so no ping would come back while it runs, however fast or loaded the machine.
    expect(lags.length).toBeGreaterThan(3);
  } finally {
    await slow.close();
  }
});

test.skipIf(!existsSync("/proc/self/fd"))(
  "the server's open descriptors are back to where they were after cancelled, out-of-time and complete searches",
  async () => {
    const budgeted = await startStdioServer({
      args: ["--toolsets", "fs", "--root", tree, "--fs-time-budget-ms", "100"],
    });
    try {
      // Warm up: the first long search starts the stat worker thread, whose own descriptors stay.
      // On a loaded machine the thread may still be starting when a 100 ms search ends, so search
      // until a search leaves the count where it found it.
      const count = (running: RunningServer) => readdirSync(`/proc/${running.transport.pid}/fd`).length;
      for (const running of [server, budgeted]) {
        for (let settled = false, round = 0; !settled && round < 10; round++) {
          const start = count(running);
          await running.client.callTool({ name: "fs_search_by_time", arguments: { timeField: "modified", limit: 1 } });
          settled = round > 0 && count(running) === start;
        }
      }
      const before = [count(server), count(budgeted)];
      const outOfTime = (await budgeted.client.callTool({
        name: "fs_search_by_time",
        arguments: { timeField: "modified" },
      })) as Result;
      expect(outOfTime.content[0].text).toContain("time budget");
      const controller = new AbortController();
      const cancelled = server.nextStderrLine(/fs_search_by_time cancelled/);
      const call = server.client.callTool(
        { name: "fs_search_by_time", arguments: { timeField: "created" } },
        CallToolResultSchema,
        { signal: controller.signal, onprogress: () => controller.abort("stop") }, // cancelled mid-walk
      );
      await expect(call).rejects.toThrow();
      await cancelled; // the walk has ended and let go of its directories
      for (const running of [server, budgeted]) {
        await running.client.callTool({ name: "fs_search_by_time", arguments: { timeField: "modified", path: "d1" } });
      }
      expect([count(server), count(budgeted)]).toEqual(before);
    } finally {
      await budgeted.close();
    }
  },
);
