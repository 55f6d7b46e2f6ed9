/**
 * The answer to one POSTed JSON-RPC request, in both eras (the 2025-11-25 session transport,
 * `session-transport.ts`, and the 2026-07-28 endpoint, `modern-endpoint.ts`): from the POST until
 * its response is sent.
 *
 *   - JSON (`application/json`, the whole response as the body) when the response is the first
 *     thing to send for the request: nearly every call, and it costs one body, no stream.
 *   - An SSE stream when something about the request comes first (progress, a log message, a
 *     `roots/list` to the client), or when the response is not ready within keepAliveMs (half
 *     the idle timeout after which Bun drops a silent connection): those messages, then the
 *     response, then the end of the stream. The spec lets the server choose either per POST.
 *   - A client that leaves before the response ends the answer (a 204 if nothing was sent yet)
 *     and is reported through `gone()` (each era overrides it), so its work is stopped, not left running for nobody.
 *
 * The deadline and the listener on `request.signal` are armed only if the answer is still
 * waiting after the turn it arrived in (`after-turn.ts`): most never need them.
 */
import { replyJson } from "../protocol/wire.ts";
import { frozenResultBytes, responseBytes } from "../protocol/frozen-json.ts";
import type { JsonRpcId, Reply } from "../protocol/message.ts";
import { type Waiting, afterThisTurn } from "./after-turn.ts";
import { SseStream, sseResponse } from "./sse.ts";

/** What the answers of one endpoint (a session, the 2026-07-28 era) share. */
export interface AnswerSettings {
  /** Keep-alive spacing of a stream, and how long an answer may stay silent before it becomes one. */
  readonly keepAliveMs: number;
  /** The headers of a JSON answer (a Response copies them: one instance serves every answer). */
  readonly jsonHeaders: Headers;
  /** The session id a stream's headers carry (2025 era, with sessions). */
  readonly sessionId: string | undefined;
  /**
   * Whether an answer that is already a stream is still watched through `request.signal` after
   * its turn (2026-07-28); without it (2025 era) only the stream's own end tells that the client
   * left, and `settled` is true once the answer is a stream.
   */
  readonly watchStreams: boolean;
}

export class Answer implements Waiting {
  readonly response: Promise<Response>;
  private resolve!: (response: Response) => void;
  private stream: SseStream | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  /** Ended: answered, cancelled, or its client gone. Nothing more is sent. */
  private over = false;

  constructor(
    private readonly settings: AnswerSettings,
    private readonly request: Request,
  ) {
    this.response = new Promise((resolve) => {
      this.resolve = resolve;
    });
    // Most answers are out within the turn they arrived in: only the others get a deadline (after-turn.ts).
    afterThisTurn(this);
  }

  /** Runs once when the client leaves before the answer ended (not when the server ends it): each era stops the work. */
  protected gone(): void {}

  /** Nothing left to arm after the turn: the answer ended (or, 2025 era, it is a stream). */
  get settled(): boolean {
    return this.over || (this.stream !== undefined && !this.settings.watchStreams);
  }

  stillWaiting(): void {
    if (!this.stream) this.deadline = setTimeout(() => this.toStream(), this.settings.keepAliveMs);
    const signal = this.request.signal;
    if (signal.aborted) this.clientGone();
    else signal.addEventListener("abort", this, { once: true });
  }

  /** The request's signal aborted: the client left (the answer is its own listener, no closure per request). */
  handleEvent(): void {
    this.clientGone();
  }

  /** A message about this request before its response: from now on the answer is a stream. */
  relay(json: string): void {
    if (!this.over) this.toStream().write(json);
  }

  /** The request's response: the whole answer as JSON, or the stream's last event. */
  finish(id: JsonRpcId | null, reply: Reply): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.deadline);
    if (this.stream) {
      this.stream.write(replyJson(id, reply));
      this.stream.close();
    } else {
      this.resolve(jsonAnswer(id, reply, this.settings.jsonHeaders));
    }
  }

  /** No response will come (2025 era: the client cancelled the request): the answer ends as a stream without one. */
  abandon(): void {
    if (this.over) return;
    this.over = true;
    this.toStream().close();
  }

  /** The client's connection ended before the response: nothing more is sent on it. */
  private clientGone(): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.deadline);
    if (this.stream) this.stream.close();
    else this.resolve(new Response(null, { status: 204 }));
    this.gone();
  }

  private toStream(): SseStream {
    if (!this.stream) {
      clearTimeout(this.deadline);
      this.stream = new SseStream(() => this.clientGone(), this.settings.keepAliveMs);
      this.resolve(sseResponse(this.stream, this.settings.sessionId));
    }
    return this.stream;
  }
}

/**
 * A JSON answer, with the reply's status (200 unless a 2026-07-28 error names another). A frozen
 * result (`constantResult`: the same object every call, unchangeable) is serialized once and only
 * the envelope around it is built per call (protocol/frozen-json.ts); serializing a 12 KB
 * non-ASCII result is about 21 µs, a third of a call's server time. Otherwise `Response.json`
 * rather than a string body: measured over a socket, about 5 µs less server time a call (a string
 * body is turned into UTF-8 bytes once more on the way out).
 */
export function jsonAnswer(id: JsonRpcId | null, reply: Reply, headers: Headers | Record<string, string>): Response {
  const frozen = reply.ok ? frozenResultBytes(reply.result) : undefined;
  if (frozen) return new Response(responseBytes(id, frozen), { status: 200, headers });
  const status = reply.ok ? 200 : reply.status;
  // A refusal about load (`protocol/admission.ts`) says when to come back.
  if (!reply.ok && reply.retryAfter !== undefined) headers = retryAfter(headers, reply.retryAfter);
  const message = reply.ok ? { jsonrpc: "2.0", id, result: reply.result } : { jsonrpc: "2.0", id, error: reply.error };
  try {
    return Response.json(message, { status, headers });
  } catch {
    // A result that cannot be serialized still answers its request, with an error (replyJson says why).
    return new Response(replyJson(id, reply), { status, headers });
  }
}

function retryAfter(headers: Headers | Record<string, string>, seconds: number): Headers {
  const withRetry = new Headers(headers);
  withRetry.set("retry-after", String(seconds));
  return withRetry;
}
