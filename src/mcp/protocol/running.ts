/**
 * The requests one connection is answering, for both eras' engines: each is started when it is
 * received and done once its answer has been handed to the transport, `notifications/cancelled`
 * aborts it (no answer follows, so nothing is left to wait for), and the end of the input drains
 * them (answers still being worked on are written, then whatever is left is cancelled).
 *
 * A connection has one record of them. On stdio it is `RunningRequests`; a 2025-era HTTP session's
 * transport keeps its own (each request's entry is also its open HTTP answer), and the session
 * engine works on that one through `RequestRecord` instead of keeping a second.
 */
import { InFlight, type InFlightRequest, idleWithin } from "./in-flight.ts";
import { LazyAbort } from "./lazy-abort.ts";
import type { JsonRpcId } from "./message.ts";

export type { JsonRpcId } from "./message.ts";

export interface Started {
  /** Aborts when the client cancels the request or the connection ends (made when first asked for). */
  readonly signal: AbortSignal;
  /** Whether it was aborted, without making the signal. */
  readonly aborted: boolean;
  /** Call once the answer has been handed to the transport (or when none will be sent). */
  done(): void;
}

/** What an engine asks of the record of requests in flight on its connection. */
export interface RequestRecord {
  /** Requests started and not yet done or aborted. */
  readonly size: number;
  /** Resolves once `size` is 0. */
  whenIdle(): Promise<void>;
  /** Whether a request arriving under `id` reuses the id of one still running, and must be refused. */
  refusesId(id: JsonRpcId): boolean;
  /** Starts request `id` (after `refusesId` said no). */
  start(id: JsonRpcId): Started;
  /** `notifications/cancelled`: aborts the latest request with this id, if it is still running; no answer follows. */
  cancel(id: unknown, reason?: unknown): void;
  /** The connection ends: every request still running is aborted. */
  cancelAll(reason: string): void;
}

/** One request being answered: its own record in flight (no closures to take it off again). */
class RunningRequest extends LazyAbort implements Started, InFlightRequest {
  constructor(
    private readonly owner: RunningRequests,
    readonly id: JsonRpcId,
  ) {
    super();
  }

  /** Aborted (cancelled, or the connection ended): it no longer holds the connection open, and no answer follows. */
  cancel(reason?: unknown): void {
    this.owner.ended(this);
    this.abort(reason);
  }

  done(): void {
    this.owner.finished(this);
  }
}

export class RunningRequests implements RequestRecord {
  /** The latest request started under each id (a Map tells 1 and "1" apart). */
  private readonly byId = new Map<JsonRpcId, RunningRequest>();
  private readonly inFlight = new InFlight<RunningRequest>();

  get size(): number {
    return this.inFlight.size;
  }

  whenIdle(): Promise<void> {
    return this.inFlight.whenIdle();
  }

  refusesId(id: JsonRpcId): boolean {
    return this.byId.has(id);
  }

  start(id: JsonRpcId): Started {
    const request = new RunningRequest(this, id);
    this.byId.set(id, request);
    this.inFlight.add(request);
    return request;
  }

  cancel(id: unknown, reason?: unknown): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    const request = this.byId.get(id);
    this.byId.delete(id);
    request?.cancel(reason);
  }

  cancelAll(reason: string): void {
    this.inFlight.cancelAll(reason);
    this.byId.clear();
  }

  /** The request's answer was handed over: it is no longer in flight. */
  finished(request: RunningRequest): void {
    // A later request may have reused the id; only this request's own entry goes.
    if (this.byId.get(request.id) === request) this.byId.delete(request.id);
    this.inFlight.delete(request);
  }

  /** The request was aborted: it is no longer in flight, though its work may still be winding down. */
  ended(request: RunningRequest): void {
    this.inFlight.delete(request);
  }
}

/** Waits until every answer has been handed over, or `ms` passed; then cancels what is left. */
export async function drain(record: RequestRecord, ms: number, reason: string): Promise<void> {
  await idleWithin(record, ms);
  record.cancelAll(reason);
}
