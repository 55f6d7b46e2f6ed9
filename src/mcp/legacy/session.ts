/**
 * The legacy era's session engine (MCP 2025-11-25 and earlier) on mcpkit's protocol core, without
 * the MCP SDK: evaluating the SDK's modules was half of a stdio server's start-up. It answers what
 * the SDK's `Server` answered itself (`initialize`, `ping`, `logging/setLevel`), keeps what a
 * session remembers (the client's capabilities, its log level, its roots), asks the client for
 * `roots/list` when a tool needs them, and routes every other method to the dispatcher, as the
 * SDK's Server/Protocol did: cancellation answers nothing; unlike it, an id still in use is refused; errors
 * are answered as in the modern era (`protocol/errors.ts`): a failure of ours never shows its message. It is transport-neutral: messages come in through
 * `deliver`, go out through the `send` callback, which is told the request each message relates
 * to (HTTP puts it on that request's POST stream); stdio (`stdio/legacy.ts`) and HTTP sessions
 * and `--stateless` requests (`http/legacy-endpoint.ts`) use it.
 */
import { shortened, shownValue } from "../../core/text.ts";
import type { Logger } from "../../core/log.ts";
import { type SessionRecord, requestSpan, sessionOpened } from "../../core/telemetry/index.ts";
import { CLIENT_LOG_LEVELS, type ClientLogLevel, ErrorCode, ProtocolError, isClientLogLevel } from "../../core/tool.ts";
import { NAME, VERSION } from "../../version.ts";
import { ANONYMOUS, type Caller } from "../protocol/caller.ts";
import {
  type Dispatcher,
  type DispatcherOptions,
  type RequestContext,
  dispatcherFor,
  localRootPaths,
} from "../protocol/dispatcher.ts";
import { errorReply, idInUseReply } from "../protocol/errors.ts";
import { isRecord } from "../protocol/params.ts";
import type { JsonRpcId, Reply } from "../protocol/message.ts";
import { type RequestRecord, RunningRequests, type Started, drain } from "../protocol/running.ts";
import { LATEST_LEGACY_VERSION, isLegacyVersion } from "../protocol/versions.ts";
import { replyJson } from "../protocol/wire.ts";
import { OutgoingRequests, type Timers } from "./outgoing.ts";

/** How long a `roots/list` the server sends may wait for the client's answer (what mcpkit asked of the SDK's Server). */
export const ROOTS_TIMEOUT_MS = 10_000;

export interface LegacyIo {
  /**
   * Writes one message, already JSON, to the client. `related` is the request being answered when
   * the message was sent (a progress or log notification, a `roots/list` asked while answering it).
   */
  send(json: string, related?: JsonRpcId): Promise<void>;
  /** Hands over a request's answer (at once, or by the promise it returns); without it the answer is sent as JSON through `send`. */
  reply?(id: JsonRpcId, reply: Reply): void | Promise<void>;
  /**
   * The transport's record of the requests in flight, when it keeps one (an HTTP session: each
   * entry is also the request's open answer); the session then keeps no second record of its own.
   */
  requests?: RequestRecord;
  /** For tests: timers that fire when told to. */
  timers?: Timers;
}

/**
 * Who sent a message, as far as a legacy session cares: the scopes of its token over HTTP (on
 * stdio, nobody in particular), and whom the per-subject call limit counts it against: the token's
 * owner; every caller without a token counts as one (a session id is no identity).
 */
export type LegacyCaller = Pick<Caller, "scopes" | "subject">;

export class LegacySession {
  private readonly dispatcher: Dispatcher;
  private readonly log: Logger;
  private readonly running: RequestRecord;
  private readonly outgoing: OutgoingRequests;
  private closed = false;
  /** The version initialize agreed on (for telemetry). */
  private protocolVersion: string | undefined;
  /** The session as telemetry counts it: from initialize (a `--stateless` request without one is none) to close. */
  private telemetry: SessionRecord | undefined;
  /** What the client declared at `initialize`. */
  private clientCapabilities: Record<string, unknown> | undefined;
  /** The level the client asked for with logging/setLevel; until it asks, debug stays in the server's log. */
  private clientLevel: ClientLogLevel = "info";
  /** The client's roots, asked once and shared; `notifications/roots/list_changed` drops them. */
  private roots: RootsAsk | undefined;

