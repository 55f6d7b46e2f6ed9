/**
 * Replies as JSON, in both eras. A frozen result (a constant tool result, an unfiltered list, the
 * discovery result) is the same object on every call and cannot change, so its JSON (and, for an
 * HTTP body, its UTF-8 bytes) is computed once and only the envelope around it (`jsonrpc`, `id`)
 * is written per reply: encoding a 12 KB non-ASCII result is most of a call's server time.
 */
import { ErrorCode } from "../../core/tool.ts";
import { frozenResultBytes, frozenResultJson, responseBytes } from "./frozen-json.ts";
import type { JsonRpcId, Reply } from "./message.ts";

/**
 * One JSON-RPC response; a result (or an error's data) that cannot be serialized still answers its
 * request, with an error saying so.
 */
export function replyJson(id: JsonRpcId | null, reply: Reply): string {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},`;
  try {
    if (!reply.ok) return `${head}"error":${JSON.stringify(reply.error)}}`;
    return `${head}"result":${frozenResultJson(reply.result) ?? JSON.stringify(reply.result)}}`;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const message = `Internal error: the response could not be serialized (${why}).`;
    return `${head}"error":${JSON.stringify({ code: ErrorCode.InternalError, message })}}`;
  }
}

/**
 * The reply as an HTTP body: a frozen result's bytes are encoded once (frozen-json.ts),
 * and come as a view that the next reply of the same result overwrites: copy it at once, as
 * `new Response(body)` does.
 */
export function replyBody(id: JsonRpcId | null, reply: Reply): string | Uint8Array {
  const frozen = reply.ok ? frozenResultBytes(reply.result) : undefined;
  return frozen ? responseBytes(id, frozen) : replyJson(id, reply);
}

export function notificationJson(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}
