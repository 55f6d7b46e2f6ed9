/**
 * Error responses of the HTTP layer: JSON-RPC error bodies with the right HTTP status, so a
 * client that reads only the status and one that reads only the body both learn what went wrong.
 */
import { ErrorCode } from "../../core/tool.ts";

export type JsonRpcId = string | number | null;

/** The table's -32000 (`ErrorCode.ServerError`), what the SDK and spec examples use for transport-level refusals. */
export const TRANSPORT_ERROR = ErrorCode.ServerError;
/** Seconds a client should wait before retrying a refusal that is about load, not about the request. */
export const RETRY_AFTER_SECONDS = 5;

export interface ErrorOptions {
  id?: JsonRpcId;
  headers?: Record<string, string>;
  data?: unknown;
}

export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  options: ErrorOptions = {},
): Response {
  const error: Record<string, unknown> = { code, message };
  if (options.data !== undefined) error.data = options.data;
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: options.id ?? null, error }), {
    status,
    headers: { "content-type": "application/json", ...options.headers },
  });
}

export function methodNotAllowed(allow: string, why?: string): Response {
  return jsonRpcErrorResponse(405, TRANSPORT_ERROR, `Method Not Allowed${why ? `: ${why}` : `; use ${allow}.`}`, {
    headers: { allow },
  });
}

/** 404 for a session id that names no live session: the client's cue to initialize again (spec). */
export function sessionNotFound(why: string): Response {
  return jsonRpcErrorResponse(
    404,
    ErrorCode.Unauthorized,
    `Session not found: ${why}. Send initialize without Mcp-Session-Id to start a new one.`,
  );
}
