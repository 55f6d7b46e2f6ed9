/**
 * 1,000 sessions opened and closed: the session table empties and the cap holds at the default
 * of 1,000 (a real `mcpkit --http` process), and the memory they took is released (measured
 * in-process, where a full garbage collection can be forced before comparing heaps).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { silentLogger } from "../../src/core/log.ts";
import { type Toolset, defineTool, textResult } from "../../src/core/tool.ts";
import { serveHttp } from "../../src/mcp/http/serve.ts";
import { readHttpConfig } from "../../src/mcp/http/config.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  deleteRawSession,
  initializeBody,
  openRawSession,
  startHttpServer,
} from "./support.ts";

const SESSIONS = 1000;
const PARALLEL = 16;

async function inParallel<T>(count: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await work(index);
      }
    }),
  );
  return results;
}

/** Opens SESSIONS sessions, checks the cap refuses one more, closes them all. */
async function openAndCloseAll(url: string, sessionsOpen: () => Promise<number>): Promise<void> {
  const ids = await inParallel(SESSIONS, () => openRawSession(url));
  expect(new Set(ids).size).toBe(SESSIONS);
  expect(await sessionsOpen()).toBe(SESSIONS);
  const beyond = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
  expect(beyond.status).toBe(503);
  await beyond.text();
  const statuses = await inParallel(SESSIONS, (index) => deleteRawSession(url, ids[index]));
  expect(statuses.every((status) => status === 200)).toBe(true);
  expect(await sessionsOpen()).toBe(0);
}

describe("a real mcpkit --http process", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(["--toolsets", "boj"]);
  });
  afterAll(async () => {
    await server.stop();
  });

  test("holds exactly the default 1,000 sessions, and all of them close", async () => {
    await openAndCloseAll(
      server.url,
      async () => ((await (await fetch(`${server.base}/healthz`)).json()) as { sessions: number }).sessions,
    );
  }, 30_000);
});

describe("memory", () => {
  test("after 1,000 sessions opened and closed, the heap is back near its start", async () => {
    const toolset: Toolset = {
      name: "probe",
      tools: [
        defineTool({
          name: "probe_echo",
          title: "Echo",
          description: "Echoes.",
          input: v.object({}),
          annotations: { readOnlyHint: true },
          scope: "probe:read",
          handler: async () => textResult("ok"),
        }),
      ],
    };
    const config = readHttpConfig({ http: "127.0.0.1:0" });
    if (!config) throw new Error("no config");
    const handle = await serveHttp(config, {
      toolsets: [toolset],
      log: silentLogger,
      toolNames: "portable",
      outputBudget: 100_000,
    });
    const base = new URL(handle.url).origin;
    const sessionsOpen = async () => ((await (await fetch(`${base}/healthz`)).json()) as { sessions: number }).sessions;
    try {
      // Warm up code paths and caches so the comparison measures sessions, not first use.
      await inParallel(50, async () => deleteRawSession(handle.url, await openRawSession(handle.url)));
      Bun.gc(true);
      const start = process.memoryUsage().heapUsed;
      await openAndCloseAll(handle.url, sessionsOpen);
      await Bun.sleep(100);
      Bun.gc(true);
      const end = process.memoryUsage().heapUsed;
      const grownMiB = (end - start) / 1024 / 1024;
      console.error(`heap used: start ${(start / 1048576).toFixed(1)} MiB, end ${(end / 1048576).toFixed(1)} MiB`);
      // Each open session holds tens of KiB; keeping even 5 KiB of each would show as ~5 MiB.
      expect(grownMiB).toBeLessThan(4);
    } finally {
      await handle.close();
    }
  }, 30_000);
});
