/**
 * MCP over stdio, both eras, decided per connection by its first message other than a probe (MCP
 * 2026-07-28 "Backward Compatibility"): a request carrying the per-request `_meta` envelope (or
 * `subscriptions/listen`) makes the process a 2026-07-28 server (`stdio/modern.ts`); `initialize`,
 * or anything else, makes it a 2025-11-25 (or earlier) server on mcpkit's legacy session engine
 * (`stdio/legacy.ts`). `server/discover` is a dual-era client's probe and fixes nothing: it is
 * answered in the modern era, and a client that gives up on it (the Vercel AI SDK waits 1 s) and
 * falls back to `initialize` still gets a 2025-11-25 session; a `notifications/cancelled` sent
 * before the era is fixed reaches the probe. After a probe, any message but `initialize` fixes the
 * modern era. Both are mcpkit's own code on the
 * protocol core: neither era loads the MCP SDK, whose modules took as long to evaluate as the rest
 * of start-up. Lines that are not JSON-RPC are answered by the channel itself and decide nothing.
 */
import { createModernServer } from "../modern/core.ts";
import { type DispatcherOptions, dispatcherFor } from "../protocol/dispatcher.ts";
import { isRecord } from "../protocol/params.ts";
import { META, isModernVersion } from "../protocol/versions.ts";
import { type JsonRpcMessage, LineChannel } from "./lines.ts";
import type { StdioConnection } from "./connection.ts";
import { connectLegacy } from "./legacy.ts";
import { connectModern } from "./modern.ts";
import { StdinReader, StdoutWriter } from "./native-stdio.ts";

export interface StdioServerHandle {
  /** Resolves when stdin has closed or `close` was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** The protocol version a message's `_meta` envelope names, if it carries the key. */
function envelopeVersion(message: JsonRpcMessage): { version: unknown } | undefined {
  const meta = isRecord(message.params) ? message.params._meta : undefined;
  return isRecord(meta) && META.protocolVersion in meta ? { version: meta[META.protocolVersion] } : undefined;
}

/** Whether a connection's first message opens the modern era: an envelope naming a modern version. */
function opensModernEra(message: JsonRpcMessage): boolean {
  const envelope = envelopeVersion(message);
  if (envelope) return isModernVersion(envelope.version);
  return message.method === "server/discover" || message.method === "subscriptions/listen";
}

/**
 * Whether a message, arriving before the era is fixed, leaves it open: `server/discover` (the
 * probe), the cancellation of a probe that timed out, and a request whose envelope names a
 * version this server does not serve in the modern era (answered -32022, which tells the client
 * to fall back to `initialize`: fixing the era there made that fallback fail). Everything else
 * fixes the era; an `initialize` with such an envelope opens the 2025 era it asks for.
 */
function leavesEraOpen(message: JsonRpcMessage, probing: boolean): boolean {
  if (message.method === "server/discover") return "id" in message;
  if (message.method !== "initialize" && "id" in message && envelopeVersion(message) && !opensModernEra(message))
    return true;
  return probing && message.method === "notifications/cancelled" && !("id" in message);
}

/** Serves MCP on this process's stdin/stdout until stdin closes or `close` is called. */
export async function serveStdio(options: DispatcherOptions): Promise<StdioServerHandle> {
  const { toolsets, log } = options;
  const channel = new LineChannel(new StdinReader(), new StdoutWriter(), log);
  const ended = Promise.withResolvers<void>();
  /** The era's connection, once a message other than a probe has fixed it. */
  let connection: StdioConnection | undefined;
  /** The modern connection that answered probes; it becomes the connection if the era turns out modern. */
  let probe: StdioConnection | undefined;
  const openModern = (): StdioConnection => {
    const server = createModernServer({ dispatcher: dispatcherFor(options), log, transport: "stdio" });
    return connectModern(server, channel);
  };
  const open = (first: JsonRpcMessage): StdioConnection => {
    // After a probe only the 2025-11-25 handshake falls back: a request without its envelope
    // is a modern client's slip, answered -32602 naming `_meta`.
    if (opensModernEra(first) || (probe && first.method !== "initialize")) {
      log.debug("2026-07-28 client: serving the modern era on this connection");
      return probe ?? openModern();
    }
    log.debug("legacy client: serving the 2025-11-25 era on this connection");
    return connectLegacy(options, channel);
  };
  /** The connections that may still be writing: a probe's answer can outlive a fallback to the legacy era. */
  const live = () => [...new Set([probe, connection])].filter((c) => c !== undefined);

  channel.onclose = () => {
    ended.resolve();
    for (const c of live()) c.inputEnded();
  };
  channel.onmessage = (message) => {
    if (!connection && leavesEraOpen(message, probe !== undefined)) {
      probe ??= openModern();
      probe.deliver(message);
      return;
    }
    connection ??= open(message);
    connection.deliver(message);
  };
  channel.start();
  log.info("serving MCP on stdio", { toolsets: toolsets.map((t) => t.name).join(",") });

  const closed = ended.promise.then(async () => {
    await Promise.all(live().map((c) => c.closed));
  });
  return {
    closed,
    close: async () => {
      const writing = live();
      if (writing.length === 0) channel.close();
      await Promise.all(writing.map((c) => c.close()));
    },
  };
}
