/**
 * Everything the HTTP steps share, in one object built by `createHttpState`: the configuration,
 * the session table, the resource server, both eras' requests in flight, and the one piece of
 * mutable state (draining). `serveHttp` builds it, and so do the tests that run the pipeline in
 * process, so they run what the server runs.
 */
import type { Logger } from "../../core/log.ts";
import type { AuthServer } from "../auth-server/index.ts";
import type { DispatcherOptions as McpServerOptions } from "../protocol/dispatcher.ts";
import { type Idling, InFlight } from "../protocol/in-flight.ts";
import type { ResourceServer } from "./auth/resource-server.ts";
import type { HttpConfig } from "./config.ts";
import { type ModernHttpState, modernHttpState } from "./modern-endpoint.ts";
import { SessionStore } from "./session-store.ts";
import { keepAliveMs } from "./sse.ts";

export interface HttpState {
  readonly config: HttpConfig;
  readonly serverOptions: McpServerOptions;
  readonly log: Logger;
  /** The URL clients use, e.g. `https://mcp.example.com` (from --public-url or the bound address). */
  readonly publicUrl: URL;
  /** The canonical URI of the MCP endpoint (the OAuth resource), e.g. `https://mcp.example.com/mcp`. */
  readonly resource: string;
  /** Absent with --stateless. */
  readonly sessions: SessionStore | undefined;
  /** Absent without --auth. */
  readonly resourceServer: ResourceServer | undefined;
  /** With --auth oauth: mcpkit's own authorization server. */
  readonly authorizationServer?: AuthServer;
  /** Set once shutdown begins: new MCP requests get 503. */
  stopping: boolean;
  /** --stateless requests being served: shutdown waits for them, then answers the rest. */
  readonly statelessCalls: InFlight;
  /** The 2026-07-28 era: the same handlers, no sessions (`modern-endpoint.ts`). */
  readonly modern: ModernHttpState;
  /** Every part that answers requests, in the order shutdown cancels them once its grace is over. */
  readonly drainables: readonly Drainable[];
}

/** What shutdown asks of a part that answers requests: how many it is answering, when none, and to stop. */
export interface Drainable extends Idling {
  /** Answers every request still running with `reason` as an error, and ends what holds them. */
  cancelAll(reason: string): void | Promise<void>;
}

/** What only the running server knows: where it is reached, and who checks its tokens. */
export interface HttpStateSetting {
  publicUrl: URL;
  resourceServer?: ResourceServer;
  authorizationServer?: AuthServer;
}

export function createHttpState(
  config: HttpConfig,
  serverOptions: McpServerOptions,
  { publicUrl, resourceServer, authorizationServer }: HttpStateSetting,
): HttpState {
  const { log } = serverOptions;
  const sessions = config.stateless
    ? undefined
    : new SessionStore(
        { maxSessions: config.maxSessions, maxPerOwner: config.maxSessionsPerSubject, idleMs: config.sessionIdleMs },
        log,
      );
  const statelessCalls = new InFlight();
  const modern = modernHttpState(serverOptions, keepAliveMs(config.idleTimeoutS), {
    max: config.maxSessions,
    perOwner: config.maxSessionsPerSubject,
  });
  return {
    config,
    serverOptions,
    log,
    publicUrl,
    resource: resourceOf(publicUrl),
    sessions,
    resourceServer,
    authorizationServer,
    stopping: false,
    statelessCalls,
    modern,
    drainables: [statelessCalls, modern.inFlight, ...(sessions ? [sessionRequests(sessions)] : [])],
  };
}

/** The MCP endpoint under the public URL: `https://mcp.example.com/base/` → `https://mcp.example.com/base/mcp`. */
export function resourceOf(publicUrl: URL): string {
  return `${publicUrl.origin}${publicUrl.pathname.replace(/\/+$/, "")}/mcp`;
}

/** The requests in flight across every session; cancelling them ends every session too. */
function sessionRequests(store: SessionStore): Drainable {
  return {
    get size() {
      return store.pendingRequests;
    },
    whenIdle: () => store.whenIdle(),
    cancelAll: (reason) => store.closeAll(reason),
  };
}
