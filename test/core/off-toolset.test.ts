/**
 * A model that calls a tool whose toolset is off on this server learns which toolset it is and
 * how the user turns it on, in both protocol eras, instead of a bare "unknown tool" (`mcpkit call`
 * already says so on the command line). A name no toolset has is still unknown, with a suggestion.
 */
import { afterAll, expect, test } from "bun:test";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";
import { startStdioServer } from "../support/mcp.ts";
import { type Json, stdioCall } from "../modern/support.ts";

const raws: RawServer[] = [];
afterAll(() => {
  for (const raw of raws) raw.kill("SIGKILL");
});

test("2025-11-25: a tool of a toolset that is off names its toolset and how to enable it", async () => {
  const server = await startStdioServer({ args: ["--toolsets", "boj"] });
  try {
    const off = server.client.callTool({ name: "fs_search_by_time", arguments: { timeField: "modified" } });
    await expect(off).rejects.toThrow(
      /"fs_search_by_time" is not enabled here: it belongs to the fs toolset, which is off/,
    );
    await expect(off).rejects.toThrow(/--toolsets/);
    const unknown = server.client.callTool({ name: "boj_list_databasez", arguments: {} });
    await expect(unknown).rejects.toThrow(/Unknown tool: "boj_list_databasez"\. Did you mean "boj_list_databases"\?/);
  } finally {
    await server.close();
  }
});

test("2026-07-28: the same answer on a modern connection", async () => {
  const raw = startRawServer(["--toolsets", "boj"]);
  raws.push(raw);
  await stdioCall(raw, "server/discover");
  const answer = (await stdioCall(raw, "tools/call", { name: "get_problem", arguments: {} })) as Json;
  expect(answer.error.code).toBe(-32602);
  expect(answer.error.message).toContain(
    '"get_problem" is not enabled here: it belongs to the oj toolset, which is off',
  );
});
