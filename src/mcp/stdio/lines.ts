/**
 * MCP's stdio framing: newline-delimited JSON-RPC on stdin/stdout, for both eras.
 *
 * The SDK's StdioServerTransport drops unparsable lines silently and closes itself when a line
 * outgrows its buffer; a server that must survive any input answers a bad line with a JSON-RPC
 * error (-32700 / -32600) and skips an oversized line instead, so this channel does that. It
 * checks the JSON-RPC 2.0 shape itself (no SDK), so the 2026-07-28 era never loads the SDK.
 */
import type { Logger } from "../../core/log.ts";
import { ErrorCode } from "../../core/tool.ts";
import { isRecord } from "../protocol/params.ts";

/** A line longer than this is discarded and answered with -32600. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** One JSON-RPC 2.0 message, shape-checked: a request, a notification or a response. */
export type JsonRpcMessage = Record<string, unknown> & { jsonrpc: "2.0" };

const isId = (id: unknown) => typeof id === "string" || (typeof id === "number" && Number.isInteger(id));

/** Whether `json` is a JSON-RPC 2.0 request, notification or response, as MCP allows them. */
export function isJsonRpcMessage(json: unknown): json is JsonRpcMessage {
  if (!isRecord(json) || json.jsonrpc !== "2.0") return false;
  if ("method" in json) {
    if (typeof json.method !== "string") return false;
    if (json.params !== undefined && !isRecord(json.params)) return false;
    return !("id" in json) || isId(json.id);
  }
  if (!isId(json.id)) return false;
  if ("result" in json) return isRecord(json.result) && !("error" in json);
  const error = json.error;
  return isRecord(error) && Number.isInteger(error.code) && typeof error.message === "string";
}

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
    if (!this.output.write(line)) await new Promise<void>((resolve) => this.output.once("drain", resolve));
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
    if (!isJsonRpcMessage(json)) {
      this.reject(
        ErrorCode.InvalidRequest,
        "Invalid Request: expected a JSON-RPC 2.0 request, notification or response object.",
        json,
      );
      return;
    }
    if (this.log?.enabled("trace")) this.log.trace("receive", summarize(json));
    this.onmessage?.(json);
  }

  /** Answers a message that cannot be processed; with the request id when one can be recovered. */
  private reject(code: number, message: string, json?: unknown): void {
    const id = (json as { id?: unknown } | undefined)?.id;
    const validId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
    const isNotification =
      json !== null && typeof json === "object" && !Array.isArray(json) && "method" in json && !("id" in json);
    if (isNotification) return; // JSON-RPC: notifications are never answered
    void this.send({ jsonrpc: "2.0", ...(validId === undefined ? {} : { id: validId }), error: { code, message } });
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
