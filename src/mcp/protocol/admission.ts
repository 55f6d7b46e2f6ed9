/**
 * Admission control for tool calls (issue 34 H3), in both eras and on every transport: the
 * dispatcher asks here before a `tools/call` runs. Without it one caller could start any number
 * of calls at once (400 concurrent file searches took a server to 733 MB and 1,030 threads).
 *
 *   - At most `maxRunning` calls run at once in the whole server (--max-calls), and at most
 *     `maxRunningPerSubject` of one subject (--max-calls-per-subject): the token's owner over
 *     HTTP with authorization, else `UNIDENTIFIED`: every HTTP caller without a token (2025
 *     sessions, 2026-07-28 requests, --gateway-auth) together, since a session id is no identity
 *     and one client could open sessions to multiply its share; stdio has one client, so only the
 *     server's limit counts there.
 *   - Beyond that a call waits in one first-in-first-out queue of at most `maxQueued` calls
 *     (--max-queued-calls), of which one subject may hold `maxRunningPerSubject`: a burst waits
 *     instead of failing, and no one caller fills the queue.
 *   - Beyond the queue the call is refused at once (`CallRefused`), naming the limit and how long
 *     to wait: over HTTP 429 (the subject's limit) or 503 (the server's) with Retry-After, on
 *     stdio the JSON-RPC error alone.
 *
 * A call waiting in the queue that is cancelled (notifications/cancelled, its HTTP client gone,
 * its session ended, shutdown) leaves the queue at once. A slot is given back exactly once,
 * however its call ends. Nothing here reads a clock or knows a transport.
 */
import { availableParallelism } from "node:os";
import { ConfigError } from "../../core/options.ts";
import { ErrorCode, ProtocolError } from "../../core/tool.ts";
import type { Reply } from "./message.ts";

export interface CallLimits {
  /** Calls running at once in the whole server (--max-calls). */
  maxRunning: number;
  /** Calls one subject may run at once, and may have waiting (--max-calls-per-subject). */
  maxRunningPerSubject: number;
  /** Calls waiting for a slot in the whole server (--max-queued-calls); 0: refuse at once. */
  maxQueued: number;
}

/**
 * The one subject of every HTTP caller without a token (2025 sessions, 2026-07-28 requests,
 * `--gateway-auth`): nothing mcpkit can verify tells them apart (a client opens as many sessions
 * as it likes), so together they get one caller's share, and a flood from them leaves room for
 * signed-in users. (Token owners are JSON arrays: none can be this.)
 */
export const UNIDENTIFIED = "(no token)";

/** The JSON-RPC code of a refusal: a server error, as the HTTP layer's other load refusals use. */
export const CALL_REFUSED = ErrorCode.ServerError;
/**
 * Seconds a refused caller should wait. Calls last milliseconds to seconds and the queue is short,
 * so a second or two sees it move; a constant, so the answer does not depend on a clock.
 */
const CALL_RETRY_AFTER_SECONDS = 2;

/**
 * Defaults from the machine: 16 calls a core (most calls wait on the network or the disk, not a
 * core), at least 64 and at most 1,024; a subject gets a quarter of them; twice as many may wait.
 */
export function defaultCallLimits(parallelism: number = availableParallelism()): CallLimits {
  const maxRunning = Math.min(1024, Math.max(64, 16 * parallelism));
  return { maxRunning, maxRunningPerSubject: Math.floor(maxRunning / 4), maxQueued: 2 * maxRunning };
}

/**
 * The limits from the flags (undefined: the default). A per-subject limit that would let one
 * caller take every slot is refused, as --max-sessions-per-subject is.
 */
export function readCallLimits(
  given: { maxRunning?: number; maxRunningPerSubject?: number; maxQueued?: number },
  parallelism?: number,
): CallLimits {
  const defaults = defaultCallLimits(parallelism);
  const maxRunning = given.maxRunning ?? defaults.maxRunning;
  const perSubject = given.maxRunningPerSubject ?? Math.max(1, Math.floor(maxRunning / 4));
  if (perSubject > maxRunning) {
    throw new ConfigError(
      `--max-calls-per-subject ${perSubject} must not exceed --max-calls ${maxRunning}: pass a smaller value (e.g. ${Math.max(1, Math.floor(maxRunning / 4))}) or drop the flag for the default, a quarter of --max-calls.`,
    );
  }
  return { maxRunning, maxRunningPerSubject: perSubject, maxQueued: given.maxQueued ?? 2 * maxRunning };
}

