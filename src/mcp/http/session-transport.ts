/**
 * mcpkit's Streamable HTTP transport (MCP 2025-11-25) for one session, in place of the SDK's
 * `WebStandardStreamableHTTPServerTransport`. mcpkit's legacy session engine on top of it
 * (`legacy/session.ts`) does all of MCP (initialize, dispatch, cancellation, progress, logging);
 * this class only carries messages between HTTP exchanges and that engine.
 *
 * How a POST is answered:
 *   - only a notification or a response (the client's answer to `roots/list`): 202, no body;
 *   - a request: `application/json` with its response when that is the first thing the server
 *     sends for it (nearly every call), else an SSE stream (`answer.ts`, shared with 2026-07-28);
 *     a request the client cancels ends as a stream without a response.
 * Messages related to no request go to the session's GET stream, and are dropped when none is
 * open (as the SDK transport does without an event store: we keep none).
 *
 * The body was read and checked by the pipeline (`jsonrpc-body.ts`, which also refuses JSON-RPC
 * batches: MCP 2025-06-18 removed them). The header checks here are the SDK transport's.
 */
import { ErrorCode } from "../../core/tool.ts";
import type { LegacyCaller } from "../legacy/session.ts";
import { UNIDENTIFIED } from "../protocol/admission.ts";
import type { JsonRpcId, Reply } from "../protocol/message.ts";
import { LEGACY_VERSIONS } from "../protocol/versions.ts";
import { isRecord } from "../protocol/params.ts";
import type { IncomingMessage } from "../protocol/message.ts";
import { TRANSPORT_ERROR, jsonRpcErrorResponse, methodNotAllowed, sessionNotFound } from "./jsonrpc-errors.ts";
import { SSE_KEEP_ALIVE_MS, SseStream, sseResponse } from "./sse.ts";
import { InFlight, type InFlightRequest } from "../protocol/in-flight.ts";
import { LazyAbort } from "../protocol/lazy-abort.ts";
import type { RequestRecord, Started } from "../protocol/running.ts";
import { Answer, type AnswerSettings } from "./answer.ts";

/**
 * Who sends a message without a token: nobody in particular. A session id is no identity (any
 * client can open as many sessions as it likes), so the tool calls of every session without a
 * token count together with all other callers without a token (`protocol/admission.ts`).
 */
const UNIDENTIFIED_CALLER: LegacyCaller = Object.freeze({ scopes: undefined, subject: UNIDENTIFIED });

/** What the transport reads of a request's verified token: the scopes each message is handled with. */
export interface TokenScopes {
  readonly scopes: readonly string[];
}

export interface SessionTransportOptions {
  /** Issues the session id at initialize; absent with --stateless (no id is issued or checked). */
  sessionIdGenerator?: () => string;
  /** Called once an initialize is accepted, with the new id, before the server sees the request. */
  onSessionInitialized?: (sessionId: string) => void;
  /** Keep-alive spacing of its streams, and how long an answer may stay silent before it becomes one. */
  keepAliveMs?: number;
}

/**
 * A 2025-era request: its HTTP answer, its entry in the session's record of requests in flight,
 * and what the session engine's work on it sees (`Started`), in one object. Its client leaving
 * takes it off the record and stops its work; shutdown stops the work and answers with an error.
 */
class SessionAnswer extends Answer implements InFlightRequest, Started {
  /** The work's signal, made only if the work asks for it. */
  private readonly abort = new LazyAbort();

  constructor(
    private readonly transport: SessionTransport,
    request: Request,
    readonly id: JsonRpcId,
  ) {
    super(transport, request);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get aborted(): boolean {
    return this.abort.aborted;
  }

  /** The engine is done with it: answered already (through `reply`), or no answer will come. */
  done(): void {
    this.transport.requests.forget(this);
  }

  cancel(reason: string): void {
    this.stop({ ok: false, error: { code: ErrorCode.InternalError, message: reason }, status: 200 });
  }

  /** The server ends it: its work is aborted (so no second answer follows) and `reply` answers it. */
  stop(reply: Reply): void {
    this.abort.abort();
    this.transport.answerWith(this, reply);
  }

  /** The client cancelled it: its work is aborted and its answer ends without a response. */
  withdraw(reason: unknown): void {
    this.transport.requests.forget(this);
    this.abort.abort(reason);
    this.abandon();
  }

  protected override gone(): void {
    if (this.transport.requests.forget(this)) this.abort.abort("the client closed the answer's stream");
  }
}

/**
 * The one record of a session's requests in flight, by JSON-RPC id (idle expiry, shutdown,
 * `--stateless` and the session engine all ask it). A request is added when its POST arrives,
 * before the engine sees it, and leaves once answered, cancelled, or its client gone.
 */
class SessionRequests implements RequestRecord {
  private readonly answers = new InFlight<SessionAnswer, JsonRpcId>();

