/**
 * The one check of an incoming JSON-RPC 2.0 message, for stdio and HTTP alike (both eras): a
 * request, a notification or a response as MCP allows them, or why not, in words a client's
 * author can act on. JSON-RPC itself is parsed by the caller, who answers -32700 for bad JSON.
 */
import { isRecord } from "./params.ts";

/** A request's id (MCP: a string or an integer). */
export type JsonRpcId = string | number;

/** What a request is answered with, in either era, before the transport frames it. */
export type Reply =
  | { ok: true; result: Record<string, unknown> }
  | {
      ok: false;
      error: { code: number; message: string; data?: unknown };
      status: number;
      /** Seconds for HTTP's Retry-After (a refusal about load, `admission.ts`). */
      retryAfter?: number;
    };

/** One JSON-RPC 2.0 message, shape-checked. */
export type JsonRpcMessage = Record<string, unknown> & { jsonrpc: "2.0" };

/** A message as routing needs it. */
export interface IncomingMessage {
  body: Record<string, unknown>;
  /** Present for requests and notifications; absent for responses. */
  method?: string;
  /** Present for requests. */
  id?: JsonRpcId;
  isRequest: boolean;
}

export type CheckedMessage =
  | { ok: true; message: IncomingMessage }
  /** `id` is the message's id when it has a usable one, so the error can answer it. */
  | { ok: false; why: string; id: string | number | null };

/**
 * MCP: "the ID MUST be a string or integer", and the answer carries the same id. An integer past
 * 2^53 has already been rounded by the JSON parser (12345678901234567890 reads as …567000), so it
 * could be neither echoed as sent nor told from its neighbours: only safe integers are ids.
 */
const isId = (id: unknown): id is string | number =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

export function checkJsonRpcMessage(parsed: unknown): CheckedMessage {
  if (Array.isArray(parsed)) {
    return {
      ok: false,
      why: "JSON-RPC batches are not supported (MCP 2025-06-18 and later); send one message at a time.",
      id: null,
    };
  }
  if (!isRecord(parsed)) return { ok: false, why: "expected a JSON-RPC 2.0 message object.", id: null };
  const echoId = isId(parsed.id) ? parsed.id : null;
  const invalid = (why: string, id = echoId) => ({ ok: false as const, why, id });
  if (parsed.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0".');
  const body = parsed as JsonRpcMessage;
  if ("method" in body) {
    if (typeof body.method !== "string" || body.method.length === 0)
      return invalid('"method" must be a non-empty string.');
    if (body.params !== undefined && !isRecord(body.params)) return invalid('"params" must be an object.');
    if (!("id" in body)) return { ok: true, message: { body, method: body.method, isRequest: false } };
    if (!isId(body.id))
      return invalid('"id" must be a string or an integer within ±(2^53 − 1); send larger ids as strings.', null);
    return { ok: true, message: { body, method: body.method, id: body.id, isRequest: true } };
  }
  // A response to one of the server's requests (roots/list, …).
  if (!("result" in body) && !("error" in body)) {
    return invalid('expected "method" (a request or notification) or "result"/"error" (a response).');
  }
  if (!isId(body.id)) return invalid('a response needs the "id" of the request it answers.', null);
  if ("result" in body) {
    if ("error" in body) return invalid('a response carries "result" or "error", not both.');
    if (!isRecord(body.result)) return invalid('"result" must be an object.');
    return { ok: true, message: { body, isRequest: false } };
  }
  const error = body.error;
  if (!isRecord(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
    return invalid('"error" must be an object with an integer "code" and a string "message".');
  }
  return { ok: true, message: { body, isRequest: false } };
}
