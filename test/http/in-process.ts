/**
 * mcpkit's HTTP pipeline in process (no socket): the tests that count the server's own work per
 * request build it here, with the state `serveHttp` builds (`createHttpState`) for `--http 127.0.0.1:8080`.
 */
import { silentLogger } from "../../src/core/log.ts";
import type { ToolDefinition } from "../../src/core/tool.ts";
import { readHttpConfig } from "../../src/mcp/http/config.ts";
import { createHostOriginCheck } from "../../src/mcp/http/host-origin.ts";
import { createPipeline } from "../../src/mcp/http/pipeline.ts";
import type { SessionStore } from "../../src/mcp/http/session-store.ts";
import { type HttpState, createHttpState } from "../../src/mcp/http/state.ts";

export const IN_PROCESS_URL = "http://127.0.0.1:8080/mcp";
export const IN_PROCESS_HEADERS = {
  host: "127.0.0.1:8080",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

export type Handle = (request: Request) => Promise<Response>;

/** The state of a server on 127.0.0.1:8080 serving `tools`; `overrides` and `flags` change what a test needs. */
export function inProcessState({
  tools = [],
  flags = {},
  overrides = {},
}: {
  tools?: ToolDefinition[];
  flags?: Record<string, string | boolean>;
  overrides?: Partial<HttpState>;
} = {}): HttpState {
  const config = readHttpConfig({ http: "127.0.0.1:8080", ...flags });
  if (!config) throw new Error("no config");
  const serverOptions = {
    toolsets: tools.length ? [{ name: "t", tools }] : [],
    log: silentLogger,
    toolNames: "portable" as const,
    outputBudget: 100_000,
  };
  return { ...createHttpState(config, serverOptions, { publicUrl: new URL("http://127.0.0.1:8080") }), ...overrides };
}

/** The pipeline of `state`, and its session store (undefined with --stateless). */
export function inProcessPipeline(state: HttpState = inProcessState()): {
  handle: Handle;
  store: SessionStore | undefined;
} {
  const handle = createPipeline(state, createHostOriginCheck({ boundHost: "127.0.0.1", publicUrl: state.publicUrl }));
  return { handle, store: state.sessions };
}

export const inProcessPost = (body: unknown, headers: Record<string, string> = {}): Request =>
  new Request(IN_PROCESS_URL, {
    method: "POST",
    headers: { ...IN_PROCESS_HEADERS, ...headers },
    body: JSON.stringify(body),
  });

/** Opens a 2025-11-25 session (initialize, initialized); the headers every later request of it sends. */
export async function openInProcessSession(
  handle: Handle,
  post: (body: unknown, headers?: Record<string, string>) => Request = inProcessPost,
): Promise<Record<string, string>> {
  const init = await handle(
    post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  );
  const headers = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
  return headers;
}
