/**
 * A database code outside BOJ's catalogue is answered from the local catalogue (issue 19 §2):
 * "did you mean" in seed 000's VALIDATION_ERROR shape, before the call waits for a pacing slot and
 * before any request is sent, through the real process over stdio.
 */
import { afterAll, beforeEach, expect, test } from "bun:test";
import { LoggingMessageNotificationSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { startStdioServer } from "../support/mcp.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

test("an unknown database code is refused without a pacing wait or a request, with the closest code", async () => {
  // A minute between requests: once the first call has taken the slot, a paced call would wait
  // that long, far past the request timeout below.
  const server = await startStdioServer({
    args: ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-cache-bytes", "0", "--boj-min-interval-ms", "60000"],
  });
  const seen: string[] = [];
  server.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    seen.push(String(notification.params.data));
  });
  try {
    await server.client.setLoggingLevel("debug");
    const first = await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } });
    expect(first.isError).toBeFalsy();
    expect(fake.requests).toHaveLength(1);

    for (const [db, near] of [
      ["FM8", "FM08"],
      ["md1o", "MD10"],
    ]) {
      const error = await server.client
        .callTool({ name: "boj_get_data_layer", arguments: { db, frequency: "Q", layers: ["*"] } }, undefined, {
          timeout: 4_000,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(McpError);
      const { code, message, data } = error as McpError;
      expect(code).toBe(-32602);
      expect(data).toMatchObject({ error_type: "VALIDATION_ERROR", field: "db" });
      expect(message).toContain(`did you mean "${near}"? Call boj_list_databases for the codes.`);
    }
    expect(fake.requests).toHaveLength(1);
    expect(seen.filter((line) => line.includes("waiting"))).toEqual([]);
  } finally {
    await server.close();
  }
});
