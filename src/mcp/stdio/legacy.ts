/**
 * The legacy era (2025-11-25 and earlier) on stdio: the SDK's `Server` on mcpkit's line channel.
 * Loaded only when a connection opens with `initialize` (or anything else that is not modern),
 * so a 2026-07-28 client never pays for the SDK.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { InFlight, idleWithin } from "../in-flight.ts";
import { type McpServerOptions, createMcpServer } from "../server.ts";
import type { JsonRpcMessage, LineChannel } from "./lines.ts";

/** How long the end of stdin waits for answers still being worked on before the server closes. */
const DRAIN_MS = 10_000;

/**
 * The SDK's view of the channel. It also owns the requests in flight, so that the end of stdin
 * (a client that wrote its requests and closed the pipe) closes the server only once they are
 * answered, or cancelled, or after DRAIN_MS.
 */
class ChannelTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private ended = false;
  private readonly answers = new Map<string, () => void>();
  private readonly inFlight = new InFlight();

  constructor(private readonly channel: LineChannel) {}

  /** The channel is already reading: messages arrive through `deliver`. */
  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    try {
      await this.channel.send(message as Record<string, unknown>);
    } finally {
      if (!("method" in message) && "id" in message) this.settle(message.id);
    }
  }

  /** The server closes now (SIGTERM): calls in flight are not waited for. */
  async close(): Promise<void> {
    const first = !this.ended;
    this.ended = true;
    this.channel.close();
    if (first) this.onclose?.();
  }

  deliver(message: JsonRpcMessage): void {
    if (typeof message.method === "string" && "id" in message) {
      const key = JSON.stringify(message.id);
      if (!this.answers.has(key)) this.answers.set(key, this.inFlight.add({ cancel: () => this.settle(message.id) }));
    } else if (message.method === "notifications/cancelled") {
      // The SDK answers a cancelled request with nothing: it is no longer in flight.
      const params = message.params as { requestId?: unknown } | undefined;
      this.settle(params?.requestId);
    }
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  /** The input ended (or `close` stopped it): once nothing is in flight, the SDK server closes. */
  inputEnded(): void {
    if (this.ended) return;
    this.ended = true;
    void idleWithin(this.inFlight, DRAIN_MS).then(() => this.onclose?.());
  }

  private settle(id: unknown): void {
    const key = JSON.stringify(id);
    const done = this.answers.get(key);
    this.answers.delete(key);
    done?.();
  }
}

export interface LegacyConnection {
  deliver(message: JsonRpcMessage): void;
  inputEnded(): void;
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function connectLegacy(options: McpServerOptions, channel: LineChannel): Promise<LegacyConnection> {
  const server = createMcpServer(options);
  const transport = new ChannelTransport(channel);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  return {
    deliver: (message) => transport.deliver(message),
    inputEnded: () => transport.inputEnded(),
    closed,
    close: () => server.close(),
  };
}