  constructor(
    options: DispatcherOptions,
    private readonly io: LegacyIo,
  ) {
    this.dispatcher = dispatcherFor(options);
    this.log = options.log;
    this.running = io.requests ?? new RunningRequests();
    this.outgoing = new OutgoingRequests(
      (message, related) => this.io.send(JSON.stringify(message), related),
      io.timers,
    );
  }

  /** Requests being answered. */
  get inFlight(): number {
    return this.running.size;
  }

  /** One well-formed JSON-RPC message from the client (the transport has checked its shape). */
  deliver(message: Record<string, unknown>, caller: LegacyCaller = ANONYMOUS): void {
    if (this.closed) return;
    if (typeof message.method !== "string") {
      if (!this.outgoing.respond(message)) {
        this.log.debug("protocol error", {
          error: `a response for an unknown request id ${JSON.stringify(message.id)}`,
        });
      }
    } else if ("id" in message) {
      const id = message.id as JsonRpcId;
      if (this.running.refusesId(id)) void this.refuseReusedId(id);
      else void this.request(id, this.running.start(id), message.method, message.params, caller);
    } else {
      this.notification(message.method, message.params);
    }
  }

  /** A request under an id still being answered (HTTP sessions refuse it in their transport, before it gets here). */
  private async refuseReusedId(id: JsonRpcId): Promise<void> {
    try {
      await this.hand(id, idInUseReply(id));
    } catch (error) {
      this.notSent(error);
    }
  }

  /** Hands over request `id`'s answer: at once, or by the promise returned (no async layer of its own). */
  private hand(id: JsonRpcId, reply: Reply): void | Promise<void> {
    return this.io.reply ? this.io.reply(id, reply) : this.io.send(replyJson(id, reply));
  }

  private notSent(error: unknown): void {
    this.log.debug("protocol error", { error: `the answer was not sent: ${(error as Error).message}` });
  }

  /** The client sends nothing more: answers still being worked on are sent (for at most `ms`), then it closes. */
  async drain(ms: number): Promise<void> {
    if (this.closed) return;
    await drain(this.running, ms, "the client closed the connection");
    this.close();
  }

  /**
   * The input ended (stdin closed): nothing the client could send can arrive any more, so what the
   * server asked it (a roots/list) ends now instead of at its timeout; then the session drains.
   */
  inputEnded(ms: number): Promise<void> {
    this.outgoing.close();
    return this.drain(ms);
  }

  /** Closes now: requests still running are cancelled (no answer follows), the client's pending answers are not awaited. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.telemetry?.close(this.protocolVersion);
    this.running.cancelAll("The server is shutting down.");
    this.outgoing.close();
  }

  /**
   * One request, from its arrival until its answer is handed over: one async function, not a
   * chain of promises per request. It never rejects.
   */
  private async request(
    id: JsonRpcId,
    running: Started,
    method: string,
    rawParams: unknown,
    caller: LegacyCaller,
  ): Promise<void> {
    const context = new LegacyContext(this, id, running, caller, this.clientCapabilities);
    const span = requestSpan(method, rawParams, id, this.protocolVersion);
    try {
      let reply: Reply;
      try {
        // No closure while telemetry is off (span undefined): this runs for every request.
        const params = rawParams ?? {};
        const result = span
          ? span.run(() => this.result(method, params, context))
          : this.result(method, params, context);
        reply = { ok: true, result: await result };
      } catch (error) {
        reply = errorReply(error, method, this.log);
      }
      // Once the answer exists, the request is over: what its handler still sends is late (see LegacyContext).
      context.answered = true;
      span?.end(reply);
      // A cancelled request gets no answer (as the SDK's Protocol did). It stays in flight until its
      // answer has been handed over, so the end of the input cannot end the session mid-write.
      if (running.aborted) return;
      const handed = this.hand(id, reply);
      if (handed) await handed;
    } catch (error) {
      this.notSent(error);
    } finally {
      running.done();
    }
  }

