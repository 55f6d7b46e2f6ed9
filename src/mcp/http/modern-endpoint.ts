/**
 * The modern era (MCP 2026-07-28) on `/mcp`, decided per request: a POST whose body carries the
 * per-request `_meta` envelope, or whose MCP-Protocol-Version header names a modern revision, or
 * that calls `server/discover` or `subscriptions/listen`, is served here, statelessly; everything
 * else (initialize, Mcp-Session-Id, the GET stream) goes on to the legacy steps as before.
 *
 *   `modernRequests(state)`  pipeline step after the body is read: classifies the request and
 *                            checks the envelope and the request headers (400 -32602, -32020,
 *                            -32022), so that the steps after it (tool scope) see only sound
 *                            modern requests;
 *   `answerModern(state)`    the last step for them: JSON, or an SSE stream when progress or log
 *                            messages come first or the answer takes long; the client closing
 *                            the connection cancels the request.
 */
import { shownValue } from "../../core/text.ts";
import { ErrorCode } from "../../core/tool.ts";
import { InFlight, type InFlightRequest } from "../protocol/in-flight.ts";
import { type DispatcherOptions, dispatcherFor } from "../protocol/dispatcher.ts";
import { RETRY_AFTER_SECONDS, TRANSPORT_ERROR, jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import type { Exchange, Middleware, Next } from "./middleware.ts";
import { SseStream, sseResponse } from "./sse.ts";
import { Answer, type AnswerSettings, jsonAnswer } from "./answer.ts";
import { UNIDENTIFIED } from "../protocol/admission.ts";
import { LazyAbort } from "../protocol/lazy-abort.ts";
import { isRecord } from "../protocol/params.ts";
import type { Caller } from "../protocol/caller.ts";
import { MODERN_ERROR, isModernVersion, META } from "../protocol/versions.ts";
import {
  type Envelope,
  type JsonRpcId,
  type ModernServer,
  ModernError,
  type Reply,
  type RequestIo,
  answer,
  checkVersion,
  createModernServer,
  failure,
  readEnvelope,
  unansweredReply,
} from "../modern/core.ts";
import { acknowledgement, closingResult, honouredFilter } from "../modern/subscriptions.ts";
import { notificationJson } from "../protocol/wire.ts";
import { observeSubscriptions, requestSpan } from "../../core/telemetry/index.ts";

/** What the modern steps share: the era's server and what is open on it. */
export interface ModernHttpState {
  readonly server: ModernServer;
  /** Modern requests being answered (shutdown waits for them, then cancels the rest). */
  readonly inFlight: InFlight;
  /** Open `subscriptions/listen` streams (shutdown ends them at once, gracefully). */
  readonly subscriptions: InFlight;
  /** What every answer of the era shares (`answer.ts`). */
  readonly answers: AnswerSettings;
  /** Open subscriptions in all and per token owner, bounded like legacy sessions (--max-sessions…). */
  readonly listenLimits: ListenLimits;
  readonly listensByOwner: Map<string, number>;
}

export interface ListenLimits {
  max: number;
  perOwner: number;
}

export function modernHttpState(
  options: DispatcherOptions,
  keepAliveMs: number,
  listenLimits: ListenLimits,
): ModernHttpState {
  const subscriptions = new InFlight();
  observeSubscriptions(subscriptions);
  return {
    server: createModernServer({ dispatcher: dispatcherFor(options), log: options.log, transport: "http" }),
    inFlight: new InFlight(),
    subscriptions,
    // A stream is watched through request.signal too: the client leaving cancels the request.
    answers: { keepAliveMs, jsonHeaders: JSON_HEADERS, sessionId: undefined, watchStreams: true },
    listenLimits,
    listensByOwner: new Map(),
  };
}

/** Every request without a token: nobody in particular, counted together for the call limits. */
const UNIDENTIFIED_CALLER: Caller = Object.freeze({ scopes: undefined, principal: undefined, subject: UNIDENTIFIED });

/** A Response copies its Headers: one instance serves every answer, cheaper than a record each time. */
const JSON_HEADERS = new Headers({ "content-type": "application/json" });

/** Methods whose target the Mcp-Name header mirrors, and the params field it mirrors. */
const NAME_FIELD: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** Whether this exchange belongs to the modern era (see the file comment). */
export function isModernExchange({ request, message }: Exchange): boolean {
  if (isModernVersion(request.headers.get("mcp-protocol-version"))) return true;
  if (!message) return false;
  const params = message.body.params;
  const meta = isRecord(params) ? params._meta : undefined;
  if (isRecord(meta) && META.protocolVersion in meta) return true;
  return message.method === "server/discover" || message.method === "subscriptions/listen";
}

export function modernRequests(): Middleware {
  return (exchange, next) => {
    if (!isModernExchange(exchange)) return next();
    const { request, message } = exchange;
    if (request.method !== "POST" || !message) {
      return jsonRpcErrorResponse(
        405,
        ErrorCode.InvalidRequest,
        "Method Not Allowed: 2026-07-28 has no GET stream and no sessions to end; POST requests, and use subscriptions/listen for change notifications.",
        { headers: { allow: "POST" } },
      );
    }
    if (!message.isRequest) {
      if (message.method !== undefined) return new Response(null, { status: 202 });
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        "Invalid Request: a 2026-07-28 client sends no responses; the server asks for input with input_required instead.",
      );
    }
    const id = message.id as JsonRpcId;
    try {
      const envelope = readEnvelope(message.body.params);
      const mismatch = headerMismatch(request, message.body, envelope);
      if (mismatch) throw new ModernError(MODERN_ERROR.HeaderMismatch, `Header mismatch: ${mismatch}.`, 400);
      checkVersion(envelope);
      exchange.modern = envelope;
    } catch (error) {
      if (!(error instanceof ModernError)) throw error;
      return errorResponse(id, error);
    }
    return next();
  };
}

