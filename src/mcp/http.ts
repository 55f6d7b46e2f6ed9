/**
 * `mcpkit --http`: MCP Streamable HTTP (2025-11-25) on `Bun.serve`, through the SDK's
 * web-standard transport (no express).
 *
 * Routing, in the order a request meets it:
 *   /healthz                                   200, no authorization (load balancers)
 *   /.well-known/oauth-protected-resource[/mcp] RFC 9728 metadata (with --auth jwt)
 *   /mcp   Host/Origin allow-lists (403) → bearer token (401/403) → body cap (413) and JSON-RPC
 *          checks (-32700/-32600) → tool scope (403) → session routing (400/404/503) → SDK.
 */
import { randomBytes } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "../core/log.ts";
import type { Toolset } from "../core/tool.ts";
import { type Authenticated, type ResourceServer, createResourceServer } from "./auth/resource-server.ts";
import { createRequestGuard } from "./http-guards.ts";
import { type IncomingMessage, jsonRpcErrorResponse, readJsonRpcBody } from "./http-jsonrpc.ts";
import type { HttpConfig } from "./http-options.ts";
import { type Session, SessionStore, trackResponses } from "./http-sessions.ts";
import { isScopeGranted, toolScope } from "./scopes.ts";
import { type McpServerOptions, createMcpServer } from "./server.ts";

