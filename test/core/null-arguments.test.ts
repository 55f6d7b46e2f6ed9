/**
 * `null` for an optional argument means "not given" (issue 35): models and some clients send
 * `{"endpoint": null}` or `"root": null` for what they leave out, and every tool used to refuse it
 * with "Expected string but received null". Checked for every toolset through the real process in
 * both eras (2025-11-25 over stdio with the SDK client, 2026-07-28 over HTTP on the wire) and with
 * `mcpkit call`. A required argument given as `null` is still refused, naming it; the listed
 * schemas do not change (test/__toolsnaps__).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeBoj, startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { type HttpServerProcess, startHttpServer } from "../http/support.ts";
import { post, request } from "../modern/support.ts";
import { textOf } from "../support/every-toolset.ts";
import { type RunningServer, runCli, startStdioServer } from "../support/mcp.ts";

let root: string;
let boj: FakeBoj;
let craboj: FakeCraboj;
let stdio: RunningServer;
let http: HttpServerProcess;

const serverArgs = () => ["--toolsets", "all", "--oj-base-url", craboj.url, "--root", root];
const env = () => ({ BOJ_BASE_URL: boj.url });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-null-"));
  writeFileSync(join(root, "notes.md"), "hello");
  boj = startFakeBoj();
  craboj = startFakeCraboj();
  [stdio, http] = await Promise.all([
    startStdioServer({ args: serverArgs(), env: env() }),
    startHttpServer(serverArgs(), { env: env() }),
  ]);
});

afterAll(async () => {
  await stdio?.close();
  await http?.stop();
  await boj?.stop();
  await craboj?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** What a call came back as, whichever way it went: a JSON-RPC error, or a result and its text. */
interface Outcome {
  error?: { code: number; message: string };
  isError: boolean;
  text: string;
}

const WAYS: Record<string, (tool: string, args: Record<string, unknown>) => Promise<Outcome>> = {
  "2025-11-25 over stdio": async (tool, args) => {
    try {
      const result = await stdio.client.callTool({ name: tool, arguments: args });
      return { isError: result.isError === true, text: textOf(result) };
    } catch (error) {
      const { code, message } = error as { code: number; message: string };
      return { error: { code, message }, isError: true, text: "" };
    }
  },
  "2026-07-28 over HTTP": async (tool, args) => {
    const { response } = await post(http.url, request("tools/call", { name: tool, arguments: args }));
    if (response.error) return { error: response.error, isError: true, text: "" };
    return { isError: response.result.isError === true, text: textOf(response.result) };
  },
  "mcpkit call": async (tool, args) => {
    const { code, stdout } = await runCli(["call", tool, JSON.stringify(args), ...serverArgs()], { env: env() });
    const printed = JSON.parse(stdout);
    if (printed.error) return { error: printed.error, isError: true, text: "" };
    expect(code).toBe(printed.isError ? 2 : 0);
    return { isError: printed.isError === true, text: textOf(printed) };
  },
};

/** Calls whose optional arguments are all null: each must answer as if they were left out. */
const OPTIONAL_NULLS = [
  { tool: "boj_get_parameter_catalog", args: { endpoint: null }, expect: "BOJ API parameters (all)" },
  {
    tool: "boj_get_metadata",
    args: { db: "FM08", lang: null, format: null, query: null, limit: null, include_raw: null },
    expect: "FM08",
  },
  { tool: "get_daily_challenge", args: { domain: null, date: null }, expect: "Daily challenge" },
  {
    tool: "find_similar_problems",
    args: { query: "two sum", source: null, id: null, limit: null, threshold: null, source_filter: null },
    expect: "Similar Problems",
  },
  {
    tool: "fs_search_by_time",
    args: { timeField: "modified", root: null, glob: null, limit: null, cursor: null, sort: null },
    expect: "notes.md",
  },
] as const;