function errorResponse(id: JsonRpcId | null, error: ModernError): Response {
  return jsonRpcErrorResponse(error.status, error.code, error.message, { id, data: error.data });
}

/** A header value as the client meant it: the `=?base64?…?=` sentinel decoded (2026-07-28 "Value Encoding"). */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith("=?")) return value;
  const match = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!match) return value.startsWith("=?base64?") ? undefined : value;
  return Buffer.from(match[1], "base64").toString("utf8");
}

const quote = (value: unknown) => shownValue(value ?? null, 100);

/**
 * Why the request's headers do not mirror its body, or undefined when they do. The headers are
 * what load balancers and gateways route on, so a request they would misroute is refused.
 */
function headerMismatch(request: Request, body: Record<string, unknown>, envelope: Envelope): string | undefined {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null) return "the MCP-Protocol-Version header is missing; send the version of params._meta there too";
  if (version !== envelope.version) {
    return `MCP-Protocol-Version header ${quote(version)} does not match ${META.protocolVersion} ${quote(envelope.version)} in params._meta`;
  }
  const method = request.headers.get("mcp-method");
  if (method === null) return `the Mcp-Method header is missing; send Mcp-Method: ${String(body.method).slice(0, 100)}`;
  if (method !== body.method)
    return `Mcp-Method header ${quote(method)} does not match the body's method ${quote(body.method)}`;
  const field = NAME_FIELD[method];
  if (!field) return undefined;
  const params = body.params as Record<string, unknown>;
  // A body without the field, or with one that is not a string, is malformed before it is
  // mismatched: the method's own -32602 then says what to send, where "the header is missing" or
  // "does not match" would send a client to fix the wrong half.
  if (typeof params[field] !== "string") return undefined;
  const raw = request.headers.get("mcp-name");
  if (raw === null) return `the Mcp-Name header is missing; ${method} sends params.${field} there too`;
  const name = decodeHeaderValue(raw);
  if (name === undefined) return "the Mcp-Name header is not valid =?base64?…?= encoding";
  if (name !== params[field])
    return `Mcp-Name header ${quote(name)} does not match params.${field} ${quote(params[field])}`;
  return undefined;
}

/** The last step for a modern request: answers it, or opens its subscription. */
export function answerModern(state: ModernHttpState): Middleware {
  return (exchange, next: Next) => {
    const envelope = exchange.modern;
    const message = exchange.message;
    if (!envelope || !message) return next();
    const id = message.id as JsonRpcId;
    const params = message.body.params as Record<string, unknown>;
    const caller: Caller = exchange.caller
      ? { scopes: exchange.caller.authInfo.scopes, principal: exchange.caller.owner }
      : UNIDENTIFIED_CALLER;
    if (message.method === "subscriptions/listen") return listen(state, id, params, caller.principal);
    return respond(state, exchange.request, { id, method: message.method as string, params, envelope, caller });
  };
}

interface ModernCall {
  id: JsonRpcId;
  method: string;
  params: Record<string, unknown>;
  envelope: Envelope;
  caller: Caller;
}