/** SSE comment keep-alives, well under Bun's 10 s idle timeout, so quiet streams stay open. */
const SSE_KEEP_ALIVE_MS = 5000;
/** How long SIGTERM waits for in-flight tool calls before closing sessions anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** Seconds a client should wait before retrying when the session cap is reached. */
const RETRY_AFTER_SECONDS = 5;
/** JSON-RPC code the SDK and spec examples use for transport-level refusals. */
const TRANSPORT_ERROR = -32000;

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp` (the bound port when 0 was asked for). */
  url: string;
  /** Graceful shutdown: stop accepting, let in-flight calls finish (bounded), close sessions. */
  close(): Promise<void>;
  /** Resolves once the server has shut down (SIGTERM/SIGINT or `close`); toolsets are the caller's to close. */
  closed: Promise<void>;
}

export async function serveHttp(config: HttpConfig, serverOptions: McpServerOptions): Promise<HttpServerHandle> {
  const { toolsets, log } = serverOptions;
  const sessions = config.stateless ? undefined : new SessionStore(config.maxSessions, config.sessionIdleMs, log);
  let statelessInFlight = 0;
  let stopping = false;

  // Filled in once the socket is bound (port 0 resolves to a real port only then).
  let guard: ReturnType<typeof createRequestGuard>;
  let resourceServer: ResourceServer | undefined;

  const bun = Bun.serve({
    hostname: config.host,
    port: config.port,
    async fetch(request) {
      const started = performance.now();
      const response = await route(request);
      if (log.enabled("debug")) {
        log.debug("http", {
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          ms: Math.round(performance.now() - started),
        });
      }
      return response;
    },
    error(error) {
      log.error("http handler failed", { error: error.message });
      return jsonRpcErrorResponse(500, -32603, "Internal error; the server log has details.");
    },
  });

  const boundHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  const publicUrl = new URL(config.publicUrl ?? `http://${boundHost === "0.0.0.0" || boundHost === "[::]" ? "127.0.0.1" : boundHost}:${bun.port}`);
  const resource = `${publicUrl.origin}${publicUrl.pathname.replace(/\/+$/, "")}/mcp`;
  guard = createRequestGuard({ boundHost: config.host, publicUrl, allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins });
  if (config.auth.kind === "jwt") {
    resourceServer = createResourceServer({
      resource,
      issuer: config.auth.issuer,
      audience: config.auth.audience ?? [resource, `${resource}/`],
      jwksUrl: config.auth.jwksUrl,
      requiredScopes: config.auth.requiredScopes,
      scopesSupported: [...new Set(toolsets.flatMap((toolset) => toolset.tools.map((tool) => tool.scope)))],
      log,
    });
    void resourceServer.warmUp();
  }

  const url = `http://${boundHost}:${bun.port}/mcp`;
  log.info(`listening on ${url}`, {
    mode: config.stateless ? "stateless" : "sessions",
    auth: config.auth.kind,
    ...(config.publicUrl ? { resource } : {}),
  });

  async function route(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/healthz") {
      return Response.json({ status: stopping ? "stopping" : "ok", sessions: sessions?.size ?? 0 }, { status: stopping ? 503 : 200 });
    }
    if (resourceServer?.metadataPaths.includes(path)) {
      if (request.method === "OPTIONS") return preflight("*", "GET, OPTIONS");
      if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed("GET");
      return resourceServer.metadataResponse();
    }
    if (path !== "/mcp") {
      return jsonRpcErrorResponse(404, TRANSPORT_ERROR, `Not Found: ${path}. The MCP endpoint is /mcp.`);
    }
    if (stopping) {
      return jsonRpcErrorResponse(503, TRANSPORT_ERROR, "Service Unavailable: the server is shutting down; retry against another instance.", {
        headers: { "retry-after": String(RETRY_AFTER_SECONDS), connection: "close" },
      });
    }
    const refusal = guard.refuse(request);
    if (refusal) {
      log.warn("request refused", { reason: refusal });
      return jsonRpcErrorResponse(403, TRANSPORT_ERROR, refusal);
    }
    const origin = request.headers.get("origin");
    if (request.method === "OPTIONS") return preflight(origin ?? "*", "GET, POST, DELETE, OPTIONS");
    const response = await routeMcp(request);
    return origin ? withCors(response, origin) : response;
  }

  async function routeMcp(request: Request): Promise<Response> {
    let caller: Authenticated | undefined;
    if (resourceServer) {
      const result = await resourceServer.authenticate(request);
      if (result instanceof Response) return result;
      caller = result;
    }
    switch (request.method) {
      case "POST":
        return post(request, caller);
      case "GET":
      case "DELETE": {
        if (!sessions) return methodNotAllowed("POST", "this server is stateless: there are no sessions to stream from or end.");
        const found = findSession(request, caller);
        if (found instanceof Response) return found;
        const response = await forward(found, request, undefined, caller?.authInfo);
        return request.method === "GET" ? flushSseHeaders(response) : response;
      }
      default:
        return methodNotAllowed(sessions ? "GET, POST, DELETE" : "POST");
    }
  }

  async function post(request: Request, caller: Authenticated | undefined): Promise<Response> {
    const read = await readJsonRpcBody(request, config.maxBodyBytes);
    if (!read.ok) return read.response;
    const message = read.message;

    if (resourceServer && caller && message.method === "tools/call") {
      const name = (message.body.params as { name?: unknown } | undefined)?.name;
      const needed = typeof name === "string" ? toolScope(toolsets, name) : undefined;
      // Unknown tools fall through: the server answers them with -32602 like any other mistake.
      if (needed !== undefined && !isScopeGranted(caller.authInfo.scopes, needed)) {
        log.info("tool call refused: insufficient scope", { tool: name, needed });
        return resourceServer.insufficientScope(needed, String(name), message.id ?? null);
      }
    }

    if (!sessions) return serveStateless(request, message, caller?.authInfo);

    if (request.headers.get("mcp-session-id") === null) {
      if (message.method !== "initialize") {
        return jsonRpcErrorResponse(
          400,
          TRANSPORT_ERROR,
          "Bad Request: missing Mcp-Session-Id header. Send initialize first, then send the mcp-session-id it returns on every later request.",
          { id: message.id ?? null },
        );
      }
      return openSession(sessions, request, message, caller);
    }
    const found = findSession(request, caller);
    if (found instanceof Response) return found;
    return forward(found, request, message, caller?.authInfo);
  }

  /** The session named by the request, or 400/404. Another subject's session is "not found" too. */
  function findSession(request: Request, caller: Authenticated | undefined): Session | Response {
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      return jsonRpcErrorResponse(400, TRANSPORT_ERROR, "Bad Request: missing Mcp-Session-Id header; send the mcp-session-id that initialize returned.");
    }
    const session = sessions?.get(id);
    if (!session || session.subject !== caller?.subject) {
      if (session) log.warn("session used with another subject's token; answering 404", { session: id.slice(0, 8) });
      return jsonRpcErrorResponse(404, -32001, "Session not found: it expired, was deleted, or never existed. Send initialize without Mcp-Session-Id to start a new one.");
    }
    return session;
  }

  async function openSession(store: SessionStore, request: Request, message: IncomingMessage, caller: Authenticated | undefined): Promise<Response> {
    if (!store.reserve()) {
      log.warn("session cap reached; refusing initialize", { maxSessions: config.maxSessions });
      return jsonRpcErrorResponse(
        503,
        TRANSPORT_ERROR,
        `Service Unavailable: this server already holds its maximum of ${config.maxSessions} sessions (--max-sessions). Retry after ${RETRY_AFTER_SECONDS} seconds, or end unused sessions with DELETE.`,
        { id: message.id ?? null, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } },
      );
    }
    const server = createMcpServer(serverOptions);
    const pending = new Set<string | number>();
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      // 256 random bits, base64url: visible ASCII as the spec requires, and unguessable.
      sessionIdGenerator: () => randomBytes(32).toString("base64url"),
      onsessioninitialized: (id) => {
        session = { id, server, transport, subject: caller?.subject, lastActive: Date.now(), pending };
        store.add(session);
      },
      keepAliveMs: SSE_KEEP_ALIVE_MS,
      maxRequestBodySize: config.maxBodyBytes,
    });
    transport.onclose = () => {
      if (session) store.forget(session.id);
    };
    trackResponses(transport, pending, () => {
      if (session) session.lastActive = Date.now();
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: message.body, authInfo: caller?.authInfo });
    } finally {
      if (!session) {
        // The SDK refused the initialize (bad headers, say): give the slot back.
        store.release();
        void server.close();
      }
    }
  }

  async function forward(session: Session, request: Request, message: IncomingMessage | undefined, authInfo: AuthInfo | undefined): Promise<Response> {
    session.lastActive = Date.now();
    const id = message?.isRequest ? (message.id as string | number) : undefined;
    if (id !== undefined) session.pending.add(id);
    if (message?.method === "notifications/cancelled") {
      // The SDK sends no response for a cancelled request: without this the id would stay
      // pending forever, so the session would never expire and shutdown would wait it out.
      const cancelled = (message.body.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof cancelled === "string" || typeof cancelled === "number") session.pending.delete(cancelled);
    }
    try {
      const response = await session.transport.handleRequest(request, { parsedBody: message?.body, authInfo });
      // Anything but an open SSE stream means the request never reached a handler.
      if (id !== undefined && response.status !== 200) session.pending.delete(id);
      return response;
    } catch (error) {
      if (id !== undefined) session.pending.delete(id);
      throw error;
    } finally {
      session.lastActive = Date.now();
    }
  }

  /** `--stateless`: a fresh server per request, answering with plain JSON, closed right after. */
  async function serveStateless(request: Request, message: IncomingMessage, authInfo: AuthInfo | undefined): Promise<Response> {
    const server = createMcpServer(serverOptions);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: config.maxBodyBytes,
    });
    await server.connect(transport);
    statelessInFlight++;
    try {
      return await transport.handleRequest(request, { parsedBody: message.body, authInfo });
    } finally {
      statelessInFlight--;
      void server.close();
    }
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;

  const close = () => {
    closing ??= (async () => {
      stopping = true;
      log.info("shutting down: no new connections; waiting for calls in flight");
      void bun.stop(false);
      const deadline = Date.now() + (config.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
      const inFlight = () => (sessions?.pendingRequests ?? 0) + statelessInFlight;
      while (inFlight() > 0 && Date.now() < deadline) await Bun.sleep(25);
      if (inFlight() > 0) log.warn("shutdown grace period over; cancelling calls still running", { calls: inFlight() });
      await sessions?.closeAll("The server is shutting down and cancelled this call; retry it once the server is back.");
      await bun.stop(true);
      log.info("stopped");
      resolveClosed();
    })();
    return closing;
  };

  // The caller awaits `closed`, then closes the toolsets and exits.
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void close());

  return { url, close, closed };
}

