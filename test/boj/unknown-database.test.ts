/**
 * Database codes fail open (issue 36, regression of issue 19's local refusal): a code outside the
 * built-in list of 50 goes to BOJ like any other, paced, because BOJ adds databases. When BOJ
 * answers M181005E the error keeps seed 000's API_ERROR contract (-32602, error_type, status,
 * message_id, message) and its message names the closest known code. Through the real process
 * over stdio, against the fake BOJ.
 */
import { afterAll, beforeEach, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { DATABASE_BOJ_ADDED_LATER } from "../fixtures/boj/dataset.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

test("a database BOJ added after the built-in list is served, and a mistyped one is BOJ's M181005E with the closest code", async () => {
  const server = await startStdioServer({ args: bojTestArgs(fake.url) });
  try {
    const added = await server.client.callTool({
      name: "boj_get_data_code",
      arguments: { db: DATABASE_BOJ_ADDED_LATER, codes: ["IR05RATE01"] },
    });
    expect(added.isError).toBeFalsy();
    expect((added.structuredContent as { series: { series_code: string }[] }).series[0].series_code).toBe("IR05RATE01");

    for (const [tool, args, near] of [
      ["boj_get_metadata", { db: "FM8" }, "FM08"],
      ["boj_get_data_layer", { db: "md1o", frequency: "Q", layers: ["*"] }, "MD10"],
      ["boj_get_data_code", { db: "C0", codes: ["TK99F1000601GCQ01000"] }, "CO"],
    ] as const) {
      const { code, message, data } = await rpcError(server.client.callTool({ name: tool, arguments: args }));
      expect(code).toBe(-32602);
      expect(data).toEqual({
        error_type: "API_ERROR",
        status: 400,
        message_id: "M181005E",
        message: "DB名が正しくありません。",
      });
      expect(message).toContain("M181005E");
      expect(message).toContain(`did you mean "${near}"?`);
    }
    const far = await rpcError(server.client.callTool({ name: "boj_get_metadata", arguments: { db: "ZZZZ99" } }));
    expect(far.data).toMatchObject({ error_type: "API_ERROR", message_id: "M181005E" });
    expect(far.message).not.toContain("did you mean");
    expect(far.message).toContain("boj_list_databases");
    // Every one of them was asked of BOJ, under the code the caller gave (upper-cased as boj-client does).
    expect(fake.requests.map((request) => request.query.get("db"))).toEqual([
      DATABASE_BOJ_ADDED_LATER,
      "FM8",
      "MD1O",
      "C0",
      "ZZZZ99",
    ]);
  } finally {
    await server.close();
  }
});

test("an unknown database code waits for its pacing slot like every BOJ request", async () => {
  // A minute between requests: once the first call has taken the slot, the next one must wait.
  const server = await startStdioServer({ args: bojTestArgs(fake.url, "--boj-min-interval-ms", "60000") });
  try {
    const first = await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } });
    expect(first.isError).toBeFalsy();
    const controller = new AbortController();
    const waits = server.nextStderrLine(/waiting \d+ ms before calling BOJ getMetadata/);
    const paced = server.client
      .callTool({ name: "boj_get_metadata", arguments: { db: "FM8" } }, undefined, { signal: controller.signal })
      .catch(() => "cancelled");
    expect(Number(/waiting (\d+) ms/.exec(await waits)?.[1])).toBeGreaterThan(5_000);
    controller.abort();
    expect(await paced).toBe("cancelled");
    expect(fake.requests).toHaveLength(1); // the cancelled call never went out
  } finally {
    await server.close();
  }
});
