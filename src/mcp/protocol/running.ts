/**
 * The requests one connection is answering, for both eras' engines: each is started when it is
 * received and finished once its answer has been handed to the transport, `notifications/cancelled`
 * aborts it (no answer follows, so nothing is left to wait for), and the end of the input drains
 * them (answers still being worked on are written, then whatever is left is cancelled).
 */
import { InFlight, idleWithin } from "../in-flight.ts";
import type { JsonRpcId } from "./message.ts";

export type { JsonRpcId } from "./message.ts";

export interface Started {
  /** Aborts when the client cancels the request or the connection ends. */
  signal: AbortSignal;
  /** Call once the answer has been handed to the transport (or when none will be sent). */
  finish(): void;
}

export class RunningRequests {
  /** The latest request started under each id (JSON of the id: 1 and "1" are different). */
  private readonly byId = new Map<string, AbortController>();
  private readonly inFlight = new InFlight();

  get size(): number {
    return this.inFlight.size;
  }

  isRunning(id: JsonRpcId): boolean {
    return this.byId.has(JSON.stringify(id));
  }

  start(id: JsonRpcId): Started {
    const key = JSON.stringify(id);
    const controller = new AbortController();
    this.byId.set(key, controller);
    const done = this.inFlight.add({ cancel: (reason) => controller.abort(reason) });
    // A cancelled request is answered with nothing: it no longer holds the connection open.
    controller.signal.addEventListener("abort", done, { once: true });
    return {
      signal: controller.signal,
      finish: () => {
        // A later request may have reused the id; only this request's own entry goes.
        if (this.byId.get(key) === controller) this.byId.delete(key);
        done();
      },
    };
  }

  /** `notifications/cancelled`: aborts the latest request with this id, if it is still running. */
  cancel(id: unknown, reason?: unknown): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    const key = JSON.stringify(id);
    const controller = this.byId.get(key);
    this.byId.delete(key);
    controller?.abort(reason);
  }

  /** Waits until every answer has been handed over, or `ms` passed; then cancels what is left. */
  async drain(ms: number, reason: string): Promise<void> {
    await idleWithin(this.inFlight, ms);
    this.cancelAll(reason);
  }

  cancelAll(reason: string): void {
    this.inFlight.cancelAll(reason);
    this.byId.clear();
  }
}
