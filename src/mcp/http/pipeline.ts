/**
 * The HTTP request pipeline of `mcpkit --http`, in the order a request meets it. Each step is
 * one file in this folder; they share one `HttpState`.
 *
 *   well-formed Host               400   (before anything parses the URL; `well-formed.ts`)
 *   /healthz                       200/503, no authorization
 *   protected-resource metadata    RFC 9728 documents (with --auth)
 *   authorization server           its own routes (with --auth oauth; `authorization-server.ts`), Host checked (403)
 *   /mcp, mounted with its own steps:
 *     draining                     503 + Retry-After once shutdown began
 *     Host / Origin                403 (DNS-rebinding protection)
 *     CORS                         preflights; exposes headers to allowed origins
 *     authenticate                 401/403/503 (with --auth)
 *     methods                      405 + Allow
 *     JSON-RPC body                413, -32700, -32600
 *     2026-07-28 requests          their envelope and headers checked (400)
 *     tool scope                   403 insufficient_scope (with --auth)
 *     2026-07-28 answer            stateless, for the requests classified above
 *     sessions | stateless         the 2025-11-25 era (`session-transport.ts`)
 *   anything else                  404 naming /mcp
 *
 * Adding a route: write `src/mcp/http/<route>.ts` exporting `function <route>(state: HttpState):
 * Middleware`, usually `route("/path", handler)` from `middleware.ts`, and add one line to
 * `steps` below. The /mcp steps are mounted on /mcp only, so a route sets its own CORS and
 * checks. A component with many routes mounts the same way, as one step that answers its paths
 * and otherwise returns `next()` (e.g. `(await server.handle(exchange.request)) ?? next()`).
 * Match on `exchange.pathname`: `exchange.url` is parsed only when a step reads it.
 * `exchange.clientAddress()` gives the client's IP for rate limits: the socket's peer, or the
 * address a `--trusted-proxies` proxy names in X-Forwarded-For (`clientAddressOf`); no other step
 * reads that header. A step a configuration does not need (no --auth, say) returns `passThrough`,
 * which `compose` and `mount` leave out: every step runs on every request, so each one costs the
 * throughput of the endpoint (issue 21).
 */
import type { Logger } from "../../core/log.ts";
import { clientAddressOf, trustedProxies } from "../web/addresses.ts";
import { authenticate } from "./authenticate.ts";
import { authorizationServer } from "./authorization-server.ts";
import { cors } from "./cors.ts";
import { draining } from "./draining.ts";
import { health } from "./health.ts";
import { type HostOriginCheck, hostAndOrigin } from "./host-origin.ts";
import { jsonRpcBody } from "./jsonrpc-body.ts";
import { MCP_PATH, notFound } from "./mcp-endpoint.ts";
import { methods } from "./methods.ts";
import { answerModern, modernRequests } from "./modern-endpoint.ts";
import { type Exchange, type Middleware, compose, mount } from "./middleware.ts";
import { protectedResourceMetadata } from "./protected-resource-metadata.ts";
import { sessions } from "./sessions.ts";
import type { HttpState } from "./state.ts";
import { stateless } from "./stateless.ts";
import { toolScope } from "./tool-scope.ts";
import { requestPath } from "./well-formed.ts";

/** How the socket's peer address is found (Bun's `server.requestIP`); absent in-process. */
export type PeerAddress = (request: Request) => string | undefined;

export function createPipeline(
  state: HttpState,
  hostOriginCheck: HostOriginCheck,
  peerAddress: PeerAddress = () => undefined,
): (request: Request) => Promise<Response> {
  const steps: Middleware[] = [
    health(state, hostOriginCheck),
    protectedResourceMetadata(state),
    authorizationServer(state, hostOriginCheck),
    mount(MCP_PATH, [
      draining(state),
      hostAndOrigin(state, hostOriginCheck),
      cors(),
      authenticate(state),
      methods(state),
      jsonRpcBody(state),
      modernRequests(),
      toolScope(state),
      answerModern(state.modern),
      state.sessions ? sessions(state, state.sessions) : stateless(state),
    ]),
    notFound(),
  ];
  const run = compose(steps);
  const clientAddress = clientAddressFinder(peerAddress, state.config.trustedProxies);
  // Not async: `run` already gives a promise, which an async function would wrap in another.
  return (request) => {
    const pathname = requestPath(request, state.log);
    if (pathname instanceof Response) return Promise.resolve(pathname);
    return run(new HttpExchange(request, pathname, clientAddress));
  };
}

/**
 * How a request's client address is found: its peer, or with --trusted-proxies what a trusted
 * peer's X-Forwarded-For says. Without the option the peer lookup is returned as it is, so no
 * request reads the header or pays a call for it.
 */
function clientAddressFinder(peerAddress: PeerAddress, trustedList: readonly string[] | undefined): PeerAddress {
  if (!trustedList?.length) return peerAddress;
  const trusted = trustedProxies(trustedList);
  return (request) => clientAddressOf(peerAddress(request), request.headers.get("x-forwarded-for"), trusted);
}

/** An exchange whose URL is parsed only if a step asks for more than its path. */
class HttpExchange implements Exchange {
  caller?: Exchange["caller"];
  message?: Exchange["message"];
  modern?: Exchange["modern"];
  private parsed: URL | undefined;

  constructor(
    readonly request: Request,
    readonly pathname: string,
    private readonly findClientAddress: PeerAddress,
  ) {}

  get url(): URL {
    this.parsed ??= new URL(this.request.url);
    return this.parsed;
  }

  clientAddress(): string | undefined {
    return this.findClientAddress(this.request);
  }
}

/** Debug logging of every request, only when enabled (it costs a clock read and a line per request). */
export function withRequestLog(
  handle: (request: Request) => Promise<Response>,
  log: Logger,
): (request: Request) => Promise<Response> {
  if (!log.enabled("debug")) return handle;
  return async (request) => {
    const started = performance.now();
    const response = await handle(request);
    const path = URL.canParse(request.url) ? new URL(request.url).pathname : "(malformed)";
    log.debug("http", {
      method: request.method,
      path,
      status: response.status,
      ms: Math.round(performance.now() - started),
    });
    return response;
  };
}
