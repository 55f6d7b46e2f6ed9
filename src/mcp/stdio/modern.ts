/**
 * The modern era (MCP 2026-07-28) on stdio: every request carries its own envelope and is
 * answered on its own; requests run concurrently, notifications about one (progress, log
 * messages it asked for) precede its answer, `notifications/cancelled` stops one and no answer
 * follows, and a `subscriptions/listen` stays open (acknowledged, tagged with its id) until the
 * client cancels it or the server stops. The client's roots are asked for with `input_required`.
 */
import { ErrorCode } from "../../core/tool.ts";
import {
  type JsonRpcId,
  type ModernServer,
  type Reply,
  answer,
  checkVersion,
  failure,
  readEnvelope,
} from "../modern/core.ts";
import { acknowledgement, closingResult, honouredFilter } from "../modern/subscriptions.ts";
import { notificationJson, replyJson } from "../protocol/wire.ts";
import { ANONYMOUS } from "../protocol/caller.ts";
import { isRecord } from "../protocol/params.ts";
import { RunningRequests } from "../protocol/running.ts";
import { DRAIN_MS, type StdioConnection } from "./connection.ts";
import type { JsonRpcMessage, LineChannel } from "./lines.ts";
import { requestSpan, withSpan } from "../../core/telemetry/index.ts";

/** The caller on stdio: the user who launched the process; no token, nothing hidden. */

export function connectModern(server: ModernServer, channel: LineChannel): StdioConnection {
  const running = new RunningRequests();
  /** Open subscriptions, by id. */
  const listening = new Set<string>();
  const closed = Promise.withResolvers<void>();
  let closing = false;

  const send = (id: JsonRpcId | null, reply: Reply) => void channel.sendJson(replyJson(id, reply));

  const request = (message: JsonRpcMessage) => {
    const id = message.id as JsonRpcId;
    const key = JSON.stringify(id);
    const method = message.method as string;
    if (running.isRunning(id) || listening.has(key)) {
      const why = `Invalid Request: a request with id ${key} is still running; give each request its own id.`;
      return send(id, { ok: false, error: { code: ErrorCode.InvalidRequest, message: why }, status: 400 });
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    let envelope: ReturnType<typeof readEnvelope>;
    try {
      envelope = readEnvelope(message.params);
      checkVersion(envelope);
      if (method === "subscriptions/listen") return listen(id, key, params);
    } catch (error) {
      return send(id, failure(server, method, error));
    }
    const request = running.start(id);
    const io = {
      // Read only if the work asks for it, so the signal is made only then (protocol/lazy-abort.ts).
      get signal() {
        return request.signal;
      },
      caller: ANONYMOUS,
      notify: (name: string, body: Record<string, unknown>) => {
        if (!request.aborted) void channel.sendJson(notificationJson(name, body));
      },
    };
    const span = requestSpan(method, params, id, envelope.version);
    void withSpan(span, () => answer(server, method, params, envelope, io)).then(async (reply) => {
      span?.end(reply);
      // A cancelled request gets no answer (2026-07-28 cancellation). The request stays in flight
      // until its answer has left for the pipe, so the end of stdin cannot exit the process while
      // a large answer is still being written.
      if (!request.aborted) await channel.sendJson(replyJson(id, reply));
      request.finish();
    });
  };

  const listen = (id: JsonRpcId, key: string, params: Record<string, unknown>) => {
    const honoured = honouredFilter(server.dispatcher, params);
    listening.add(key);
    void channel.send(acknowledgement(id, honoured));
  };

  const notification = (message: JsonRpcMessage) => {
    if (message.method !== "notifications/cancelled") return;
    const target = isRecord(message.params) ? message.params.requestId : undefined;
    if (typeof target !== "string" && typeof target !== "number") return;
    running.cancel(target);
    listening.delete(JSON.stringify(target));
  };

  const deliver = (message: JsonRpcMessage) => {
    if (closing) return;
    if (typeof message.method !== "string") {
      server.log.debug("ignoring a response: a 2026-07-28 server sends the client no requests");
      return;
    }
    if ("id" in message) request(message);
    else notification(message);
  };

  /** Ends the connection: subscriptions are answered (a graceful end), calls still running are cancelled. */
  const close = async () => {
    if (closing) return closed.promise;
    closing = true;
    for (const key of listening) void channel.send(closingResult(JSON.parse(key) as JsonRpcId));
    listening.clear();
    running.cancelAll("The server is shutting down.");
    channel.close();
    closed.resolve();
    return closed.promise;
  };

  // End of input: the client is done sending, but answers still being worked on are written first.
  const inputEnded = () => {
    if (closing) return;
    closing = true;
    listening.clear();
    void running.drain(DRAIN_MS, "stdin closed").then(() => closed.resolve());
  };
  return { deliver, inputEnded, closed: closed.promise, close };
}
