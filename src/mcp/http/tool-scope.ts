/**
 * With --auth: a `tools/call` for a tool whose scope the token lacks gets 403 `insufficient_scope`
 * before any tool runs (MCP 2025-11-25 step-up). Unknown tools pass: the server answers them with
 * -32602 like any other mistake.
 */
import { isScopeGranted, toolScope as scopeOfTool } from "../../core/scopes.ts";
import { type Middleware, passThrough } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function toolScope(state: HttpState): Middleware {
  const server = state.resourceServer;
  if (!server) return passThrough;
  const { toolsets } = state.serverOptions;
  return (exchange, next) => {
    const { message, caller } = exchange;
    if (!caller || message?.method !== "tools/call") return next();
    const name = (message.body.params as { name?: unknown } | undefined)?.name;
    const needed = typeof name === "string" ? scopeOfTool(toolsets, name) : undefined;
    if (needed === undefined || isScopeGranted(caller.authInfo.scopes, needed)) return next();
    state.log.info("tool call refused: insufficient scope", { tool: name, needed });
    return server.insufficientScope(needed, String(name), message.id ?? null);
  };
}
