/**
 * `mcpkit --http`: MCP Streamable HTTP (2025-11-25) on `Bun.serve`, through the SDK's
 * web-standard transport (no express). The request pipeline is in `pipeline.ts`; this file binds
 * the socket, builds the shared state, and shuts down gracefully when asked. Signals are the
 * caller's (the CLI calls `close()` on SIGTERM/SIGINT), so a server can be started and closed
 * in-process by tests and embedders.
 */
import { jitAtNormalPace } from "../../core/jit-policy.ts";
import type { Logger } from "../../core/log.ts";
import { ConfigError } from "../../core/options.ts";
import { describeStoreUrl, scrubStoreSecrets, storeUrlSecrets } from "../../core/store-url.ts";
import { ErrorCode } from "../../core/tool.ts";
import type { AuthServer } from "../auth-server/index.ts";
import { type DispatcherOptions as McpServerOptions, dispatcherFor } from "../protocol/dispatcher.ts";
import { HIDDEN_FAILURE } from "../protocol/errors.ts";
import { idleWithin } from "../protocol/in-flight.ts";
import { createResourceServer } from "./auth/resource-server.ts";
import { type HttpConfig, shutdownGraceMs } from "./config.ts";
import { createHostOriginCheck } from "./host-origin.ts";
import { jsonRpcErrorResponse } from "./jsonrpc-errors.ts";
import { createPipeline, withRequestLog } from "./pipeline.ts";
import { traceHttp } from "../../core/telemetry/index.ts";
import { type HttpState, createHttpState, resourceOf } from "./state.ts";

/** The longest shutdown waits for its last answers to be written before closing connections. */
const ANSWERS_FLUSH_MS = 1_000;

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp` (the bound port when 0 was asked for). */
  url: string;
  /** Graceful shutdown: stop accepting, let in-flight calls finish (bounded), close sessions. */
  close(): Promise<void>;
  /** Resolves once the server has shut down (`close`); toolsets are the caller's to close. */
  closed: Promise<void>;
}

export async function serveHttp(config: HttpConfig, serverOptions: McpServerOptions): Promise<HttpServerHandle> {
  const { log } = serverOptions;
  // Assigned right after binding, before the event loop can deliver a request.
  let handle!: (request: Request) => Promise<Response>;
  const bun = bind(config, (request) => handle(request), log);

  const boundHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  const publicUrl = new URL(
    config.publicUrl ??
      `http://${boundHost === "0.0.0.0" || boundHost === "[::]" ? "127.0.0.1" : boundHost}:${bun.port}`,
  );
  const resource = resourceOf(publicUrl);
  let authorizationServer: AuthServer | undefined;
  try {
    authorizationServer = await startAuthorizationServer(config, serverOptions, publicUrl);
  } catch (error) {
    await bun.stop(true);
    throw error;
  }
  // The resource server fetches the keys of its own authorization server over loopback, not through a proxy.
  const localOrigin = `http://${config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : boundHost}:${bun.port}`;
  const state = createHttpState(config, serverOptions, {
    publicUrl,
    resourceServer: createAuth(config, serverOptions, resource, authorizationServer, localOrigin),
    authorizationServer,
  });
  void state.resourceServer?.warmUp();
  const hostOriginCheck = createHostOriginCheck({
    boundHost: config.host,
    publicUrl,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
  });
  handle = traceHttp(
    withRequestLog(
      createPipeline(state, hostOriginCheck, (request) => bun.requestIP(request)?.address),
      log,
    ),
  );

  const url = `http://${boundHost}:${bun.port}/mcp`;
  // Listening: what runs from now on repeats with every request (core/jit-policy.ts).
  jitAtNormalPace();
  log.info(`listening on ${url}`, {
    mode: config.stateless ? "stateless" : "sessions",
    auth: config.gatewayAuth ? "by the gateway in front (--gateway-auth)" : config.auth.kind,
    ...(config.publicUrl ? { resource } : {}),
  });
  // The readiness line, whatever --log-level says: with --http 0 it is the only way to learn the port.
  if (!log.enabled("info")) process.stderr.write(`mcpkit: listening on ${url}\n`);
  const closed = Promise.withResolvers<void>();
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= shutDown(state, bun).then(closed.resolve);
    return closing;
  };
  return { url, close, closed: closed.promise };
}