function respond(state: ModernHttpState, request: Request, call: ModernCall): Response | Promise<Response> {
  const span = requestSpan(call.method, call.params, call.id, call.envelope.version);
  // A method nothing answers (a 2025 client's ping, say) is refused at once, with the bytes the
  // answer below would send, and nothing to track in flight (`bun scripts/bench/http.ts --era
  // modern --method ping`; test/modern/unanswered.test.ts fails if this stops being taken).
  // With telemetry on, its span records it the usual way.
  const unanswered = span ? undefined : unansweredReply(state.server, call.method);
  if (unanswered) return jsonAnswer(call.id, unanswered, JSON_HEADERS);
  const reply = new ModernAnswer(state, request, call);
  // No closure while telemetry is off (span undefined): this runs for every request.
  const work = span
    ? span.run(() => answer(state.server, call.method, call.params, call.envelope, reply))
    : answer(state.server, call.method, call.params, call.envelope, reply);
  void work.then((outcome) => {
    span?.end(outcome);
    reply.settle(outcome);
  });
  return reply.response;
}

/**
 * One 2026-07-28 request's answer, and what its work sees of it (`RequestIo`): one object per
 * request, which is also its entry among the requests in flight, with no closures of its own.
 * The client leaving cancels the work; shutdown answers it 503.
 */
class ModernAnswer extends Answer implements InFlightRequest, RequestIo {
  /** The work's signal, made only if the work asks for it. */
  private readonly abort = new LazyAbort();

  constructor(
    private readonly state: ModernHttpState,
    request: Request,
    private readonly call: ModernCall,
  ) {
    super(state.answers, request);
    state.inFlight.add(this);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get caller(): Caller {
    return this.call.caller;
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.relay(notificationJson(method, params));
  }

  /** The work's outcome: the answer. */
  settle(outcome: Reply): void {
    // Out of the count first: an answer that cannot be written must not hold shutdown for its grace period.
    this.state.inFlight.delete(this);
    this.finish(this.call.id, outcome);
  }

  cancel(reason: string): void {
    this.abort.abort();
    const { server } = this.state;
    this.settle(failure(server, this.call.method, new ModernError(ErrorCode.InternalError, reason, 503)));
  }

  protected override gone(): void {
    this.abort.abort();
    this.state.inFlight.delete(this);
  }
}

/** `subscriptions/listen`: the acknowledgement first, then keep-alives until either side ends it. */
function listen(
  state: ModernHttpState,
  id: JsonRpcId,
  params: Record<string, unknown>,
  owner: string | undefined,
): Response {
  const refusal = listenRefusal(state, id, owner);
  if (refusal) return refusal;
  let honoured: ReturnType<typeof honouredFilter>;
  try {
    honoured = honouredFilter(state.server.dispatcher, params);
  } catch (error) {
    if (error instanceof ModernError) return errorResponse(id, error);
    throw error;
  }
  const stream = new SseStream(() => untrack(), state.answers.keepAliveMs);
  stream.write(JSON.stringify(acknowledgement(id, honoured)));
  if (owner !== undefined) state.listensByOwner.set(owner, (state.listensByOwner.get(owner) ?? 0) + 1);
  const subscription = {
    cancel: () => {
      stream.write(JSON.stringify(closingResult(id)));
      stream.close();
      untrack();
    },
  };
  const untrack = () => {
    state.subscriptions.delete(subscription);
    if (owner === undefined) return;
    const left = (state.listensByOwner.get(owner) ?? 1) - 1;
    if (left > 0) state.listensByOwner.set(owner, left);
    else state.listensByOwner.delete(owner);
  };
  state.subscriptions.add(subscription);
  return sseResponse(stream, undefined);
}

/**
 * Each open subscription holds a stream and a timer until its client leaves: bounded in all
 * (503) and per token owner (429), as legacy sessions are by --max-sessions and
 * --max-sessions-per-subject, so no client can hold the server's memory open.
 */
function listenRefusal(state: ModernHttpState, id: JsonRpcId, owner: string | undefined): Response | undefined {
  const { max, perOwner } = state.listenLimits;
  const headers = { "retry-after": String(RETRY_AFTER_SECONDS) };
  if (owner !== undefined && (state.listensByOwner.get(owner) ?? 0) >= perOwner) {
    return jsonRpcErrorResponse(
      429,
      TRANSPORT_ERROR,
      `Too Many Requests: this user already holds ${perOwner} open subscriptions (--max-sessions-per-subject); close one, or retry after ${RETRY_AFTER_SECONDS} seconds.`,
      { id, headers },
    );
  }
  if (state.subscriptions.size >= max) {
    return jsonRpcErrorResponse(
      503,
      TRANSPORT_ERROR,
      `Service Unavailable: this server already holds its maximum of ${max} open subscriptions (--max-sessions); retry after ${RETRY_AFTER_SECONDS} seconds.`,
      { id, headers },
    );
  }
  return undefined;
}
