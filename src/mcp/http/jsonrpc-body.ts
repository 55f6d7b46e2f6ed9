/**
 * Reading the JSON-RPC body of a POST: a capped read (413), parse errors (-32700) told apart
 * from invalid requests (-32600), and the message as the later steps need it.
 *
 * We parse the body once, here (the session transport takes the parsed message), because routing
 * needs it first: an `initialize` opens a session, and a `tools/call` is checked against the
 * token's scopes before any tool runs.
 */
import { readAtMost } from "../../core/read-at-most.ts";
import { ErrorCode } from "../../core/tool.ts";
import { type IncomingMessage, checkJsonRpcMessage } from "../protocol/message.ts";
import { jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import type { Middleware } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export type BodyReadResult = { ok: true; message: IncomingMessage } | { ok: false; response: Response };

const tooLarge = (maxBytes: number): BodyReadResult => ({
  ok: false,
  response: jsonRpcErrorResponse(
    413,
    ErrorCode.InvalidRequest,
    `Payload Too Large: request bodies are limited to ${maxBytes} bytes (--max-body-bytes); send a smaller message.`,
  ),
});

const notJson = (): BodyReadResult => ({
  ok: false,
  response: jsonRpcErrorResponse(
    400,
    ErrorCode.ParseError,
    "Parse error: the request body is not valid JSON. Send one JSON-RPC 2.0 message as a JSON object.",
  ),
});

const TOO_LARGE = Symbol("too large");
const NOT_JSON = Symbol("not JSON");

/**
 * The body as JSON, read at most `maxBytes` of it: the runtime's parse when the length is
 * declared (it rejects with a SyntaxError exactly where JSON.parse would), else a capped read.
 * Not async: the usual body is the runtime's own promise, awaited once by the step.
 */
function readJson(request: Request, maxBytes: number): Promise<unknown> | typeof TOO_LARGE {
  const length = request.headers.get("content-length");
  const declared = Number(length);
  if (Number.isFinite(declared) && declared > maxBytes) return TOO_LARGE;
  // The length is known and within the cap: read and parsed in one go (cheaper than text() then JSON.parse).
  if (Number.isFinite(declared) && length !== null) return request.json();
  return readUndeclared(request, maxBytes);
}

async function readUndeclared(request: Request, maxBytes: number): Promise<unknown> {
  const { bytes, overflowed } = await readAtMost(request.body, maxBytes);
  if (overflowed) return TOO_LARGE;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return NOT_JSON;
  }
}

/** What was read, as the later steps need it: the message, or the answer to send instead. */
function checked(parsed: unknown, maxBytes: number): BodyReadResult {
  if (parsed === TOO_LARGE) return tooLarge(maxBytes);
  if (parsed === NOT_JSON) return notJson();
  const message = checkJsonRpcMessage(parsed);
  if (message.ok) return message;
  return {
    ok: false,
    response: jsonRpcErrorResponse(400, ErrorCode.InvalidRequest, `Invalid Request: ${message.why}`, {
      id: message.id,
    }),
  };
}

/** A body the runtime could not parse is -32700; any other failure of the read is not the client's. */
function unparsed(error: unknown): typeof NOT_JSON {
  if (error instanceof SyntaxError) return NOT_JSON;
  throw error;
}

/** Reads at most `maxBytes`; answers 413 beyond, 400/-32700 for bad JSON, 400/-32600 for non-JSON-RPC. */
export async function readJsonRpcBody(request: Request, maxBytes: number): Promise<BodyReadResult> {
  let parsed: unknown;
  try {
    parsed = await readJson(request, maxBytes);
  } catch (error) {
    parsed = unparsed(error);
  }
  return checked(parsed, maxBytes);
}

/**
 * Pipeline step: a POST's body is read and checked here; the message rides on the exchange. The
 * read is awaited here, not through readJsonRpcBody: two async functions fewer on every POST.
 */
export function jsonRpcBody(state: HttpState): Middleware {
  const maxBytes = state.config.maxBodyBytes;
  return async (exchange, next) => {
    if (exchange.request.method !== "POST") return next();
    let parsed: unknown;
    try {
      parsed = await readJson(exchange.request, maxBytes);
    } catch (error) {
      parsed = unparsed(error);
    }
    const read = checked(parsed, maxBytes);
    if (!read.ok) return read.response;
    exchange.message = read.message;
    // Awaited rather than returned: an async function returning a promise adopts it through two
    // more microtask jobs, where awaiting a native promise costs one.
    const answer = next();
    return answer instanceof Promise ? await answer : answer;
  };
}