/** Which limit refused a call; "shutdown": the server is closing and starts no more calls. */
export type CallLimit = "server" | "subject" | "shutdown";

const FLAG_OF = { server: "--max-calls", subject: "--max-calls-per-subject" } as const;

/** A call refused by admission control: a JSON-RPC error, and over HTTP 429 or 503 with Retry-After. */
export class CallRefused extends ProtocolError {
  readonly status: 429 | 503;
  readonly retryAfterSeconds = CALL_RETRY_AFTER_SECONDS;

  constructor(
    readonly limit: CallLimit,
    message: string,
  ) {
    super(CALL_REFUSED, message, {
      limit,
      ...(limit === "shutdown" ? {} : { flag: FLAG_OF[limit] }),
      retryAfterSeconds: CALL_RETRY_AFTER_SECONDS,
    });
    this.status = limit === "subject" ? 429 : 503;
  }

  /** The refusal as either era's transport answers it. */
  reply(): Reply {
    return {
      ok: false,
      error: { code: this.code, message: this.message, data: this.data },
      status: this.status,
      retryAfter: this.retryAfterSeconds,
    };
  }
}

/** A running call's place: give it back with `release`, once (again does nothing). */
export interface CallSlot {
  release(): void;
}

/** What a waiting call watches: its request's signal, read only if the call has to wait. */
export interface Cancellable {
  readonly signal: AbortSignal;
}

/** Running and waiting calls of one subject (dropped when both are 0, so the map stays small). */
interface Held {
  running: number;
  waiting: number;
}

class Slot implements CallSlot {
  private released = false;

  constructor(
    private readonly admission: Admission,
    private readonly held: Held | undefined,
    private readonly subject: string | undefined,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    this.admission.released(this.held, this.subject);
  }
}

/** A call in the queue: its own abort listener, so waiting costs no closure. */
class Waiter {
  readonly slot = Promise.withResolvers<CallSlot>();

  constructor(
    private readonly admission: Admission,
    readonly held: Held | undefined,
    readonly subject: string | undefined,
    readonly signal: AbortSignal,
  ) {}

  /** The call was cancelled while it waited. */
  handleEvent(): void {
    this.admission.leave(this);
    this.slot.reject(new ProtocolError(ErrorCode.InternalError, "The call was cancelled while it waited for a slot."));
  }
}

/** Why a call that had not started will not: the server is shutting down. */
const SHUTTING_DOWN =
  "The server is shutting down and did not start this call; retry it against another instance or once the server is back.";

export class Admission {
  private runningCalls = 0;
  private closed = false;
  private readonly queue = new Set<Waiter>();
  private readonly subjects = new Map<string, Held>();
  /**
   * The count of every caller without a token, kept for good: it is the subject of nearly every
   * call without authorization, which would otherwise make, register and drop one per call.
   */
  private readonly unidentified: Held = { running: 0, waiting: 0 };

  constructor(readonly limits: CallLimits) {}

  /** Calls running now. */
  get running(): number {
    return this.runningCalls;
  }

