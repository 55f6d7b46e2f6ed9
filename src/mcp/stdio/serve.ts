/**
 * MCP over stdio, both eras, decided per connection by its first message (MCP 2026-07-28
 * "Backward Compatibility"): a request carrying the per-request `_meta` envelope (or
 * `server/discover`, a dual-era client's probe) makes the process a 2026-07-28 server
 * (`stdio/modern.ts`); `initialize`, or anything else, makes it a 2025-11-25 (or earlier) server
 * on mcpkit's legacy session engine (`stdio/legacy.ts`). Both are mcpkit's own code on the
 * protocol core: neither era loads the MCP SDK, whose modules took as long to evaluate as the rest
 * of start-up. Lines that are not JSON-RPC are answered by the channel itself and decide nothing.
 */
import { createModernServer } from "../modern/core.ts";
import { type DispatcherOptions, dispatcherFor } from "../protocol/dispatcher.ts";
import { isRecord } from "../protocol/params.ts";
import { META } from "../protocol/versions.ts";
import { type JsonRpcMessage, LineChannel } from "./lines.ts";
import type { StdioConnection } from "./connection.ts";
import { connectLegacy } from "./legacy.ts";
import { connectModern } from "./modern.ts";

export interface StdioServerHandle {
  /** Resolves when stdin has closed or `close` was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Whether a connection's first message opens the modern era. */
export function opensModernEra(message: JsonRpcMessage): boolean {
  const meta = isRecord(message.params) ? message.params._meta : undefined;
  if (isRecord(meta) && META.protocolVersion in meta) return true;
  return message.method === "server/discover" || message.method === "subscriptions/listen";
}

/** Serves MCP on this process's stdin/stdout until stdin closes or `close` is called. */
export async function serveStdio(options: DispatcherOptions): Promise<StdioServerHandle> {
  const { toolsets, log } = options;
  const channel = new LineChannel(process.stdin, process.stdout, log);
  const ended = Promise.withResolvers<void>();
  let connection: StdioConnection | undefined;

  const open = (first: JsonRpcMessage): StdioConnection => {
    if (opensModernEra(first)) {
      log.debug("2026-07-28 client: serving the modern era on this connection");
      const server = createModernServer({ dispatcher: dispatcherFor(options), log, transport: "stdio" });
      return connectModern(server, channel);
    }
    log.debug("legacy client: serving the 2025-11-25 era on this connection");
    return connectLegacy(options, channel);
  };

  channel.onclose = () => {
    ended.resolve();
    connection?.inputEnded();
  };
  channel.onmessage = (message) => {
    connection ??= open(message);
    connection.deliver(message);
  };
  channel.start();
  log.info("serving MCP on stdio", { toolsets: toolsets.map((t) => t.name).join(",") });

  const closed = ended.promise.then(() => connection?.closed);
  return {
    closed,
    close: async () => {
      if (connection) await connection.close();
      else channel.close();
    },
  };
}
