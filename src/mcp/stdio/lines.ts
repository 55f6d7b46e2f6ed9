/**
 * MCP's stdio framing: newline-delimited JSON-RPC on stdin/stdout, for both eras.
 *
 * The SDK's StdioServerTransport drops unparsable lines silently and closes itself when a line
 * outgrows its buffer; a server that must survive any input answers a bad line with a JSON-RPC
 * error (-32700 / -32600) and skips an oversized line instead, so this channel does that. It
 * checks the JSON-RPC 2.0 shape itself (no SDK), so no stdio connection, of either era, loads the SDK.
 */
import type { Logger } from "../../core/log.ts";
import { ErrorCode } from "../../core/tool.ts";
import { type JsonRpcMessage, checkJsonRpcMessage } from "../protocol/message.ts";
import { isRecord } from "../protocol/params.ts";

/** A line longer than this is discarded and answered with -32600. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export type { JsonRpcMessage } from "../protocol/message.ts";

export class LineChannel {
  /** Each well-formed message, in order. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Once, when the input ends or `close` is called. Messages can still be sent after the input ended. */
  onclose?: () => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private reading = true;
  /** Set by `close`: nothing more is written. */
  private closed = false;
  /** Set while stdout is full; resolves at its next `drain`. Every blocked write waits on this one promise. */
  private drained?: Promise<void>;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly log?: Logger,
  ) {}

  start(): void {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onEnd);
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
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onEnd);
    this.onclose?.();
  }

  private async write(line: string): Promise<void> {
    if (this.output.write(line)) return;
    // One listener however many writes are blocked: a flood of requests blocked thousands at once.
    this.drained ??= new Promise<void>((resolve) =>
      this.output.once("drain", () => {
        this.drained = undefined;
        resolve();
      }),
    );
    await this.drained;
  }

  private readonly onEnd = () => this.stopReading();

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let newline = data.indexOf(10);
    while (newline !== -1) {
      const tail = data.subarray(0, newline);
      if (this.discarding) {
        this.discarding = false;
        this.reject(ErrorCode.InvalidRequest, `Message too large: a line may hold at most ${MAX_LINE_BYTES} bytes.`);
      } else {
        this.pending.push(tail);
        const line = Buffer.concat(this.pending).toString("utf8");
        this.pending = [];
        this.pendingBytes = 0;
        this.handleLine(line);
      }
      data = data.subarray(newline + 1);
      newline = data.indexOf(10);
    }
    if (data.length === 0 || this.discarding) return;
    this.pendingBytes += data.length;
    if (this.pendingBytes > MAX_LINE_BYTES) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
    } else {
      this.pending.push(data);
    }
  };

  private handleLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
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
    const isNotification =
      json !== null && typeof json === "object" && !Array.isArray(json) && "method" in json && !("id" in json);
    if (isNotification) return; // JSON-RPC: notifications are never answered
    void this.send({ jsonrpc: "2.0", ...(id === null ? {} : { id }), error: { code, message } });
  }
}

/** What trace logs show of a message: its kind, never its params (they may hold anything). */
function summarize(message: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if ("id" in message) fields.id = message.id;
  if ("method" in message) fields.method = message.method;
  if (isRecord(message.error)) fields.error = message.error.code;
  return fields;
}
