/** The chart page as an MCP Apps host gets it: resources/read of ui://mcpkit/boj-chart from a real process. */
import { startStdioServer } from "../support/mcp.ts";

export async function readChartPage(bojUrl: string): Promise<string> {
  const server = await startStdioServer({ args: ["--toolsets", "boj", "--boj-base-url", bojUrl], rendersApps: true });
  try {
    const read = await server.client.readResource({ uri: "ui://mcpkit/boj-chart" });
    return (read.contents[0] as { text: string }).text;
  } finally {
    await server.close();
  }
}
