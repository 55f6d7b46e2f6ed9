/**
 * mcpkit through MCP clients that are not the official SDK's own test client: the Vercel AI SDK's
 * (`@ai-sdk/mcp`, its own protocol implementation) and LangChain's (`@langchain/mcp-adapters`),
 * over stdio and Streamable HTTP. Each lists the tools and calls one tool of every toolset: boj
 * (its bundled catalog), oj (against a local fake craboj) and fs (a temporary root).
 */
import { describe, expect, test } from "bun:test";
import { experimental_createMCPClient as createAiSdkClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as AiSdkStdioTransport } from "@ai-sdk/mcp/mcp-stdio";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { EVERY_TOOLSET_CALLS, everyToolsetServer, textOf } from "../support/every-toolset.ts";
import { REPO_ROOT, mcpkitCommand, testEnv } from "../support/mcp.ts";

const fixture = everyToolsetServer("mcpkit-clients-");

describe("Vercel AI SDK MCP client (@ai-sdk/mcp)", () => {
  const transports = {
    stdio: () => {
      const [command, ...args] = mcpkitCommand();
      return new AiSdkStdioTransport({
        command,
        args: [...args, ...fixture.serverArgs()],
        env: testEnv(),
        cwd: REPO_ROOT,
      });
    },
    http: () => ({ type: "http" as const, url: fixture.http.url }),
  };
  for (const [name, transport] of Object.entries(transports)) {
    test(`over ${name}: lists the tools and calls one of each toolset`, async () => {
      const client = await createAiSdkClient({ transport: transport() });
      try {
        const { tools } = await client.listTools();
        const names = tools.map((tool) => tool.name);
        for (const call of EVERY_TOOLSET_CALLS) expect(names).toContain(call.tool);
        for (const call of EVERY_TOOLSET_CALLS) {
          const result = await client.callTool({ name: call.tool, arguments: call.args });
          expect(result.isError ?? false).toBe(false);
          expect(textOf(result)).toContain(call.expect);
        }
      } finally {
        await client.close();
      }
    });
  }
});

describe("LangChain MCP adapters (@langchain/mcp-adapters)", () => {
  const servers = {
    stdio: () => {
      const [command, ...args] = mcpkitCommand();
      return {
        transport: "stdio" as const,
        command,
        args: [...args, ...fixture.serverArgs()],
        env: testEnv(),
        cwd: REPO_ROOT,
      };
    },
    http: () => ({ transport: "http" as const, url: fixture.http.url }),
  };
  for (const [name, server] of Object.entries(servers)) {
    test(`over ${name}: loads the tools as LangChain tools and invokes one of each toolset`, async () => {
      const client = new MultiServerMCPClient({
        mcpServers: { mcpkit: server() },
        throwOnLoadError: true,
        prefixToolNameWithServerName: false,
      });
      try {
        const tools = await client.getTools();
        for (const call of EVERY_TOOLSET_CALLS) {
          const tool = tools.find((candidate) => candidate.name === call.tool);
          expect(tool).toBeDefined();
          const output = await tool!.invoke(call.args);
          expect(JSON.stringify(output)).toContain(call.expect);
        }
      } finally {
        await client.close();
      }
    });
  }
});
