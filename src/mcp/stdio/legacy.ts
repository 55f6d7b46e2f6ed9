/**
 * The legacy era (2025-11-25 and earlier) on stdio: mcpkit's legacy session engine
 * (`legacy/session.ts`, no MCP SDK) on the line channel. The end of stdin (a client that wrote its
 * requests and closed the pipe) closes the session only once they are answered, or cancelled, or
 * after DRAIN_MS; SIGTERM closes it at once.
 */
import type { DispatcherOptions } from "../protocol/dispatcher.ts";
import { LegacySession } from "../legacy/session.ts";
import type { JsonRpcMessage, LineChannel } from "./lines.ts";

/** How long the end of stdin waits for answers still being worked on before the server closes. */
const DRAIN_MS = 10_000;

export interface LegacyConnection {
  deliver(message: JsonRpcMessage): void;
  inputEnded(): void;
  closed: Promise<void>;
  close(): Promise<void>;
}

export function connectLegacy(options: DispatcherOptions, channel: LineChannel): LegacyConnection {
  const session = new LegacySession(options, { send: (json) => channel.sendJson(json) });
  const closed = Promise.withResolvers<void>();
  return {
    deliver: (message) => session.deliver(message),
    inputEnded: () => void session.drain(DRAIN_MS).then(() => closed.resolve()),
    closed: closed.promise,
    close: async () => {
      session.close();
      channel.close();
      closed.resolve();
    },
  };
}
