/**
 * With telemetry off, the toolsets' telemetry hooks build nothing: the BOJ cache lookup, the wait
 * for the BOJ pacer and the fs walk ask `telemetryOn()` before they build the attributes of their
 * event, so `countEvent` and `spanEvent` (whose arguments would be built before the call) are never
 * reached. In-process, because what is checked is which functions run, not what leaves the process;
 * the paths themselves run for real (the fake BOJ over loopback, a walk of a temporary tree).
 */
import { afterAll, afterEach, expect, spyOn, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { invokeTool } from "../../src/core/invoke.ts";
import { silentLogger } from "../../src/core/log.ts";
import * as telemetry from "../../src/core/telemetry/index.ts";
import { BojAnswers } from "../../src/toolsets/boj/answers.ts";
import { MemoryAnswerCache } from "../../src/toolsets/boj/cache.ts";
import { BojClient } from "../../src/toolsets/boj/client.ts";
import { decodeDataBody } from "../../src/toolsets/boj/decode/index.ts";
import { buildCodeRequest } from "../../src/toolsets/boj/validation.ts";
import { resolveRoot } from "../../src/toolsets/fs/roots.ts";
import { createFs } from "../../src/toolsets/fs/toolset.ts";
import { bojClientConfig } from "../boj/support.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { quietToolContext } from "../support/tool-context.ts";

const fake = startFakeBoj();
const tree = mkdtempSync(join(tmpdir(), "mcpkit-off-cost-"));
afterAll(() => {
  fake.stop();
  rmSync(tree, { recursive: true, force: true });
});

const spanEvents = spyOn(telemetry, "spanEvent");
const countEvents = spyOn(telemetry, "countEvent");
afterEach(() => {
  spanEvents.mockClear();
  countEvents.mockClear();
});

const context = (calledAs: string) => quietToolContext(calledAs);

test("telemetry is off in this process", () => {
  expect(telemetry.telemetryOn()).toBe(false);
});

test("a BOJ answer through the cache (a miss, then a hit) and a wait for the pacer build no event", async () => {
  const waits: number[] = [];
  // A pacer that always has the caller wait, so the wait's hook runs on every request.
  const pace = async (_origin: string, _interval: number, _signal: AbortSignal, onWait?: (ms: number) => void) => {
    waits.push(5);
    onWait?.(5);
  };
  const client = new BojClient(bojClientConfig(fake.url), silentLogger, pace);
  const answers = new BojAnswers(client, new MemoryAnswerCache(1_000_000), { dataMs: 60_000, metadataMs: 60_000 });
  const request = buildCodeRequest({
    db: "CO",
    codes: ["TK99F1000601GCQ01000"],
    start_date: "202401",
    end_date: "202504",
  });
  const decode = (body: Parameters<typeof decodeDataBody>[0]) => decodeDataBody(body, request, "code");

  const first = await answers.fetch(request, context("boj_get_data_code"), decode);
  const second = await answers.fetch(request, context("boj_get_data_code"), decode);

  expect(first.cached).toBeUndefined();
  expect(second.cached).toBeDefined();
  expect(fake.requests).toHaveLength(1);
  expect(waits).toEqual([5]);
  expect(countEvents).not.toHaveBeenCalled();
  expect(spanEvents).not.toHaveBeenCalled();
});

test("an fs walk builds no event", async () => {
  mkdirSync(join(tree, "a"));
  writeFileSync(join(tree, "a", "one.txt"), "1");
  writeFileSync(join(tree, "two.txt"), "2");
  const root = resolveRoot(tree, tree);
  if (typeof root === "string") throw new Error(root);
  const toolset = createFs(
    { roots: [root], limits: { maxDepth: 10, budgetMs: 60_000 }, nativeWalk: "off", cursorSecret: undefined },
    { log: silentLogger, mode: "stdio", cwd: tree },
  );
  try {
    const result = await invokeTool(toolset, toolset.tools[0], { timeField: "modified" }, context("fs_search_by_time"));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.stats).toMatchObject({ scannedFiles: 2, scannedDirectories: 2 });
    expect(spanEvents).not.toHaveBeenCalled();
  } finally {
    await toolset.close?.();
  }
});
