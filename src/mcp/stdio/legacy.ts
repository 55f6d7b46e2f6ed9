/**
 * The legacy era (2025-11-25 and earlier) on stdio: mcpkit's legacy session engine
 * (`legacy/session.ts`, no MCP SDK) on the line channel. The end of stdin (a client that wrote its
 * requests and closed the pipe) closes the session only once they are answered, or cancelled, or
 * after DRAIN_MS (a roots/list the client can no longer answer ends at once); SIGTERM closes it at once.
 */
import type { DispatcherOptions } from "../protocol/dispatcher.ts";
import { LegacySession } from "../legacy/session.ts";
import { DRAIN_MS, type StdioConnection } from "./connection.ts";
import type { LineChannel } from "./lines.ts";

export function connectLegacy(options: DispatcherOptions, channel: LineChannel): StdioConnection {
  const session = new LegacySession(options, { send: (json) => channel.sendJson(json) });
  const closed = Promise.withResolvers<void>();
  return {
    deliver: (message) => session.deliver(message),
    inputEnded: () => void session.inputEnded(DRAIN_MS).then(() => closed.resolve()),
    closed: closed.promise,
    close: async () => {
      session.close();
      channel.close();
      closed.resolve();
    },
  };
}
