/**
 * `get_platform_status` without a token (issue 35): configuration mcpkit lacks is the command's to
 * change, so `mcpkit call` exits 2 (usage), not 1 ("may work later"), and the message says how to
 * give the token in words that fit a one-shot call and a server alike (it said "Restart mcpkit",
 * which means nothing to a call). No request reaches the craboj server (docs/contracts/oj.md §4.5).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { runCli, startStdioServer } from "../support/mcp.ts";

const fake = startFakeCraboj();
afterAll(() => fake.stop());

const HOW = /Run mcpkit again with --oj-token TOKEN, or with OJ_TOKEN=TOKEN in its environment/;

describe("get_platform_status without --oj-token", () => {
  test("mcpkit call exits 2 and names the flag and the variable to give; nothing is sent", async () => {
    const before = fake.requests.length;
    const [text, json] = await Promise.all([
      runCli(["call", "get_platform_status", "--text", "--oj-base-url", fake.url]),
      runCli(["call", "get_platform_status", "--oj-base-url", fake.url]),
    ]);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^Authentication required: --oj-token \(or OJ_TOKEN\) must be provided/);
    expect(text.stdout).toMatch(HOW);
    expect(text.stdout).not.toContain("Restart");
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true });
    expect(fake.requests.length).toBe(before);
  });

  test("a server answers the same isError result", async () => {
    const server = await startStdioServer({ args: ["--toolsets", "oj", "--oj-base-url", fake.url] });
    try {
      const result = (await server.client.callTool({ name: "get_platform_status", arguments: {} })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(HOW);
    } finally {
      await server.close();
    }
  });

  test("with the token it answers, exit 0", async () => {
    const { code, stdout } = await runCli([
      "call",
      "get_platform_status",
      "--oj-base-url",
      fake.url,
      "--oj-token",
      "a-token-for-the-fake-0123456789",
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).isError).toBeUndefined();
  });
});
