/**
 * MCP's stdio framing: newline-delimited JSON-RPC on stdin/stdout, for both eras.
 *
 * The SDK's StdioServerTransport drops unparsable lines silently and closes itself when a line
 * outgrows its buffer; a server that must survive any input answers a bad line with a JSON-RPC
 * error (-32700 / -32600) and skips an oversized or too deeply nested line instead, so this
 * channel does that. It checks the JSON-RPC 2.0 shape itself (no SDK), so no stdio connection, of
 * either era, loads the SDK.
 *
 * What one client can make the server hold is bounded: a line at most MAX_LINE_BYTES (an oversized
 * one is skipped as it arrives, never buffered) and MAX_DEPTH deep (checked before `JSON.parse`,
 * whose cost grows with nesting), and stdin is read only while stdout keeps up. A client that
 * never reads its answers would otherwise have the server queue them all in memory (8 s of
 * `tools/list` took it from 30 to 240 MB): while stdout is full, or lines already read wait their
 * turn, stdin is paused, so the client's own writes block instead. A last line without a newline
 * is answered when the input ends.
 */
import type { Logger } from "../../core/log.ts";
import { ErrorCode } from "../../core/tool.ts";
import { type JsonRpcMessage, checkJsonRpcMessage } from "../protocol/message.ts";
import { isRecord } from "../protocol/params.ts";
import { nestsDeeperThan } from "../../core/json-depth.ts";

/**
 * A longer line is skipped and answered with -32600 (the same 1 MiB as an HTTP body by default);
 * its newline, and the `\r` of a `\r\n` ending, are not counted.
 */
const MAX_LINE_BYTES = 1024 * 1024;
/** Arrays and objects nested deeper are refused with -32600 before parsing; MCP messages need a handful of levels. */
const MAX_DEPTH = 64;
/**
 * Lines handled before the rest wait for the next turn of the event loop, where their answers
 * have been written: a 200 KiB chunk of stdin holds thousands of requests, and a full stdout
 * must be noticed before all of them are answered into memory.
 */
const LINES_PER_TURN = 64;

export type { JsonRpcMessage } from "../protocol/message.ts";

/**
 * What the channel reads from: the part of a Node readable stream it uses, which the stdio
 * server's `StdinReader` (native-stdio.ts) and a test's PassThrough both offer.
 */
export interface LineInput {
  on(event: "data" | "end" | "error", listener: StreamListener): unknown;
  off(event: "data" | "end" | "error", listener: StreamListener): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** What the channel writes to: the part of a Node writable stream it uses (`StdoutWriter`, a PassThrough). */
export interface LineOutput {
  /** False while the line waits for room (then `drain`); may throw when writing fails at once. */
  write(line: string): boolean;
  on(event: "drain" | "error", listener: StreamListener): unknown;
  off(event: "drain", listener: StreamListener): unknown;
}

/** A listener of either, typed as Node's: it is handed the chunk, or the error, or nothing. */
export type StreamListener = (...args: any[]) => void;

/** A complete line read from stdin, or the mark of one skipped for its size. */
type Line = Buffer | typeof OVERSIZED;
const OVERSIZED = Symbol("oversized line");
const NOTHING = Buffer.alloc(0);

export class LineChannel {
  /** Each well-formed message, in order. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Once, when the input ends or `close` is called. Messages can still be sent after the input ended. */
  onclose?: () => void;

  /** The start of a line whose newline has not arrived yet. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Set while the rest of an oversized line is skipped up to its newline. */
  private discarding = false;
  /** Input read but not yet cut into lines, in order: a chunk or two, as stdin is paused while any waits. */
  private readonly unread: Buffer[] = [];
  private inputEnded = false;
  private paused = false;
  private turnScheduled = false;
  private reading = true;
  /** Set by `close`: nothing more is written. */
  private closed = false;
  /** Set while stdout is full; resolves at its next `drain`. Every blocked write waits on this one promise. */
  private drained?: PromiseWithResolvers<void>;
  /** Set once stdout failed (the client closed it): answers are dropped, the input is still read to its end. */
  private outputFailed = false;

  constructor(
    private readonly input: LineInput,
    private readonly output: LineOutput,
    private readonly log?: Logger,
  ) {}

