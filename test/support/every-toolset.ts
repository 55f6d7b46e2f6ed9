/**
 * The setup the independent-client tests share: a root holding notes.md, a fake craboj, and an
 * HTTP server with every toolset on both, started before the file's tests and stopped after.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { type HttpServerProcess, startHttpServer } from "../http/support.ts";

export interface EveryToolset {
  root: string;
  craboj: FakeCraboj;
  http: HttpServerProcess;
  /** The flags that turn every toolset on against this root and craboj (for a stdio server too). */
  serverArgs(): string[];
}

export function everyToolsetServer(prefix: string): EveryToolset {
  const fixture = {
    serverArgs: () => ["--toolsets", "all", "--oj-base-url", fixture.craboj.url, "--root", fixture.root],
  } as EveryToolset;
  beforeAll(async () => {
    fixture.root = mkdtempSync(join(tmpdir(), prefix));
    writeFileSync(join(fixture.root, "notes.md"), "hello");
    fixture.craboj = startFakeCraboj();
    fixture.http = await startHttpServer(fixture.serverArgs());
  });
  afterAll(async () => {
    await fixture.http?.stop();
    await fixture.craboj?.stop();
    rmSync(fixture.root, { recursive: true, force: true });
  });
  return fixture;
}

/** One call per toolset against this setup, and what its text must contain. */
export const EVERY_TOOLSET_CALLS = [
  { tool: "boj_list_databases", args: {}, expect: "FM08" },
  { tool: "get_problem", args: { source: "leetcode", id: "two-sum" }, expect: "Two Sum" },
  { tool: "fs_search_by_time", args: { timeField: "modified" }, expect: "notes.md" },
] as const;

/** The text blocks of a tool result, joined. */
export function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? "")
    .join("\n");
}