/** Binds the socket; a port in use is reported with the address and port that were asked for. */
function bind(config: HttpConfig, fetch: (request: Request) => Promise<Response>, log: Logger) {
  try {
    return Bun.serve({
      hostname: config.host,
      port: config.port,
      idleTimeout: config.idleTimeoutS,
      fetch,
      error(error) {
        log.error("http handler failed", { error: error.message });
        return jsonRpcErrorResponse(500, ErrorCode.InternalError, HIDDEN_FAILURE);
      },
    });
  } catch (error) {
    if (error && typeof error === "object") Object.assign(error, { address: config.host, port: config.port });
    throw error;
  }
}

function scopesOf({ toolsets }: McpServerOptions): string[] {
  return [...new Set(toolsets.flatMap((toolset) => toolset.tools.map((tool) => tool.scope)))];
}

function createAuth(
  config: HttpConfig,
  serverOptions: McpServerOptions,
  resource: string,
  own: AuthServer | undefined,
  localOrigin: string,
) {
  const { log } = serverOptions;
  if (config.auth.kind === "none") return undefined;
  if (config.auth.kind === "oauth" && own) {
    return createResourceServer({
      resource,
      issuer: own.issuer,
      audience: [own.resource],
      jwksUrl: `${localOrigin}${new URL(own.jwksUrl).pathname}`,
      isSignInRevoked: (signInId) => own.isSignInRevoked(signInId),
      requiredScopes: config.auth.requiredScopes,
      scopesSupported: scopesOf(serverOptions),
      log,
    });
  }
  if (config.auth.kind !== "jwt") return undefined;
  return createResourceServer({
    resource,
    issuer: config.auth.issuer,
    audience: config.auth.audience ?? [resource, `${resource}/`],
    jwksUrl: config.auth.jwksUrl,
    requiredScopes: config.auth.requiredScopes,
    scopesSupported: scopesOf(serverOptions),
    log,
  });
}

/** `--auth oauth`: loaded only then, so no other start pays for the authorization server's code. */
async function startAuthorizationServer(
  config: HttpConfig,
  serverOptions: McpServerOptions,
  publicUrl: URL,
): Promise<AuthServer | undefined> {
  if (config.auth.kind !== "oauth") return undefined;
  const { authServerConfig } = await import("../auth-server/options.ts");
  const settings = authServerConfig(config.auth.flags, {
    publicUrl: publicUrl.href.replace(/\/+$/, ""),
    scopesSupported: scopesOf(serverOptions),
  });
  const { createAuthorizationServer } = await import("../auth-server/index.ts");
  // Nothing logs these, but a last line of defence costs nothing: a stray line would print "[redacted]".
  const { log } = serverOptions;
  if (settings.upstream.clientSecret) log.redact(settings.upstream.clientSecret);
  if (settings.stateKey) log.redact(settings.stateKey);
  for (const secret of storeUrlSecrets(settings.state)) log.redact(secret);
  try {
    return await createAuthorizationServer(settings, log);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // Written to stderr by the CLI, past the logger's redaction: the message itself must be clean.
    const reason = scrubStoreSecrets(settings.state, error instanceof Error ? error.message : String(error));
    throw new ConfigError(
      `cannot open the authorization state ${describeStoreUrl(settings.state)} (${reason}); check --state (MCPKIT_STATE) and that the database accepts connections`,
    );
  }
}

/** Stop accepting, let calls in flight finish (up to the grace period), then end every session. */
async function shutDown(state: HttpState, bun: ReturnType<typeof Bun.serve>): Promise<void> {
  const { log, config } = state;
  state.stopping = true;
  log.info("shutting down: no new connections; waiting for calls in flight");
  void bun.stop(false);
  // A subscription never ends by itself: it is answered now, which tells its client the end is graceful.
  state.modern.subscriptions.cancelAll("The server is shutting down.");
  // Calls waiting for a slot are refused now: starting them in the grace period would only lengthen it.
  dispatcherFor(state.serverOptions).admission.close();
  const { drainables } = state;
  if (!(await idleWithin(drainables, shutdownGraceMs(config)))) {
    const calls = drainables.reduce((sum, part) => sum + part.size, 0);
    log.warn("shutdown grace period over; cancelling calls still running", { calls });
  }
  const reason = "The server is shutting down and cancelled this call; retry it once the server is back.";
  for (const part of drainables) await part.cancelAll(reason);
  // The answers just sent (and ended streams) still have to reach their sockets before every
  // connection is closed: wait until Bun has no request left to answer, briefly.
  const flushDeadline = Date.now() + ANSWERS_FLUSH_MS;
  while (bun.pendingRequests > 0 && Date.now() < flushDeadline) await Bun.sleep(5);
  await bun.stop(true);
  await state.authorizationServer?.close();
  log.info("stopped");
}
