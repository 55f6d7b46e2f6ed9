/**
 * What a client sees of anything a request threw, in both eras and on every transport: the one
 * error-to-reply function (`errorReply`). A `ProtocolError` is meant for the client (its code,
 * message and data, which never hold a secret); anything else is a failure of ours, and its message
 * may name a path, a host or worse, so the client gets -32603 and the server log gets the message.
 *
 * The codes themselves are one table, `ErrorCode` in `core/tool.ts` (the tools throw them too),
 * beside the codes 2026-07-28 reserves for itself (`MODERN_ERROR`, `versions.ts`).
 */
import type { Logger } from "../../core/log.ts";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import { CallRefused } from "./admission.ts";
import type { JsonRpcId, Reply } from "./message.ts";

export type ErrorReply = Extract<Reply, { ok: false }>;
export type ErrorBody = ErrorReply["error"];

/** What a client reads for an unexpected failure: no detail of it, only where the details are. */
export const HIDDEN_FAILURE = "Internal error; the server log has details.";

/** The error body for anything request `method` threw; an unexpected error is logged, never shown. */
export function errorBody(error: unknown, method: string, log: Pick<Logger, "error">): ErrorBody {
  if (error instanceof ProtocolError) {
    const body: ErrorBody = { code: error.code, message: error.message };
    if (error.data !== undefined) body.data = error.data;
    return body;
  }
  log.error("request failed", { method, error: error instanceof Error ? error.message : String(error) });
  return { code: ErrorCode.InternalError, message: HIDDEN_FAILURE };
}

/**
 * The reply for anything a request threw, before an era's own twists: a call admission refused as
 * it answers (its HTTP status and Retry-After), anything else `errorBody` with HTTP status 200.
 */
export function errorReply(error: unknown, method: string, log: Pick<Logger, "error">): ErrorReply {
  if (error instanceof CallRefused) return error.reply() as ErrorReply;
  return { ok: false, error: errorBody(error, method, log), status: 200 };
}

/**
 * The refusal of a request under an id still being answered (stdio, both eras): both answers would
 * carry the same id, and the client could not tell them apart.
 */
export function idInUseReply(id: JsonRpcId): ErrorReply {
  const message = `Invalid Request: a request with id ${JSON.stringify(id)} is still running; give each request its own id.`;
  return { ok: false, error: { code: ErrorCode.InvalidRequest, message }, status: 400 };
}
