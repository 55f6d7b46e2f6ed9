/**
 * Everything the HTTP steps share, in one object: the configuration, the session table, the
 * resource server, and the two pieces of mutable state (draining, stateless calls in flight).
 */
import type { InFlight } from "../protocol/in-flight.ts";
import type { Logger } from "../../core/log.ts";
import type { ModernHttpState } from "./modern-endpoint.ts";
import type { DispatcherOptions as McpServerOptions } from "../protocol/dispatcher.ts";
import type { AuthServer } from "../auth-server/index.ts";
import type { ResourceServer } from "./auth/resource-server.ts";
import type { HttpConfig } from "./config.ts";
import type { SessionStore } from "./session-store.ts";

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
  /**
   * The 2026-07-28 era: the same handlers, no sessions (`modern-endpoint.ts`). Built by `serveHttp`;
   * a pipeline made without it builds its own (then shutdown does not wait for its requests).
   */
  modern?: ModernHttpState;
}
