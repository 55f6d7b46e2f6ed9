/** The last step: a path that no route answered gets 404 naming the MCP endpoint. */
import { TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import type { Middleware } from "./middleware.ts";

export const MCP_PATH = "/mcp";

export function notFound(): Middleware {
  return (exchange) => {
    // The path is the client's own text: quoted and cut, never interpreted.
    const path = JSON.stringify(exchange.pathname.slice(0, 200));
    return jsonRpcErrorResponse(404, TRANSPORT_ERROR, `Not Found: ${path}. The MCP endpoint is ${MCP_PATH}.`);
  };
}