/**
 * Bun sends a streamed response's headers with its first chunk, and the SDK's GET stream stays
 * silent until there is something to say; an SSE comment up front lets the client see 200 now.
 */
function flushSseHeaders(response: Response): Response {
  if (response.status !== 200 || !response.body || !response.headers.get("content-type")?.includes("text/event-stream")) return response;
  const opened = new TextEncoder().encode(": stream open\n\n");
  const source = response.body.getReader();
  let sentOpening = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentOpening) {
        sentOpening = true;
        controller.enqueue(opened);
        return;
      }
      const { done, value } = await source.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

function methodNotAllowed(allow: string, why?: string): Response {
  return jsonRpcErrorResponse(405, TRANSPORT_ERROR, `Method Not Allowed${why ? `: ${why}` : `; use ${allow}.`}`, { headers: { allow } });
}

function preflight(origin: string, methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": methods,
      "access-control-allow-headers": "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
      "access-control-max-age": "600",
      vary: "origin",
    },
  });
}

/** Browser clients on an allowed origin must be able to read the session id and the challenge. */
function withCors(response: Response, origin: string): Response {
  response.headers.set("access-control-allow-origin", origin);
  response.headers.set("access-control-expose-headers", "mcp-session-id, www-authenticate");
  response.headers.append("vary", "origin");
  return response;
}
