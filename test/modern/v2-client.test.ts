/**
 * mcpkit through the official v2 client (`@modelcontextprotocol/client` 2.4, its own protocol
 * implementation of both eras), as an independent client: pinned to 2026-07-28, in `auto` mode
 * (it probes with server/discover and stays modern) and in legacy mode (initialize), over
 * Streamable HTTP and stdio. Each lists the tools and calls one tool of every toolset, and the
 * era the client reports is the one asked for.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { EVERY_TOOLSET_CALLS, everyToolsetServer, textOf } from "../support/every-toolset.ts";
import { REPO_ROOT, mcpkitCommand, testEnv } from "../support/mcp.ts";

const fixture = everyToolsetServer("mcpkit-v2-client-");

type Mode = "legacy" | "auto" | { pin: "2026-07-28" };
const modes: [string, Mode, "modern" | "legacy"][] = [
  ["pinned to 2026-07-28", { pin: "2026-07-28" }, "modern"],
  ["auto", "auto", "modern"],
  ["legacy", "legacy", "legacy"],
];

const transports = {
  http: () => new StreamableHTTPClientTransport(new URL(fixture.http.url)),
  stdio: (args: string[] = fixture.serverArgs()) => {
    const [command, ...rest] = mcpkitCommand();
    return new StdioClientTransport({
      command,
      args: [...rest, ...args],
      env: testEnv(),
      cwd: REPO_ROOT,
      stderr: "pipe",
    });
  },
};

function client(mode: Mode, capabilities: Record<string, unknown> = {}): Client {
  return new Client(
    { name: "mcpkit-v2-tests", version: "1.0.0" },
    { versionNegotiation: { mode }, capabilities: capabilities as never },
  );
}

for (const [transportName, transport] of Object.entries(transports)) {
  describe(`the v2 client over ${transportName}`, () => {
    for (const [name, mode, era] of modes) {
      test(`${name}: era ${era}; lists the tools and calls one of each toolset`, async () => {
        const v2 = client(mode);
        await v2.connect(transport());
        try {
          expect(v2.getProtocolEra()).toBe(era);
          const { tools } = await v2.listTools();
          const names = tools.map((tool) => tool.name);
          for (const call of EVERY_TOOLSET_CALLS) expect(names).toContain(call.tool);
          for (const call of EVERY_TOOLSET_CALLS) {
            const result = await v2.callTool({ name: call.tool, arguments: call.args });
            expect(result.isError ?? false).toBe(false);
            expect(textOf(result)).toContain(call.expect);
          }
        } finally {
          await v2.close();
        }
      });
    }
  });
}

describe("the v2 client's roots in the 2026-07-28 era (stdio, no --root)", () => {
  test("fs_search_by_time asks for the roots with input_required; the client answers from its roots/list handler and retries", async () => {
    const project = join(fixture.root, "project");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "todo.md"), "todo");
    const v2 = client({ pin: "2026-07-28" }, { roots: {} });
    let asked = 0;
    v2.setRequestHandler("roots/list", async () => {
      asked++;
      return { roots: [{ uri: pathToFileURL(project).href, name: "project" }] };
    });
    await v2.connect(transports.stdio(["--toolsets", "fs"]));
    try {
      const result = await v2.callTool({ name: "fs_search_by_time", arguments: { timeField: "modified" } });
      expect(result.isError ?? false).toBe(false);
      expect(textOf(result)).toContain("todo.md");
      expect(asked).toBe(1);
    } finally {
      await v2.close();
    }
  });
});