  constructor(private readonly settled: () => void) {}

  get size(): number {
    return this.answers.size;
  }

  whenIdle(): Promise<void> {
    return this.answers.whenIdle();
  }

  get(id: JsonRpcId): SessionAnswer | undefined {
    return this.answers.get(id);
  }

  list(): SessionAnswer[] {
    return this.answers.list();
  }

  add(answer: SessionAnswer): void {
    this.answers.add(answer, answer.id);
  }

  /**
   * Never: the transport refused a reused id at its POST (with a 400 naming it), before recording
   * the request the engine now sees under that id.
   */
  refusesId(): boolean {
    return false;
  }

  /** The engine starts the request the transport recorded when its POST arrived. */
  start(id: JsonRpcId): Started {
    const answer = this.answers.get(id);
    if (!answer) throw new Error(`No request ${String(id)} was received on this session`);
    return answer;
  }

  /** `notifications/cancelled`: no response follows, so the answer ends without one. */
  cancel(id: unknown, reason?: unknown): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    this.answers.get(id)?.withdraw(reason);
  }

  /** Answers every request still in flight with an error saying `reason` (the session stays open). */
  cancelAll(reason: string): void {
    this.answers.cancelAll(reason);
  }

  /** `answer` leaves the record, if it is still there; false when it already left (a later request may hold its id). */
  forget(answer: SessionAnswer): boolean {
    if (this.answers.get(answer.id) !== answer) return false;
    this.answers.delete(answer.id);
    this.settled();
    return true;
  }
}

export class SessionTransport implements AnswerSettings {
  sessionId: string | undefined;
  onclose?: () => void;
  /** Each message the client POSTs, once the transport has admitted it, with who sent it. */
  onmessage?: (message: Record<string, unknown>, caller: LegacyCaller) => void;
  /**
   * Headers of a JSON answer (set once the session id is known). One `Headers` for all the
   * session's answers: a Response copies it, cheaper than building it from a record each time.
   */
  jsonHeaders: Headers = new Headers({ "content-type": "application/json" });
  /** Requests received and not yet answered: the one record of what is in flight on this session. */
  readonly requests = new SessionRequests(() => this.onsettled?.());
  /** Called whenever a request leaves the record (answered, cancelled, its client gone). */
  onsettled?: () => void;
  /** The GET stream, while one is open. */
  private standalone: SseStream | undefined;
  private initialized = false;
  private closed = false;

  readonly keepAliveMs: number;
  /** A 2025-era answer that became a stream is watched through the stream's own end (`answer.ts`). */
  readonly watchStreams = false;

  constructor(private readonly options: SessionTransportOptions = {}) {
    this.keepAliveMs = options.keepAliveMs ?? SSE_KEEP_ALIVE_MS;
  }

  /** Answers one HTTP request to the MCP endpoint; `message` is the POST's body as the pipeline read it. */
  handleRequest(
    request: Request,
    message: IncomingMessage | undefined,
    authInfo?: TokenScopes,
    owner?: string,
  ): Response | Promise<Response> {
    if (this.closed) return sessionNotFound("it was ended");
    switch (request.method) {
      case "POST":
        return this.post(request, message, authInfo, owner);
      case "GET":
        return this.openStream(request);
      case "DELETE":
        return this.end(request);
      default:
        return methodNotAllowed("GET, POST, DELETE");
    }
  }

