/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout.
 *
 * The SDK's StdioServerTransport drops unparsable lines silently and closes itself when a line
 * outgrows its buffer; a server that must survive any input answers a bad line with a JSON-RPC
 * error (-32700 / -32600) and skips an oversized line instead, so this transport does that.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../core/log.ts";
import { ErrorCode } from "../core/tool.ts";
import { type McpServerOptions, createMcpServer } from "./server.ts";

/** A line longer than this is discarded and answered with -32600. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly log?: Logger,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    if (this.log?.enabled("trace")) this.log.trace("send", summarize(message));
    const line = `${JSON.stringify(message)}\n`;
    if (!this.output.write(line)) await new Promise<void>((resolve) => this.output.once("drain", resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onEnd);
    this.onclose?.();
  }

  private readonly onEnd = () => {
    void this.close();
  };

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
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.reject(
        ErrorCode.InvalidRequest,
        "Invalid Request: expected a JSON-RPC 2.0 request, notification or response object.",
        json,
      );
      return;
    }
    if (this.log?.enabled("trace")) this.log.trace("receive", summarize(parsed.data));
    this.onmessage?.(parsed.data);
  }

  /** Answers a message that cannot be processed; with the request id when one can be recovered. */
  private reject(code: number, message: string, json?: unknown): void {
    const id = (json as { id?: unknown } | undefined)?.id;
    const validId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
    const isNotification =
      json !== null && typeof json === "object" && !Array.isArray(json) && "method" in json && !("id" in json);
    if (isNotification) return; // JSON-RPC: notifications are never answered
    void this.send({
      jsonrpc: "2.0",
      ...(validId === undefined ? {} : { id: validId }),
      error: { code, message },
    } as JSONRPCMessage);
  }
}

/** What trace logs show of a message: its kind, never its params (they may hold anything). */
function summarize(message: JSONRPCMessage): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if ("id" in message) fields.id = message.id;
  if ("method" in message) fields.method = message.method;
  if ("error" in message) fields.error = message.error.code;
  return fields;
}

export interface StdioServerHandle {
  /** Resolves when stdin has closed or `close` was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves MCP on this process's stdin/stdout until stdin closes or `close` is called. */
export async function serveStdio(options: McpServerOptions): Promise<StdioServerHandle> {
  const { toolsets, log } = options;
  const server = createMcpServer(options);
  const transport = new LineTransport(process.stdin, process.stdout, log);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  log.info("serving MCP on stdio", { toolsets: toolsets.map((t) => t.name).join(",") });
  return { closed, close: () => server.close() };
}