/** A required argument given as null: still refused, naming the argument. */
const REQUIRED_NULLS = [
  { tool: "boj_get_metadata", args: { db: null }, field: "db" },
  { tool: "resolve_problem", args: { query: null }, field: "query" },
  { tool: "fs_search_by_time", args: { timeField: null }, field: "timeField" },
] as const;

for (const [way, call] of Object.entries(WAYS)) {
  describe(`null arguments, ${way}`, () => {
    for (const { tool, args, expect: expected } of OPTIONAL_NULLS) {
      test(`${tool} ${JSON.stringify(args)} answers as if the nulls were left out`, async () => {
        const outcome = await call(tool, args);
        expect(outcome.error).toBeUndefined();
        expect({ isError: outcome.isError, text: outcome.text }).toMatchObject({ isError: false });
        expect(outcome.text).toContain(expected);
      });
    }
    for (const { tool, args, field } of REQUIRED_NULLS) {
      test(`${tool} with ${field}: null is refused, naming "${field}"`, async () => {
        const outcome = await call(tool, args);
        // boj refuses with JSON-RPC -32602, oj and fs with an isError result (docs/contracts).
        const message = outcome.error?.message ?? outcome.text;
        expect(outcome.isError).toBe(true);
        expect(message).toContain(`"${field}"`);
      });
    }
  });
}

test("an unknown argument given as null is still refused as unknown", async () => {
  const outcome = await WAYS["2026-07-28 over HTTP"]("fs_search_by_time", { timeField: "modified", start: null });
  expect(outcome.isError).toBe(true);
  expect(outcome.text).toContain('unknown argument "start"');
});

/** A misspelt argument name, the argument it was meant to be, and the rest of a valid call. */
const MISSPELT = [
  { tool: "boj_get_data_code", args: { db: "CO", code: ["A"] }, typo: "code", meant: "codes" },
  {
    tool: "boj_get_data_code",
    args: { db: "CO", codes: ["A"], startdate: "2020" },
    typo: "startdate",
    meant: "start_date",
  },
  {
    tool: "boj_get_data_layer",
    args: { db: "MD10", frequncy: "Q", layers: ["*"] },
    typo: "frequncy",
    meant: "frequency",
  },
  { tool: "resolve_problem", args: { querry: "two sum" }, typo: "querry", meant: "query" },
  { tool: "get_problem", args: { source: "leetcode", ID: "1" }, typo: "ID", meant: "id" },
  { tool: "fs_search_by_time", args: { timeFeild: "modified" }, typo: "timeFeild", meant: "timeField" },
  { tool: "fs_search_by_time", args: { time_field: "modified" }, typo: "time_field", meant: "timeField" },
] as const;

describe("a misspelt argument name is refused with the one it was probably meant to be", () => {
  for (const [way, run] of Object.entries(WAYS).filter(([way]) => way !== "mcpkit call")) {
    test(way, async () => {
      for (const { tool, args, typo, meant } of MISSPELT) {
        const outcome = await run(tool, args);
        const message = outcome.error?.message ?? outcome.text;
        expect({ tool, message }).toEqual({
          tool,
          message: expect.stringContaining(`unknown argument "${typo}"; did you mean "${meant}"?`),
        });
        // The question ends its sentence: no full stop after it (second review).
        expect(message).not.toContain("?.");
      }
    });
  }

  test("a tool without arguments says it takes none instead of '(allowed: )'", async () => {
    const outcome = await WAYS["2025-11-25 over stdio"]("boj_list_databases", { x: 1 });
    const message = outcome.error?.message ?? outcome.text;
    expect(message).toContain('unknown argument "x"; this tool takes no arguments; call it with {}');
    expect(message).not.toContain("(allowed: )");
  });

  test("a name like no argument still lists those allowed", async () => {
    const outcome = await WAYS["2025-11-25 over stdio"]("fs_search_by_time", { timeField: "modified", zzzzzz: 1 });
    expect(outcome.text).toContain('unknown argument "zzzzzz" (allowed: root, path, timeField, ');
  });
});