  /**
   * A request or notification from the server, as JSON: on the POST stream of the request it
   * relates to, or on the GET stream when it relates to none.
   */
  async send(json: string, related?: JsonRpcId): Promise<void> {
    if (this.closed) throw new Error("Not connected: the session has ended");
    if (related === undefined) {
      this.standalone?.write(json);
      return;
    }
    const answer = this.requests.get(related);
    if (!answer) throw new Error(`No open answer for request ${String(related)}: it was already answered`);
    answer.relay(json);
  }

  /** The answer to request `id`: ends its POST (as JSON, or as the last event of its stream). */
  reply(id: JsonRpcId, reply: Reply): void {
    const answer = this.requests.get(id);
    if (!answer) throw new Error(`No connection established for request ID: ${String(id)}`);
    this.answerWith(answer, reply);
  }

  /** Ends the session: open streams end, and requests still unanswered get a "connection closed" error. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.standalone?.close();
    this.standalone = undefined;
    const closed: Reply = {
      ok: false,
      error: { code: ErrorCode.ServerError, message: "The session ended before this request was answered." },
      status: 200,
    };
    for (const answer of this.requests.list()) answer.stop(closed);
    this.onclose?.();
  }

  /** Request `answer.id` is answered with `reply`: it leaves the record, then its POST ends. */
  answerWith(answer: SessionAnswer, reply: Reply): void {
    this.requests.forget(answer);
    answer.finish(answer.id, reply);
  }

  private post(
    request: Request,
    message: IncomingMessage | undefined,
    authInfo?: TokenScopes,
    owner?: string,
  ): Response | Promise<Response> {
    if (!message) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        "Invalid Request: a POST carries one JSON-RPC message.",
      );
    }
    const refusal = postHeaderRefusal(request, message) ?? this.admit(request, message);
    if (refusal) return refusal;
    const caller: LegacyCaller = authInfo ? { scopes: authInfo.scopes, subject: owner } : UNIDENTIFIED_CALLER;
    if (!message.isRequest) {
      // A notifications/cancelled reaches the record through the engine (`SessionRequests.cancel`).
      this.onmessage?.(message.body, caller);
      return new Response(null, { status: 202 });
    }
    const id = message.id as JsonRpcId;
    if (this.requests.get(id)) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        `Invalid Request: a request with id ${JSON.stringify(id)} is still running on this session; give each request its own id.`,
        { id },
      );
    }
    if (message.method === "ping" && noParams(message.body.params)) return pong(id, this.jsonHeaders);
    const answer = new SessionAnswer(this, request, id);
    this.requests.add(answer);
    this.onmessage?.(message.body, caller);
    return answer.response;
  }

  /**
   * The lifecycle checks of the SDK transport: initialize only on a fresh transport (and then it
   * issues the session id), anything else only after it and with a supported protocol version.
   */
  private admit(request: Request, message: IncomingMessage): Response | undefined {
    if (message.method !== "initialize") return this.notInitialized() ?? protocolVersionRefusal(request, message);
    if (this.initialized && this.sessionId !== undefined) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        "Invalid Request: this session is already initialized. Send initialize without Mcp-Session-Id to open a new session.",
        { id: message.id },
      );
    }
    if (!message.isRequest) {
      // Without an id nothing could carry the session id back: the session would only hold a slot.
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Invalid Request: initialize is a request; give it an "id" so its answer can carry the mcp-session-id.',
      );
    }
    if (!isInitializeRequest(message.body.params)) {
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Invalid Request: initialize needs "params" with "protocolVersion", "capabilities" and "clientInfo".',
        { id: message.id },
      );
    }
    this.initialized = true;
    this.sessionId = this.options.sessionIdGenerator?.();
    if (this.sessionId !== undefined) {
      this.jsonHeaders = new Headers({ "content-type": "application/json", "mcp-session-id": this.sessionId });
      this.options.onSessionInitialized?.(this.sessionId);
    }
    return undefined;
  }

  private notInitialized(): Response | undefined {
    if (this.initialized || this.options.sessionIdGenerator === undefined) return undefined;
    return jsonRpcErrorResponse(
      400,
      TRANSPORT_ERROR,
      "Bad Request: the session is not initialized; send initialize first.",
    );
  }

  /** GET: the session's one stream for messages related to no request. */
  private openStream(request: Request): Response {
    if (!request.headers.get("accept")?.includes("text/event-stream")) {
      return jsonRpcErrorResponse(
        406,
        TRANSPORT_ERROR,
        "Not Acceptable: the GET stream is text/event-stream; send Accept: text/event-stream.",
      );
    }
    const refusal = this.notInitialized() ?? protocolVersionRefusal(request);
    if (refusal) return refusal;
    if (this.standalone?.isOpen) {
      return jsonRpcErrorResponse(
        409,
        TRANSPORT_ERROR,
        "Conflict: this session already has its GET stream open, and only one is allowed per session. Close it before opening another.",
      );
    }
    const stream = new SseStream(() => {
      if (this.standalone === stream) this.standalone = undefined;
    }, this.keepAliveMs);
    this.standalone = stream;
    return sseResponse(stream, this.sessionId);
  }

  /** DELETE: the client ends the session. */
  private async end(request: Request): Promise<Response> {
    const refusal = this.notInitialized() ?? protocolVersionRefusal(request);
    if (refusal) return refusal;
    await this.close();
    return new Response(null, { status: 200 });
  }
}