  start(): void {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onEnd);
    this.output.on("error", this.onOutputError);
  }

  /** Writes one message as one line; waits while the pipe is full. */
  async send(message: Record<string, unknown>): Promise<void> {
    if (this.closed) return;
    if (this.log?.enabled("trace")) this.log.trace("send", summarize(message));
    await this.write(`${JSON.stringify(message)}\n`);
  }

  /** Writes a message already serialized (one line of JSON, no newline). */
  async sendJson(json: string): Promise<void> {
    if (this.closed) return;
    await this.write(`${json}\n`);
  }

  /** Stops reading and writing. */
  close(): void {
    this.closed = true;
    this.stopReading();
  }

  private stopReading(): void {
    if (!this.reading) return;
    this.reading = false;
    this.unread.length = 0;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onEnd);
    this.onclose?.();
  }

  private write(line: string): Promise<void> | undefined {
    if (this.outputFailed) return;
    let accepted: boolean;
    try {
      accepted = this.output.write(line);
    } catch (error) {
      this.onOutputError(error);
      return;
    }
    if (!accepted) return this.whenDrained();
    return this.drained?.promise;
  }

  /** One waiter for `drain`, however many writes are blocked; stdin stays paused until then. */
  private whenDrained(): Promise<void> {
    if (!this.drained) {
      this.log?.trace("stdout is full: reading stdin paused until the client reads");
      this.drained = Promise.withResolvers<void>();
      this.output.on("drain", this.onDrain);
      this.updateInputFlow();
    }
    return this.drained.promise;
  }

  private readonly onDrain = () => {
    const waiting = this.drained;
    if (!waiting) return;
    this.output.off("drain", this.onDrain);
    this.drained = undefined;
    waiting.resolve();
    this.handleLines();
  };

  private readonly onOutputError = (error: unknown) => {
    if (this.outputFailed) return;
    this.outputFailed = true;
    this.log?.debug("stdout failed (the client closed it?): answers are dropped", {
      error: (error as { code?: unknown } | null)?.code ?? String(error),
    });
    this.onDrain();
  };

  private readonly onEnd = () => {
    this.inputEnded = true;
    this.handleLines();
  };

  private readonly onData = (chunk: Buffer | string) => {
    this.unread.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    this.handleLines();
  };

  /** Cuts the next complete line off the input read so far; at the end of the input, the last one without its newline. */
  private nextLine(): Line | undefined {
    for (let chunk = this.unread[0]; chunk !== undefined; chunk = this.unread[0]) {
      const newline = chunk.indexOf(10);
      if (newline === -1) {
        this.unread.shift();
        this.keepPartial(chunk);
        continue;
      }
      if (newline + 1 === chunk.length) this.unread.shift();
      else this.unread[0] = chunk.subarray(newline + 1);
      return this.completeLine(chunk.subarray(0, newline));
    }
    if (this.inputEnded && (this.discarding || this.partialBytes > 0)) return this.completeLine(NOTHING);
    return undefined;
  }

  /** The line that `tail` ends: what was kept of its start and `tail`, or OVERSIZED. */
  private completeLine(tail: Buffer): Line {
    if (this.discarding) {
      this.discarding = false;
      return OVERSIZED;
    }
    const carriageReturn = this.endsWithCarriageReturn(tail) ? 1 : 0;
    if (this.partialBytes + tail.length - carriageReturn > MAX_LINE_BYTES) {
      this.takePartial(NOTHING);
      return OVERSIZED;
    }
    return this.takePartial(tail);
  }

  /** Whether the line that `tail` ends ends in `\r` (a `\r\n` ending, whose `\r` the limit does not count). */
  private endsWithCarriageReturn(tail: Buffer): boolean {
    const last = tail.length > 0 ? tail : this.partial.at(-1);
    return last?.at(-1) === 13;
  }

  /** Keeps the start of a line until its newline arrives; once it is too long, skips the rest instead. */
  private keepPartial(data: Buffer): void {
    if (this.discarding) return;
    this.partialBytes += data.length;
    // One byte over is kept: it may be the `\r` of a `\r\n` ending, checked once the newline arrives.
    if (this.partialBytes > MAX_LINE_BYTES + 1) {
      this.takePartial(NOTHING);
      this.discarding = true;
    } else {
      // Copied: a chunk held across reads would otherwise keep the whole chunk it was cut from.
      this.partial.push(Buffer.from(data));
    }
  }

  private takePartial(tail: Buffer): Buffer {
    const line = this.partial.length === 0 ? tail : Buffer.concat([...this.partial, tail]);
    this.partial = [];
    this.partialBytes = 0;
    return line;
  }

  /** Whether a line may be waiting: input not cut yet, or a last line without its newline. */
  private linesWaiting(): boolean {
    return this.unread.length > 0 || (this.inputEnded && (this.discarding || this.partialBytes > 0));
  }

  /** Handles queued lines while stdout keeps up, LINES_PER_TURN at a time; the end of input once all are handled. */
  private handleLines(): void {
    for (let budget = LINES_PER_TURN; budget > 0 && this.reading && !this.drained; budget--) {
      const line = this.nextLine();
      if (line === undefined) break;
      this.handleLine(line);
    }
    if (!this.reading) return;
    const waiting = this.linesWaiting();
    if (!waiting && this.inputEnded) {
      this.stopReading();
      return;
    }
    if (waiting && !this.drained && !this.turnScheduled) {
      this.turnScheduled = true;
      setImmediate(this.nextTurn);
    }
    this.updateInputFlow();
  }

  private readonly nextTurn = () => {
    this.turnScheduled = false;
    this.handleLines();
  };

  /** Stdin flows only while no line waits and stdout is not full. */
  private updateInputFlow(): void {
    const wanted = this.reading && !this.inputEnded && this.unread.length === 0 && !this.drained;
    if (wanted === !this.paused) return;
    this.paused = !wanted;
    if (wanted) this.input.resume();
    else this.input.pause();
  }

  private handleLine(line: Line): void {
    if (line === OVERSIZED) {
      this.reject(
        ErrorCode.InvalidRequest,
        `Message too large: a line may hold at most ${MAX_LINE_BYTES} bytes; send a smaller message.`,
      );
      return;
    }
    const bytes = line.at(-1) === 13 ? line.subarray(0, -1) : line; // \r\n endings
    if (nestsDeeperThan(bytes, MAX_DEPTH)) {
      this.reject(
        ErrorCode.InvalidRequest,
        `Message too deeply nested: arrays and objects may nest at most ${MAX_DEPTH} levels; send a flatter message.`,
      );
      return;
    }
    let text: string;
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      // Read leniently, an id holding such bytes came back changed (U+FFFD), and no client could match it.
      this.reject(ErrorCode.ParseError, "Parse error: the line is not valid UTF-8 (JSON text is UTF-8, RFC 8259).");
      return;
    }
    if (text.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.reject(ErrorCode.ParseError, "Parse error: each line must be one JSON-RPC message in JSON.");
      return;
    }
    const checked = checkJsonRpcMessage(json);
    if (!checked.ok) {
      this.reject(ErrorCode.InvalidRequest, `Invalid Request: ${checked.why}`, json, checked.id);
      return;
    }
    const message = checked.message.body as JsonRpcMessage;
    if (this.log?.enabled("trace")) this.log.trace("receive", summarize(message));
    this.onmessage?.(message);
  }

  /** Answers a message that cannot be processed; with the request id when one can be recovered. */
  private reject(code: number, message: string, json?: unknown, id: string | number | null = null): void {
    if (json !== null && typeof json === "object" && !Array.isArray(json)) {
      // JSON-RPC: notifications are never answered, and neither are responses, malformed ones
      // included: an error under the id of the server's own request (roots/list's 0) would reach
      // the client as the answer to its request of that id.
      if ("method" in json ? !("id" in json) : "result" in json || "error" in json) {
        this.log?.debug("a malformed message that is not a request was dropped unanswered", { reason: message });
        return;
      }
    }
    void this.send({ jsonrpc: "2.0", ...(id === null ? {} : { id }), error: { code, message } });
  }
}

/** JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, not replaced. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** What trace logs show of a message: its kind, never its params (they may hold anything). */
function summarize(message: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if ("id" in message) fields.id = message.id;
  if ("method" in message) fields.method = message.method;
  if (isRecord(message.error)) fields.error = message.error.code;
  return fields;
}
