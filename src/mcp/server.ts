/**
 * The legacy era's edge over HTTP (MCP 2025-11-25 and earlier): one SDK `Server` per HTTP
 * session, which does the `initialize` handshake, `ping`, `logging/setLevel`, cancellation and
 * server-to-client requests. (On stdio the same era runs on mcpkit's own session engine,
 * `legacy/session.ts`, which answers as this Server does without loading the SDK.) Every other
 * request goes to mcpkit's protocol core (`protocol/dispatcher.ts`, shared with the modern era)
 * through the SDK's public `fallbackRequestHandler`: one handler for every method the core
 * answers, so the SDK adds no second parse of tools/call's params or result, and none of its
 * internals are patched.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type JSONRPCRequest,
  ListRootsResultSchema,
  RootsListChangedNotificationSchema,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { type ClientLogLevel, ErrorCode, ProtocolError } from "../core/tool.ts";
import { NAME, VERSION } from "../version.ts";
import { ROOTS_TIMEOUT_MS, cachedRoots, logLevelOf } from "./legacy/session.ts";
import { type DispatcherOptions, type RequestContext, dispatcherFor } from "./protocol/dispatcher.ts";
import { isRecord } from "./protocol/params.ts";

export type { ToolNaming } from "./protocol/dispatcher.ts";
export { capabilitiesOf, instructionsFor } from "./protocol/dispatcher.ts";

export type McpServerOptions = DispatcherOptions;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What one server (one client session) remembers between requests. */
interface SessionState {
  /** The level the client asked for with logging/setLevel; until it asks, debug stays in the server's log. */
  clientLevel: ClientLogLevel;
  /** The client's roots, cached; `notifications/roots/list_changed` drops them. */
  roots: Promise<string[]> | undefined;
}

/**
 * The SDK validates elicitation answers with this, and by default builds an Ajv instance per
 * server: 50-70 µs of every HTTP session opened and every --stateless request (2 µs without). mcpkit never
 * asks the client for input (no `elicitInput`), so nothing is ever validated.
 */
const NO_ELICITATION = {
  getValidator(): never {
    throw new Error("mcpkit does not use elicitation, so it validates no elicited input");
  },
};

export function createMcpServer(options: McpServerOptions): Server {
  const { log } = options;
  const dispatcher = dispatcherFor(options);
  const server = new Server(
    { name: NAME, version: VERSION },
    {
      capabilities: dispatcher.capabilities,
      instructions: dispatcher.instructions,
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  server.onerror = (error) => log.debug("protocol error", { error: error.message });
  const session: SessionState = { clientLevel: "info", roots: undefined };

  // The SDK's own logging/setLevel handler answers an unknown level with {} (or -32603 when the
  // params are malformed); ours refuses it with -32602. It runs through the fallback below.
  server.removeRequestHandler("logging/setLevel");
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    session.roots = undefined;
    log.debug("client roots changed");
  });
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra: Extra) => {
    const params = request.params ?? {};
    if (!isRecord(params)) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Invalid ${request.method} request: "params" must be an object.`,
      );
    }
    if (request.method === "logging/setLevel") {
      session.clientLevel = logLevelOf(params);
      return {};
    }
    const handler = dispatcher.handlers.get(request.method);
    if (!handler) throw new ProtocolError(ErrorCode.MethodNotFound, "Method not found");
    return (await handler(params, legacyContext(server, session, options, extra))) as ServerResult;
  };
  return server;
}

/** The core's view of a request on a legacy session: what the handshake declared, the session's level and roots. */
function legacyContext(server: Server, session: SessionState, { log }: McpServerOptions, extra: Extra): RequestContext {
  return {
    signal: extra.signal,
    scopes: extra.authInfo?.scopes,
    clientCapabilities: server.getClientCapabilities() as Record<string, unknown> | undefined,
    notify: (method, params) => {
      void extra
        .sendNotification({ method, params } as ServerNotification)
        .catch((error: Error) => log.debug(`${method} not delivered`, { error: error.message }));
    },
    logLevel: () => session.clientLevel,
    clientRoots: async () => {
      if (!server.getClientCapabilities()?.roots) return undefined;
      session.roots ??= cachedRoots(
        () =>
          extra
            .sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: ROOTS_TIMEOUT_MS })
            .then((result) => result.roots),
        () => {
          session.roots = undefined;
        },
        log,
      );
      return session.roots;
    },
  };
}