/**
 * `ping` does no work: the session engine's answer is always `{}`, so it is sent from here with
 * the same bytes, without the trip through the engine's request bookkeeping and promise chain
 * (`bun scripts/bench/http.ts --method ping`). Only a ping without params: anything in them is
 * the engine's to check. test/http/ping.test.ts fails if this stops being taken.
 */
function pong(id: JsonRpcId, headers: Headers | Record<string, string>): Response {
  return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`, { status: 200, headers });
}

function noParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (typeof params !== "object" || params === null) return false;
  for (const _ in params) return false;
  return true;
}

/** The legacy versions a request may name in MCP-Protocol-Version (the SDK transport's list). */
const SUPPORTED: readonly string[] = LEGACY_VERSIONS;

/**
 * What the SDK transport required of an initialize before opening a session (its
 * InitializeRequestSchema): the version as a string, capabilities, and the client's name and version.
 */
function isInitializeRequest(params: unknown): boolean {
  if (!isRecord(params) || typeof params.protocolVersion !== "string" || !isRecord(params.capabilities)) return false;
  const { clientInfo } = params;
  return isRecord(clientInfo) && typeof clientInfo.name === "string" && typeof clientInfo.version === "string";
}

/**
 * Whether Content-Type names `application/json` (parameters such as charset allowed), as the SDK
 * transport decided it: by the media type before any `;`, never a substring of the whole header;
 * a comma in an unquoted parameter tail means joined duplicate headers, which name no one type.
 */
export function isJsonContentType(header: string | null): boolean {
  if (header === "application/json") return true;
  if (!header) return false;
  const semicolon = header.indexOf(";");
  const essence = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (essence !== "application/json") return false;
  const tail = semicolon < 0 ? "" : header.slice(semicolon);
  return !tail.includes(",") || tail.includes('"');
}

/** Accept must name both content types a POST may be answered with; the body must be JSON. */
function postHeaderRefusal(request: Request, message: IncomingMessage): Response | undefined {
  // Accept is a list: a substring test is what the SDK transport does and what clients expect.
  const accept = request.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcErrorResponse(
      406,
      TRANSPORT_ERROR,
      "Not Acceptable: the client must accept both application/json and text/event-stream (Accept: application/json, text/event-stream).",
      { id: message.id },
    );
  }
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return jsonRpcErrorResponse(
      415,
      TRANSPORT_ERROR,
      "Unsupported Media Type: Content-Type must be application/json.",
      {
        id: message.id,
      },
    );
  }
  return undefined;
}

/** A protocol version header must name a supported version; without one the server assumes 2025-03-26. */
function protocolVersionRefusal(request: Request, message?: IncomingMessage): Response | undefined {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null || SUPPORTED.includes(version)) return undefined;
  // The header is the client's own text: quoted and cut, never interpreted.
  return jsonRpcErrorResponse(
    400,
    TRANSPORT_ERROR,
    `Bad Request: Unsupported protocol version ${JSON.stringify(version.slice(0, 40))} in MCP-Protocol-Version; supported versions: ${SUPPORTED.join(", ")}.`,
    { id: message?.id },
  );
}