  /**
   * The request's result, or the handler's promise of it; a failure throws (or rejects). Not an
   * async function of its own: `request` awaits it, one promise layer fewer per request.
   */
  private result(
    method: string,
    params: unknown,
    context: RequestContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (!isRecord(params)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Invalid ${method} request: "params" must be an object.`);
    }
    switch (method) {
      case "initialize":
        return this.initialize(params);
      case "ping":
        return {};
      case "logging/setLevel":
        this.clientLevel = logLevelOf(params);
        return {};
    }
    const handler = this.dispatcher.handlers.get(method);
    if (!handler) throw new ProtocolError(ErrorCode.MethodNotFound, this.methodNotFound(method));
    return handler(params, context);
  }

  /** -32601's sentence: the method the client asked for and those it can ask for instead. */
  private methodNotFound(method: string): string {
    const answered = ["initialize", "ping", "logging/setLevel", ...this.dispatcher.handlers.keys()];
    return `Method not found: ${shownValue(method, 100)}; this server answers ${answered.join(", ")}.`;
  }

  /** Version negotiation as the SDK's Server did it: the client's version when supported, else the latest. */
  private initialize(params: Record<string, unknown>): Record<string, unknown> {
    const { protocolVersion, capabilities, clientInfo } = params;
    if (typeof protocolVersion !== "string") {
      throw invalidInitialize(`"protocolVersion" must be a string such as "${LATEST_LEGACY_VERSION}"`, protocolVersion);
    }
    if (!isRecord(capabilities)) {
      throw invalidInitialize('"capabilities" must be an object ({} for none)', capabilities);
    }
    if (!isRecord(clientInfo) || typeof clientInfo.name !== "string" || typeof clientInfo.version !== "string") {
      throw invalidInitialize('"clientInfo" must be an object with a string "name" and "version"', clientInfo);
    }
    this.clientCapabilities = capabilities;
    const { capabilities: offered, instructions } = this.dispatcher;
    this.protocolVersion = isLegacyVersion(protocolVersion) ? protocolVersion : LATEST_LEGACY_VERSION;
    this.telemetry ??= sessionOpened();
    return {
      protocolVersion: this.protocolVersion,
      capabilities: offered,
      serverInfo: { name: NAME, version: VERSION },
      ...(instructions ? { instructions } : {}),
    };
  }

  private notification(method: string, params: unknown): void {
    if (method === "notifications/cancelled") {
      if (isRecord(params)) this.running.cancel(params.requestId, params.reason);
    } else if (method === "notifications/roots/list_changed") {
      this.roots = undefined;
      this.log.debug("client roots changed");
    }
    // notifications/initialized needs nothing; others are ignored, as the SDK ignored them.
  }

  /** Sends a notification about request `id` to the client (LegacyContext checks that it is not late). */
  notifyAbout(id: JsonRpcId, method: string, params: Record<string, unknown>): void {
    if (this.closed) return;
    this.io
      .send(JSON.stringify({ jsonrpc: "2.0", method, params }), id)
      .catch((error: Error) => this.log.debug(`${method} not delivered`, { error: error.message }));
  }

  /** The least severe level the client asked for with logging/setLevel. */
  get logLevel(): ClientLogLevel {
    return this.clientLevel;
  }

  /**
   * The client's roots for request `id`, asked once and shared by every request that needs them;
   * undefined when the client offers none. The roots/list travels with the request that asked
   * (over HTTP, on that request's answer stream): if that request is cancelled or its client
   * leaves before the answer, the client may never have seen the question, so a request still
   * waiting asks again on its own instead of waiting out the timeout and searching no roots.
   */
  async rootsFor(id: JsonRpcId, running: Started): Promise<string[] | undefined> {
    if (!isRecord(this.clientCapabilities?.roots)) return undefined;
    for (;;) {
      // A request already cancelled asks nothing: its question could land on a later request's stream.
      if (running.aborted) return [];
      this.roots ??= this.askRoots(id, running);
      const paths = await this.roots.paths;
      if (paths !== ASKER_GONE) return paths;
    }
  }

  /**
   * Asks for the roots as local paths while answering request `id`; when asking fails the server
   * searches none and forgets the failure, so the next call asks again.
   */
  private askRoots(id: JsonRpcId, asker: Started): RootsAsk {
    const { promise: askerGone, resolve: forget } = Promise.withResolvers<typeof ASKER_GONE>();
    // Listening makes the asker's signal (protocol/lazy-abort.ts): only requests that ask for roots pay
    // for it. This listener comes first, so the requests sharing the ask learn it is gone before the
    // roots/list itself is withdrawn (the client is told it is cancelled).
    const signal = asker.signal;
    const onAbort = () => {
      if (this.roots === ask) this.roots = undefined;
      forget(ASKER_GONE);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const answered = this.outgoing
      .request("roots/list", undefined, ROOTS_TIMEOUT_MS, id, signal)
      .then((result) => localRootPaths(rootsOf(result), "the roots/list result's roots", this.log))
      .catch((error: Error) => {
        if (this.roots === ask) this.roots = undefined;
        // The message is the client's own text, of any length, and a failed ask is made again on every call.
        if (!signal.aborted) this.log.warn("could not read the client's roots", { error: shortened(error.message) });
        return [];
      });
    const ask: RootsAsk = { paths: Promise.race([askerGone, answered]) };
    // Answered: the roots stay cached whatever becomes of the request that asked.
    void answered.then(() => signal.removeEventListener("abort", onAbort));
    return ask;
  }
}

/** What the requests sharing a roots/list learn when the request that asked ended before the client answered. */
const ASKER_GONE = Symbol("the request that asked for the roots ended");

/** One roots/list in flight or answered, shared by the requests that need the roots. */
interface RootsAsk {
  readonly paths: Promise<string[] | typeof ASKER_GONE>;
}

/**
 * The core's view of request `id`: what the handshake declared, the session's level and roots.
 * What it sends the client relates to `id`, and only until the request is over (answered or
 * aborted): over HTTP a later request may reuse the id, and a late notification would land in
 * that one's answer. A class, so a request costs one object here and no closures.
 */
class LegacyContext implements RequestContext {
  /** Set once the answer exists. */
  answered = false;
  readonly scopes: readonly string[] | undefined;
  readonly subject: string | undefined;

  constructor(
    private readonly session: LegacySession,
    private readonly id: JsonRpcId,
    private readonly running: Started,
    caller: LegacyCaller,
    readonly clientCapabilities: Record<string, unknown> | undefined,
  ) {
    this.scopes = caller.scopes;
    this.subject = caller.subject;
  }

  /** Made only if the work asks for it (protocol/lazy-abort.ts). */
  get signal(): AbortSignal {
    return this.running.signal;
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (this.answered || this.running.aborted) return;
    this.session.notifyAbout(this.id, method, params);
  }

  logLevel(): ClientLogLevel {
    return this.session.logLevel;
  }

  clientRoots(): Promise<string[] | undefined> {
    return this.session.rootsFor(this.id, this.running);
  }
}

/**
 * The roots of a `roots/list` result, or why it is none. Only its shape is checked here, as the
 * 2026-07-28 era checks `inputResponses.roots`: each root's uri is judged on its own by
 * `localRootPaths`, so one bad root does not cost the client all the others.
 */
function rootsOf(result: Record<string, unknown>): Record<string, unknown>[] {
  const roots = isRecord(result) ? result.roots : undefined;
  if (!Array.isArray(roots) || !roots.every(isRecord)) {
    throw new Error('the roots/list result must hold "roots", a list of objects with a file:// "uri"');
  }
  return roots;
}

function logLevelOf(params: Record<string, unknown>): ClientLogLevel {
  const level = params.level;
  if (isClientLogLevel(level)) return level;
  throw new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid logging/setLevel request: "level" must be one of ${CLIENT_LOG_LEVELS.join(", ")} (got ${shownValue(level ?? null)}).`,
  );
}

function invalidInitialize(what: string, got: unknown): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid initialize request: ${what}; got ${describe(got)}.`);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  return value !== null && typeof value === "object" ? "an object" : JSON.stringify(value);
}
