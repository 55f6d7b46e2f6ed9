/** Everything below this step is about `/mcp`; any other path gets 404 naming the endpoint. */
import { TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import type { Middleware } from "./middleware.ts";

export const MCP_PATH = "/mcp";

export function mcpEndpointOnly(): Middleware {
  return (exchange, next) => {
    if (exchange.url.pathname === MCP_PATH) return next();
    // The path is the client's own text: quoted and cut, never interpreted.
    const path = JSON.stringify(exchange.url.pathname.slice(0, 200));
    return jsonRpcErrorResponse(404, TRANSPORT_ERROR, `Not Found: ${path}. The MCP endpoint is ${MCP_PATH}.`);
  };
}
