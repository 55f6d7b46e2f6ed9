/**
 * Issue 23: the BOJ chart is offered as an MCP Apps view only to hosts that render apps. A client
 * that declares the UI extension sees `_meta.ui.resourceUri` on the two data tools and can read
 * `ui://mcpkit/boj-chart` (text/html;profile=mcp-app, one self-contained page); any other client
 * sees today's tools and resources unchanged. Real processes over stdio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { REPO_ROOT, type RunningServer, startStdioServer } from "../support/mcp.ts";

const fake = startFakeBoj();
const args = ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-min-interval-ms", "0"];
let plain: RunningServer;
let ui: RunningServer;

beforeAll(async () => {
  [plain, ui] = await Promise.all([startStdioServer({ args }), startStdioServer({ args, rendersApps: true })]);
});
afterAll(async () => {
  await plain?.close();
  await ui?.close();
  await fake.stop();
});

const CHART = "ui://mcpkit/boj-chart";

describe("the BOJ chart as an MCP Apps view", () => {
  test("a host that renders apps sees _meta.ui on the two data tools, and the view among the resources", async () => {
    const { tools } = await ui.client.listTools();
    const withUi = tools.filter((tool) => tool._meta?.ui).map((tool) => tool.name);
    expect(withUi).toEqual(["boj_get_data_code", "boj_get_data_layer"]);
    for (const tool of tools.filter((candidate) => withUi.includes(candidate.name))) {
      expect(tool._meta).toEqual({ ui: { resourceUri: CHART }, "ui/resourceUri": CHART });
    }
    const { resources } = await ui.client.listResources();
    expect(resources.find((resource) => resource.uri === CHART)).toMatchObject({
      name: "boj-chart",
      mimeType: "text/html;profile=mcp-app",
    });
    const read = await ui.client.readResource({ uri: CHART });
    const page = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(page.mimeType).toBe("text/html;profile=mcp-app");
    expect(page.text).toStartWith("<!doctype html>");
    // Self-contained: no script, style or font is fetched from anywhere.
    expect(page.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import|<img|<iframe/);
    expect(Bun.gzipSync(page.text).length).toBeLessThan(60 * 1024);
  });

  test("any other client sees the tools and resources of before, and cannot read the view", async () => {
    const { tools } = await plain.client.listTools();
    expect(tools.some((tool) => tool._meta !== undefined)).toBe(false);
    const { resources } = await plain.client.listResources();
    expect(resources.map((resource) => resource.uri)).not.toContain(CHART);
    const error = await plain.client.readResource({ uri: CHART }).catch((e) => e);
    expect(error.code).toBe(-32002);
  });

  test("the chart's data rides in structuredContent; the model's text is unchanged", async () => {
    const call = { name: "boj_get_data_code", arguments: { db: "CO", codes: ["TK99F1000601GCQ01000"] } };
    const [forUi, forPlain] = await Promise.all([ui.client.callTool(call), plain.client.callTool(call)]);
    expect(forUi.content).toEqual(forPlain.content);
    expect((forUi.structuredContent as { series: unknown[] }).series).toHaveLength(1);
  });

  test("the UI listing of both tools is snapshotted", () => {
    for (const name of ["boj_get_data_code", "boj_get_data_layer"]) {
      const snap = readFileSync(join(REPO_ROOT, "test/__toolsnaps__", `${name}.snap`), "utf8");
      expect(snap).toContain(`"resourceUri": "${CHART}"`);
    }
  });
});
