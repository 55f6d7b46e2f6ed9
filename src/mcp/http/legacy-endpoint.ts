/**
 * The legacy era (2025-11-25 and earlier) over Streamable HTTP: mcpkit's session engine
 * (`legacy/session.ts`, no MCP SDK) on mcpkit's transport (`session-transport.ts`), one pair per
 * HTTP session and per `--stateless` request. What the engine sends while answering a request
 * goes on that request's POST; the answer itself ends the POST. When the transport ends (DELETE,
 * expiry, shutdown), the engine closes with it: work still running is aborted.
 */
import { SessionTransport, type SessionTransportOptions } from "./session-transport.ts";
import type { DispatcherOptions } from "../protocol/dispatcher.ts";
import { LegacySession } from "../legacy/session.ts";

export interface LegacyHttpSession {
  readonly engine: LegacySession;
  readonly transport: SessionTransport;
}

/** `closed` runs once the transport has ended, after the engine closed. */
export function openLegacyHttp(
  options: DispatcherOptions,
  transportOptions: SessionTransportOptions,
  closed?: () => void,
): LegacyHttpSession {
  const transport = new SessionTransport(transportOptions);
  const engine = new LegacySession(options, {
    send: (json, related) => transport.send(json, related),
    reply: (id, reply) => transport.reply(id, reply),
    requests: transport.requests,
  });
  transport.onmessage = (message, caller) => engine.deliver(message, caller);
  transport.onclose = () => {
    engine.close();
    closed?.();
  };
  return { engine, transport };
}
