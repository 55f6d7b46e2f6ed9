/** `mcpkit tools` and `mcpkit call`: the toolsets without a protocol, for scripts and debugging. */
import { invokeTool } from "../core/invoke.ts";
import type { Logger } from "../core/log.ts";
import { ConfigError } from "../core/options.ts";
import { ProtocolError, type ToolContext, type Toolset } from "../core/tool.ts";

export const EXIT_OK = 0;
export const EXIT_TOOL_ERROR = 1;
export const EXIT_USAGE = 2;

export function listTools(toolsets: readonly Toolset[]): string {
  const tools = toolsets.flatMap((toolset) => toolset.tools);
  const width = Math.max(...tools.map((tool) => tool.name.length));
  return tools.map((tool) => `${tool.name.padEnd(width)}  ${tool.title}\n`).join("");
}

export interface CallOutcome {
  code: number;
  stdout: string;
}

export async function callTool(
  toolsets: readonly Toolset[],
  name: string | undefined,
  json: string | undefined,
  log: Logger,
  signal: AbortSignal,
): Promise<CallOutcome> {
  if (!name) throw new ConfigError("usage: mcpkit call TOOL [JSON]; run 'mcpkit tools' for the tool names");
  const toolset = toolsets.find((candidate) => candidate.tools.some((tool) => tool.name === name));
  const tool = toolset?.tools.find((candidate) => candidate.name === name);
  if (!toolset || !tool) throw new ConfigError(`unknown tool "${name}"; run 'mcpkit tools' to list the enabled tools`);

  let args: unknown = {};
  if (json !== undefined) {
    try {
      args = JSON.parse(json === "-" ? await Bun.stdin.text() : json);
    } catch (error) {
      throw new ConfigError(`the JSON arguments for ${name} do not parse (${(error as Error).message}); pass one JSON object, e.g. '{"key":"value"}'`);
    }
  }
  const context: ToolContext = {
    signal,
    log,
    reportProgress: ({ progress, total, message }) =>
      log.debug("progress", { progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) }),
    clientRoots: async () => undefined,
  };
  try {
    const result = await invokeTool(toolset, tool, args, context);
    return { code: result.isError ? EXIT_TOOL_ERROR : EXIT_OK, stdout: `${JSON.stringify(result, null, 2)}\n` };
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    log.error(error.message);
    const body = { error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) } };
    return { code: EXIT_USAGE, stdout: `${JSON.stringify(body, null, 2)}\n` };
  }
}
