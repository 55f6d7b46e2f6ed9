/**
 * Requests the server sends its client on a legacy session (2025-11-25 and earlier: `roots/list`),
 * as the SDK's Protocol sent them: numeric ids counting from 0, a response matched by the id's
 * numeric value, a timeout that cancels the request (`notifications/cancelled` to the client) and
 * rejects it with -32001 (the SDK's RequestTimeout), and every request still waiting rejected when the session closes.
 */
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import { isRecord } from "../protocol/params.ts";
import type { JsonRpcId } from "../protocol/running.ts";

/** Timers, injectable so tests can fire a timeout without waiting for it. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface Waiting {
  /** The client's request being answered when this one was sent. */
  related: JsonRpcId | undefined;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: unknown;
}

export class OutgoingRequests {
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private closed = false;

  constructor(
    /** Writes one message to the client; `related` is the client's request it was sent while answering. */
    private readonly send: (message: Record<string, unknown>, related?: JsonRpcId) => Promise<void>,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  /**
   * Sends a request (while answering the client's request `related`, if any); resolves with the
   * client's result, rejects with its error, a timeout, or `signal`'s abort (then the client is
   * told it is cancelled, as on a timeout).
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    related?: JsonRpcId,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new ProtocolError(ErrorCode.ServerError, "Not connected"));
    if (signal?.aborted) return Promise.reject(new ProtocolError(ErrorCode.RequestCancelled, "Request cancelled"));
    const id = this.nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<Record<string, unknown>>();
    const timer = this.timers.setTimeout(() => this.timeOut(id, timeoutMs), timeoutMs);
    this.waiting.set(id, { related, resolve, reject, timer });
    signal?.addEventListener("abort", () => this.cancel(id, "Request cancelled"), { once: true });
    this.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, related).catch((error: Error) =>
      this.settle(id)?.reject(error),
    );
    return promise;
  }

  /** A response from the client; false when it answers no request of ours (the caller logs it). */
  respond(message: Record<string, unknown>): boolean {
    const waiting = this.settle(Number(message.id));
    if (!waiting) return false;
    if (isRecord(message.error)) {
      const { code, message: text, data } = message.error;
      waiting.reject(new ProtocolError(Number(code), String(text), isRecord(data) ? data : undefined));
    } else {
      waiting.resolve(message.result as Record<string, unknown>);
    }
    return true;
  }

  /** The session ended: nothing more is answered. */
  close(): void {
    this.closed = true;
    for (const id of [...this.waiting.keys()]) {
      this.settle(id)?.reject(new ProtocolError(ErrorCode.ServerError, "Connection closed"));
    }
  }

  private timeOut(id: number, timeoutMs: number): void {
    const waiting = this.settle(id);
    if (!waiting) return;
    this.tellCancelled(id, waiting, `MCP error ${ErrorCode.Unauthorized}: Request timed out`);
    waiting.reject(new ProtocolError(ErrorCode.Unauthorized, "Request timed out", { timeout: timeoutMs }));
  }

  /** The request is no longer wanted (its signal aborted): the client is told, the caller gets a rejection. */
  private cancel(id: number, reason: string): void {
    const waiting = this.settle(id);
    if (!waiting) return;
    this.tellCancelled(id, waiting, reason);
    waiting.reject(new ProtocolError(ErrorCode.RequestCancelled, reason));
  }

  /** Where the request went (the SDK's Protocol relates the cancellation as it related the request). */
  private tellCancelled(id: number, waiting: Waiting, reason: string): void {
    void this.send(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } },
      waiting.related,
    ).catch(() => undefined);
  }

  private settle(id: number): Waiting | undefined {
    const waiting = this.waiting.get(id);
    if (!waiting) return undefined;
    this.waiting.delete(id);
    this.timers.clearTimeout(waiting.timer);
    return waiting;
  }
}
