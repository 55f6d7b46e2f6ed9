/**
 * The modern era (MCP 2026-07-28) on stdio: every request carries its own envelope and is
 * answered on its own; requests run concurrently, notifications about one (progress, log
 * messages it asked for) precede its answer, `notifications/cancelled` stops one and no answer
 * follows, and a `subscriptions/listen` stays open (acknowledged, tagged with its id) until the
 * client cancels it or the server stops (SUBSCRIPTIONS_PER_CLIENT at most at once). The client's
 * roots are asked for with `input_required`.
 */
import { observeSubscriptions, requestSpan } from "../../core/telemetry/index.ts";
import { ErrorCode } from "../../core/tool.ts";
import {
  type JsonRpcId,
  ModernError,
  type ModernServer,
  type Reply,
  type RequestIo,
  answer,
  checkVersion,
  failure,
  readEnvelope,
} from "../modern/core.ts";
import { SUBSCRIPTIONS_PER_CLIENT, acknowledgement, closingResult, honouredFilter } from "../modern/subscriptions.ts";
import { ANONYMOUS, type Caller } from "../protocol/caller.ts";
import { idInUseReply } from "../protocol/errors.ts";
import { isRecord } from "../protocol/params.ts";
import { RunningRequests, type Started, drain } from "../protocol/running.ts";
import { notificationJson, replyJson } from "../protocol/wire.ts";
import { DRAIN_MS, type StdioConnection } from "./connection.ts";
import type { JsonRpcMessage, LineChannel } from "./lines.ts";

export function connectModern(server: ModernServer, channel: LineChannel): StdioConnection {
  return new ModernStdioConnection(server, channel);
}

/** One 2026-07-28 client on this process's stdin and stdout, like the legacy era's session. */
class ModernStdioConnection implements StdioConnection {
  private readonly running = new RunningRequests();
  /** The ids of open subscriptions (their `subscriptions/listen`), kept as ids: a Set tells 1 and "1" apart. */
  private readonly listening = new Set<JsonRpcId>();
  private readonly ended = Promise.withResolvers<void>();
  private closing = false;

  constructor(
    private readonly server: ModernServer,
    private readonly channel: LineChannel,
  ) {
    observeSubscriptions(this.listening);
  }

  get closed(): Promise<void> {
    return this.ended.promise;
  }

  deliver(message: JsonRpcMessage): void {
    if (this.closing) return;
    if (typeof message.method !== "string") {
      this.server.log.debug("ignoring a response: a 2026-07-28 server sends the client no requests");
      return;
    }
    if ("id" in message) this.request(message.id as JsonRpcId, message.method, message.params);
    else this.notification(message.method, message.params);
  }

  /** Ends the connection: subscriptions are answered (a graceful end), calls still running are cancelled. */
  async close(): Promise<void> {
    if (this.closing) return this.ended.promise;
    this.closing = true;
    for (const id of this.listening) void this.channel.send(closingResult(id));
    this.listening.clear();
    this.running.cancelAll("The server is shutting down.");
    this.channel.close();
    this.ended.resolve();
    return this.ended.promise;
  }

  /** End of input: the client is done sending, but answers still being worked on are written first. */
  inputEnded(): void {
    if (this.closing) return;
    this.closing = true;
    this.listening.clear();
    void drain(this.running, DRAIN_MS, "stdin closed").then(() => this.ended.resolve());
  }

  private request(id: JsonRpcId, method: string, rawParams: unknown): void {
    if (this.running.refusesId(id) || this.listening.has(id)) {
      this.send(id, idInUseReply(id));
      return;
    }
    const params = (rawParams ?? {}) as Record<string, unknown>;
    let envelope: ReturnType<typeof readEnvelope>;
    try {
      envelope = readEnvelope(rawParams);
      checkVersion(envelope);
      if (method === "subscriptions/listen") {
        this.listen(id, params);
        return;
      }
    } catch (error) {
      this.send(id, failure(this.server, method, error));
      return;
    }
    const request = new StdioRequest(this.channel, this.running.start(id));
    const span = requestSpan(method, params, id, envelope.version);
    // No closure while telemetry is off (span undefined): this runs for every request.
    const work = span
      ? span.run(() => answer(this.server, method, params, envelope, request))
      : answer(this.server, method, params, envelope, request);
    void work.then((reply) => {
      span?.end(reply);
      return request.settle(id, reply);
    });
  }

  private listen(id: JsonRpcId, params: Record<string, unknown>): void {
    if (this.listening.size >= SUBSCRIPTIONS_PER_CLIENT) {
      throw new ModernError(
        ErrorCode.ServerError,
        `Too many subscriptions: this connection already holds ${SUBSCRIPTIONS_PER_CLIENT} open subscriptions, the most one client may; cancel one (notifications/cancelled with its listen request's id) before opening another.`,
        429,
      );
    }
    const honoured = honouredFilter(this.server.dispatcher, params);
    this.listening.add(id);
    void this.channel.send(acknowledgement(id, honoured));
  }

  private notification(method: string, params: unknown): void {
    if (method !== "notifications/cancelled") return;
    const target = isRecord(params) ? params.requestId : undefined;
    if (typeof target !== "string" && typeof target !== "number") return;
    this.running.cancel(target);
    this.listening.delete(target);
  }

  private send(id: JsonRpcId | null, reply: Reply): void {
    void this.channel.sendJson(replyJson(id, reply));
  }
}

/** What one request's work sees of stdio (`RequestIo`): one object per request, no closures. */
class StdioRequest implements RequestIo {
  /** The caller on stdio: the user who launched the process; no token, nothing hidden. */
  readonly caller: Caller = ANONYMOUS;

  constructor(
    private readonly channel: LineChannel,
    private readonly started: Started,
  ) {}

  /** Read only if the work asks for it, so the signal is made only then (protocol/lazy-abort.ts). */
  get signal(): AbortSignal {
    return this.started.signal;
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (!this.started.aborted) void this.channel.sendJson(notificationJson(method, params));
  }

  /**
   * A cancelled request gets no answer (2026-07-28 cancellation). The request stays in flight
   * until its answer has left for the pipe, so the end of stdin cannot exit the process while a
   * large answer is still being written.
   */
  async settle(id: JsonRpcId, reply: Reply): Promise<void> {
    if (!this.started.aborted) await this.channel.sendJson(replyJson(id, reply));
    this.started.done();
  }
}