  /** Calls waiting now. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * A slot for one call of `subject`: at once when there is room, a promise of one when the call
   * must wait; `CallRefused` (thrown) when it may not even wait. `request.signal` is read only
   * when the call waits; its abort takes the call out of the queue and rejects the promise.
   */
  admit(subject: string | undefined, request: Cancellable): CallSlot | Promise<CallSlot> {
    const { maxRunning, maxRunningPerSubject, maxQueued } = this.limits;
    // The usual call, with no subject to count, in as few steps as can be.
    if (subject === undefined && this.runningCalls < maxRunning) {
      this.runningCalls++;
      return new Slot(this, undefined, undefined);
    }
    const held = subject === undefined ? undefined : this.heldBy(subject);
    const subjectFull = held !== undefined && held.running >= maxRunningPerSubject;
    // Waiting calls wait only for their subject's room while the server has room: a call whose
    // subject has room overtakes nobody by running now.
    if (!subjectFull && this.runningCalls < maxRunning) return this.start(held, subject);
    if (this.closed) {
      this.forgetIfIdle(held, subject);
      throw new CallRefused("shutdown", SHUTTING_DOWN);
    }
    if (held !== undefined && held.waiting >= maxRunningPerSubject) throw this.refusal("subject", held, subject);
    // The caller could still wait within its own share, but the server's queue is full: that is the
    // limit reached, whoever's calls fill it.
    if (this.queue.size >= maxQueued) throw this.refusal("server", held, subject);
    const signal = request.signal;
    if (signal.aborted) {
      this.forgetIfIdle(held, subject);
      return Promise.reject(new ProtocolError(ErrorCode.InternalError, "The call was cancelled."));
    }
    const waiter = new Waiter(this, held, subject, signal);
    if (held) held.waiting++;
    this.queue.add(waiter);
    signal.addEventListener("abort", waiter, { once: true });
    return waiter.slot.promise;
  }

  /** A slot was given back: the first waiting calls that now have room start, in order. */
  released(held: Held | undefined, subject: string | undefined): void {
    this.runningCalls--;
    if (held) {
      held.running--;
      this.forgetIfIdle(held, subject);
    }
    if (this.queue.size === 0) return;
    const { maxRunning, maxRunningPerSubject } = this.limits;
    for (const waiter of this.queue) {
      if (this.runningCalls >= maxRunning) return;
      if (waiter.held && waiter.held.running >= maxRunningPerSubject) continue;
      this.queue.delete(waiter);
      waiter.signal.removeEventListener("abort", waiter);
      if (waiter.held) waiter.held.waiting--;
      waiter.slot.resolve(this.start(waiter.held, waiter.subject));
    }
  }

  /**
   * Shutdown: every waiting call leaves the queue now, refused (503 over HTTP), and no call waits
   * from now on, so none starts late in the grace period that calls already running are given.
   */
  close(): void {
    this.closed = true;
    for (const waiter of this.queue) {
      this.leave(waiter);
      waiter.signal.removeEventListener("abort", waiter);
      waiter.slot.reject(new CallRefused("shutdown", SHUTTING_DOWN));
    }
  }

  /** A waiting call was cancelled: it leaves the queue, and its place is free. */
  leave(waiter: Waiter): void {
    if (!this.queue.delete(waiter)) return;
    if (waiter.held) {
      waiter.held.waiting--;
      this.forgetIfIdle(waiter.held, waiter.subject);
    }
  }

  private start(held: Held | undefined, subject: string | undefined): CallSlot {
    this.runningCalls++;
    if (held) held.running++;
    return new Slot(this, held, subject);
  }

  private heldBy(subject: string): Held {
    if (subject === UNIDENTIFIED) return this.unidentified;
    let held = this.subjects.get(subject);
    if (!held) this.subjects.set(subject, (held = { running: 0, waiting: 0 }));
    return held;
  }

  private forgetIfIdle(held: Held | undefined, subject: string | undefined): void {
    if (held && held !== this.unidentified && subject !== undefined && held.running === 0 && held.waiting === 0)
      this.subjects.delete(subject);
  }

  private refusal(limit: CallLimit, held: Held | undefined, subject: string | undefined): CallRefused {
    const { maxRunning, maxRunningPerSubject, maxQueued } = this.limits;
    this.forgetIfIdle(held, subject);
    const wait = `retry after ${CALL_RETRY_AFTER_SECONDS} seconds`;
    if (limit === "subject") {
      const who = subject === UNIDENTIFIED ? "callers without a token (together one caller)" : "this caller";
      return new CallRefused(
        "subject",
        `Too many tool calls from ${who}: ${held?.running ?? 0} running and ${held?.waiting ?? 0} waiting, the most one caller may have (--max-calls-per-subject ${maxRunningPerSubject}). Wait for an answer before sending more, or ${wait}.`,
      );
    }
    return new CallRefused(
      "server",
      `The server is busy: its queue is full (${this.queue.size} tool calls waiting, --max-queued-calls ${maxQueued}) and ${this.runningCalls} running (--max-calls ${maxRunning}); ${wait}.`,
    );
  }
}
