/**
 * A one-shot `mcpkit call fs.search_by_time` starts its stat worker thread in src/main.ts, before
 * the command line and the toolsets load, so the thread is ready when the walk begins; no other
 * command and no server starts it then (start-up is benchmarked). The walk then hands its stat
 * calls over from its first batches, not after milliseconds of interpreted work.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { directoryAccess } from "../../src/toolsets/fs/directories.ts";
import { SEED_NAME, TOOL_NAME } from "../../src/toolsets/fs/search-by-time-tool.ts";
import { openStatSink, WORKER_MIN_BATCH } from "../../src/toolsets/fs/stat-sink.ts";
import { isFsCall, prestartStatThread } from "../../src/toolsets/fs/stat-thread.ts";
import { StatWorker } from "../../src/toolsets/fs/stat-worker.ts";
import { walk } from "../../src/toolsets/fs/walk.ts";
import { REPO_ROOT, mcpkitCommand, testEnv } from "../support/mcp.ts";
import { collectorConfig, walkRequest } from "./support.ts";

let tree: string;

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), "mcpkit-fs-early-"));
  for (let d = 0; d < 3; d++) {
    mkdirSync(join(tree, `d${d}`));
    for (let f = 0; f < 200; f++) writeFileSync(join(tree, `d${d}`, `f${f}`), "");
  }
});
afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe("which command lines start the thread early", () => {
  test("the names it recognizes are the fs tool's", () => {
    expect(isFsCall(["call", TOOL_NAME])).toBe(true);
    expect(isFsCall(["call", SEED_NAME])).toBe(true);
  });

  test("a call of the fs search, options before or after it", () => {
    expect(isFsCall(["call", "fs.search_by_time", '{"timeField":"modified"}', "--root", "/tmp"])).toBe(true);
    expect(isFsCall(["--root", "/tmp", "--log-level", "debug", "call", "fs_search_by_time"])).toBe(true);
    expect(isFsCall(["call", "fs.search_by_time", "-"])).toBe(true);
  });

  test("servers, other commands, other tools and help do not", () => {
    for (const argv of [
      [],
      ["--root", "/tmp"],
      ["--http", "127.0.0.1:0", "--root", "/tmp"],
      ["--version"],
      ["tools"],
      ["call"],
      ["call", "boj_get_data_code", "{}"],
      ["call", "fs.search_by_time", "--help"],
      ["call", "fs.search_by_time", "-h"],
      ["help", "call"],
      ["help", "fs.search_by_time"],
      ["install", "claude"],
    ]) {
      expect({ argv, early: isFsCall(argv) }).toEqual({ argv, early: false });
    }
  });
});

/** Resolves once the child's stderr has printed a line containing `text` (fails if it ends first). */
async function stderrLine(stderr: ReadableStream<Uint8Array>, text: string): Promise<void> {
  const reader = stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  try {
    while (!seen.includes(text)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stderr ended without "${text}": ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

/** Thread names of a running process (Linux): Bun names a Worker's thread "Worker". */
function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((task) => readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim());
}

const describeProc = existsSync("/proc/self/task") ? describe : describe.skip;

describeProc("in a real process", () => {
  test("`call fs.search_by_time -` has its stat thread running while it still waits for its arguments", async () => {
    const child = Bun.spawn(
      [...mcpkitCommand(), "call", "fs.search_by_time", "-", "--root", tree, "--log-level", "debug"],
      { cwd: REPO_ROOT, env: testEnv(), stdin: "pipe", stdout: "pipe", stderr: "pipe" },
    );
    try {
      // No search can have begun: the process says it is about to read its JSON arguments from stdin,
      // and a Worker's thread exists from its constructor on.
      await stderrLine(child.stderr, "reading the JSON arguments of fs.search_by_time from stdin");
      expect(threadNames(child.pid)).toContain("Worker");
      child.stdin.write('{"timeField":"modified"}');
      await child.stdin.end();
      expect(await child.exited).toBe(0);
      const result = JSON.parse(await new Response(child.stdout).text());
      expect(result.structuredContent.stats.scannedFiles).toBe(600);
    } finally {
      child.kill();
    }
  });

  test("a stdio server that has answered initialize runs no stat thread", async () => {
    const child = Bun.spawn([...mcpkitCommand(), "--root", tree], {
      cwd: REPO_ROOT,
      env: testEnv(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        })}\n`,
      );
      child.stdin.flush();
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain('"id":1');
      expect(threadNames(child.pid)).not.toContain("Worker");
      reader.releaseLock();
      await child.stdin.end();
      expect(await child.exited).toBe(0);
    } finally {
      child.kill();
    }
  });
});

test("with the thread ready, a walk hands over its first batch of more than 128 entries at once", async () => {
  const config = collectorConfig();
  // As main.ts does for a one-shot search: the thread starts before the search's StatWorker exists.
  prestartStatThread();
  const worker = new StatWorker();
  try {
    expect(await worker.whenReady()).toBe(true);
    expect(worker.startedEarly).toBe(true);
    const sink = openStatSink(config, "", worker);
    let firstBatch = -1;
    await walk(
      walkRequest(tree, {
        access: directoryAccess(),
        accept: (directory, relative, batch) => {
          sink.accept(directory, relative, batch);
          if (firstBatch === -1) firstBatch = sink.workerBatches;
        },
      }),
    );
    const collected = await sink.join();
    expect(firstBatch).toBe(1);
    expect(collected?.offered).toBe(600);
  } finally {
    worker.close();
  }
});

test("batches too small to pay for a hand-over are stat'ed on the walk's thread, the worker ready or not", async () => {
  // 100 directories of 3 files (a glob's typical batches) and one of 200: only the large batch travels.
  const small = mkdtempSync(join(tmpdir(), "mcpkit-fs-small-batches-"));
  try {
    for (let d = 0; d < 100; d++) {
      mkdirSync(join(small, `s${d}`));
      for (let f = 0; f < WORKER_MIN_BATCH - 5; f++) writeFileSync(join(small, `s${d}`, `f${f}`), "");
    }
    mkdirSync(join(small, "large"));
    for (let f = 0; f < 200; f++) writeFileSync(join(small, "large", `f${f}`), "");
    prestartStatThread();
    const worker = new StatWorker();
    try {
      expect(await worker.whenReady()).toBe(true);
      const sink = openStatSink(collectorConfig({ limit: 1000 }), "", worker);
      await walk(walkRequest(small, { access: directoryAccess(), accept: (d, r, b) => sink.accept(d, r, b) }));
      const collected = await sink.join();
      expect(collected?.offered).toBe(100 * (WORKER_MIN_BATCH - 5) + 200);
      expect(sink.workerBatches).toBe(1);
    } finally {
      worker.close();
    }
  } finally {
    rmSync(small, { recursive: true, force: true });
  }
});

test("a stat thread that cannot load costs only speed: whenReady says so, and a search stats on its own thread", async () => {
  const config = collectorConfig({ limit: 600 });
  const broken = new StatWorker(new URL("./no-such-stat-thread.js", import.meta.url).href);
  try {
    expect(await broken.whenReady()).toBe(false);
    const sink = openStatSink(config, "", broken);
    await walk(walkRequest(tree, { access: directoryAccess(), accept: (d, r, b) => sink.accept(d, r, b) }));
    const collected = await sink.join();
    expect(sink.workerBatches).toBe(0);
    expect(collected?.offered).toBe(600);
    expect(collected?.kept).toHaveLength(600);
  } finally {
    broken.close();
  }
});
