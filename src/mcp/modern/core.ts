/**
 * The modern era (MCP 2026-07-28), whatever the transport: the per-request `_meta` envelope,
 * `server/discover`, the methods the revision removed, and the shape of every answer
 * (`resultType`, `serverInfo`, the caching hints, `input_required` for the client's roots). The
 * requests themselves are answered by the protocol core (`../protocol/dispatcher.ts`), the same
 * handlers the legacy era uses. No session, no state between requests: any process can answer
 * any request. Nothing here loads the MCP SDK.
 */
import { shortened, shownValue } from "../../core/text.ts";
import {
  CLIENT_LOG_LEVELS,
  type ClientLogLevel,
  ErrorCode,
  InputRequired,
  ProtocolError,
  isClientLogLevel,
} from "../../core/tool.ts";
import type { Logger } from "../../core/log.ts";
import { NAME, VERSION } from "../../version.ts";
import { type Dispatcher, type RequestContext, localRootPaths } from "../protocol/dispatcher.ts";
import { ANONYMOUS, type Caller } from "../protocol/caller.ts";
import { errorReply } from "../protocol/errors.ts";
import type { JsonRpcId, Reply } from "../protocol/message.ts";
import { type Params, isRecord } from "../protocol/params.ts";
import { META, MODERN_ERROR, SUPPORTED_VERSIONS, isModernVersion } from "../protocol/versions.ts";
import { type RequestStateCodec, createRequestStateCodec } from "./request-state.ts";

/** How long a client may consider a list, a read resource or the discovery result fresh. */
export const CACHE_TTL_MS = 300_000;

/** Results that carry `ttlMs` and `cacheScope` (2026-07-28 server/utilities/caching). */
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** Methods that may answer `input_required` (2026-07-28 MRTR, "Supported Requests"). */
const MAY_NEED_INPUT = new Set(["tools/call", "resources/read", "prompts/get"]);

/** Methods of the legacy era this revision removed, and what replaced them. */
const REMOVED: Record<string, string> = {
  initialize: "2026-07-28 has no handshake: every request carries its version and capabilities in params._meta",
  "notifications/initialized": "2026-07-28 has no handshake",
  ping: "ping was removed in 2026-07-28; any request shows the server is up",
  "logging/setLevel": "send io.modelcontextprotocol/logLevel in each request's params._meta instead",
  "resources/subscribe": "use subscriptions/listen with notifications.resourceSubscriptions",
  "resources/unsubscribe": "close the subscriptions/listen stream instead",
};

export const SERVER_INFO = Object.freeze({ name: NAME, version: VERSION });

export interface ModernServerOptions {
  dispatcher: Dispatcher;
  log: Logger;
  transport: "http" | "stdio";
  /** How `requestState` is signed and checked (a fresh per-process key by default). */
  requestState?: RequestStateCodec;
}

export interface ModernServer {
  readonly dispatcher: Dispatcher;
  readonly log: Logger;
  readonly transport: "http" | "stdio";
  readonly requestState: RequestStateCodec;
  /** The `server/discover` result, built once. */
  readonly discover: Record<string, unknown>;
}

export function createModernServer(options: ModernServerOptions): ModernServer {
  const { dispatcher } = options;
  const discover = deepFreeze({
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: structuredClone(dispatcher.capabilities),
    instructions: dispatcher.instructions,
  });
  return { ...options, requestState: options.requestState ?? createRequestStateCodec(), discover };
}

/** What a modern request declared in its `params._meta`. */
export interface Envelope {
  version: string;
  clientCapabilities: Record<string, unknown>;
  logLevel: ClientLogLevel | undefined;
}

/** A modern refusal: the JSON-RPC error and, over HTTP, its status. */
export class ModernError extends ProtocolError {
  constructor(
    code: number,
    message: string,
    readonly status: number,
    data?: Record<string, unknown>,
  ) {
    super(code, message, data);
  }
}

const malformed = (why: string) =>
  new ModernError(
    ErrorCode.InvalidParams,
    `Invalid params: ${why}. A 2026-07-28 request carries "${META.protocolVersion}" and "${META.clientCapabilities}" in params._meta.`,
    400,
  );

/** Reads the per-request envelope; a request without its required fields is malformed (-32602, HTTP 400). */
export function readEnvelope(params: unknown): Envelope {
  if (params !== undefined && !isRecord(params)) throw malformed('"params" must be an object');
  const meta = params?._meta;
  if (!isRecord(meta)) throw malformed('"params._meta" is missing');
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") throw malformed(`"params._meta.${META.protocolVersion}" is missing or not a string`);
  const clientCapabilities = meta[META.clientCapabilities];
  if (!isRecord(clientCapabilities)) {
    throw malformed(`"params._meta.${META.clientCapabilities}" is missing or not an object`);
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !isClientLogLevel(level)) {
    throw new ModernError(
      ErrorCode.InvalidParams,
      `Invalid params: "params._meta.${META.logLevel}" must be one of ${CLIENT_LOG_LEVELS.join(", ")} (got ${shownValue(level)}).`,
      400,
    );
  }
  return { version, clientCapabilities, logLevel: level };
}

/** UnsupportedProtocolVersionError (-32022, HTTP 400) for a version this server does not serve in this era. */
export function checkVersion(envelope: Envelope): void {
  const requested = envelope.version;
  if (isModernVersion(requested)) return;
  throw new ModernError(
    MODERN_ERROR.UnsupportedProtocolVersion,
    `Unsupported protocol version ${JSON.stringify(requested.slice(0, 40))}: send ${META.protocolVersion} "2026-07-28" in params._meta, or open a 2025-11-25 (or earlier) connection with initialize.`,
    400,
    // The client's value, of any size: as the message repeats it, shortened (900 KB came back whole).
    { supported: [...SUPPORTED_VERSIONS], requested: shortened(requested, 80) },
  );
}

export interface RequestIo {
  signal: AbortSignal;
  caller: Caller;
  /** Sends a notification about this request, before its answer (progress, a log message). */
  notify(method: string, params: Record<string, unknown>): void;
}

export type { JsonRpcId, Reply };

/**
 * Answers one request whose envelope has been read and whose version is supported. Never throws:
 * every failure becomes the error reply the client should see.
 */
export async function answer(
  server: ModernServer,
  method: string,
  params: Params,
  envelope: Envelope,
  io: RequestIo,
): Promise<Reply> {
  try {
    // The same for every caller, with or without a token.
    if (method === "server/discover") return { ok: true, result: decorate(method, server.discover, ANONYMOUS) };
    const handler = server.dispatcher.handlers.get(method);
    if (!handler) return methodNotFoundReply(method);
    // A retry's state is checked before anything runs, whether or not the call turns out to need it.
    const answered = MAY_NEED_INPUT.has(method) ? answeredInputs(server, method, params, io.caller) : undefined;
    const context = new ModernContext(server, envelope, io, answered);
    try {
      return { ok: true, result: decorate(method, await handler(params, context), io.caller) };
    } catch (error) {
      if (error instanceof InputRequired && MAY_NEED_INPUT.has(method)) {
        return { ok: true, result: inputRequired(server, method, params, io.caller, error) };
      }
      throw error;
    }
  } catch (error) {
    return failure(server, method, error);
  }
}

/** -32601, HTTP 404, built without an error object (its stack trace was most of the cost). */
function methodNotFoundReply(method: string): Reply {
  // Own keys only: a client's method name (`constructor`, `toString`) must not find Object's.
  const removed = Object.hasOwn(REMOVED, method) ? REMOVED[method] : undefined;
  const name = JSON.stringify(method.slice(0, 100));
  const message = removed ? `Method not found: ${name}: ${removed}.` : `Method not found: ${name}.`;
  return { ok: false, error: { code: ErrorCode.MethodNotFound, message }, status: 404 };
}

/**
 * What `answer` replies to a method nothing here answers (`ping`, removed in 2026-07-28, or an
 * unknown one), known before any work; undefined for a method that is answered. The one reply
 * `answer` itself gives such a method (`methodNotFoundReply`).
 */
export function unansweredReply(server: ModernServer, method: string): Reply | undefined {
  if (method === "server/discover" || server.dispatcher.handlers.has(method)) return undefined;
  return methodNotFoundReply(method);
}

/**
 * The error reply for anything a request threw (`protocol/errors.ts`: unexpected errors are
 * logged, never shown), with the era's own twists: a resource that does not exist is invalid
 * params (SEP-2164, no longer -32002), and over HTTP the status that goes with the error.
 */
export function failure(server: ModernServer, method: string, error: unknown): Reply {
  const reply = errorReply(error, method, server.log);
  if (reply.error.code === ErrorCode.ResourceNotFound) reply.error.code = ErrorCode.InvalidParams;
  if (error instanceof ModernError) reply.status = error.status;
  else if (reply.error.code === ErrorCode.MethodNotFound) reply.status = 404;
  return reply;
}

/**
 * The core's view of a modern request: everything comes from the request itself. A class, so a
 * request costs one object here and no closures.
 */
class ModernContext implements RequestContext {
  readonly scopes: readonly string[] | undefined;
  readonly clientCapabilities: Record<string, unknown>;
  /** The token's owner, else what the transport counts such callers as (`protocol/admission.ts`). */
  readonly subject: string | undefined;

  constructor(
    private readonly server: ModernServer,
    private readonly envelope: Envelope,
    private readonly io: RequestIo,
    private readonly answered: Record<string, unknown> | undefined,
  ) {
    this.scopes = io.caller.scopes;
    this.subject = io.caller.principal ?? io.caller.subject;
    this.clientCapabilities = envelope.clientCapabilities;
  }

  /** Read only when the work asks for it: the transport may make it lazily (protocol/lazy-abort.ts). */
  get signal(): AbortSignal {
    return this.io.signal;
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.io.notify(method, params);
  }

  logLevel(): ClientLogLevel | undefined {
    return this.envelope.logLevel;
  }

  async clientRoots(): Promise<string[] | undefined> {
    return clientRoots(this.server, this.envelope, this.answered);
  }
}

/**
 * The client's roots, from the answer to our `roots/list` input request when this is the retry
 * that carries it; otherwise `InputRequired`. Only on stdio, and only for a client that declared
 * roots: over HTTP a client's roots describe another machine, and roots stay server-configured.
 */
function clientRoots(
  server: ModernServer,
  envelope: Envelope,
  answered: Record<string, unknown> | undefined,
): string[] | undefined {
  if (server.transport !== "stdio" || !isRecord(envelope.clientCapabilities.roots)) return undefined;
  const response = answered?.roots;
  if (response === undefined) throw new InputRequired({ roots: { method: "roots/list" } });
  if (!isRecord(response) || !Array.isArray(response.roots) || !response.roots.every(isRecord)) {
    throw new ModernError(
      ErrorCode.InvalidParams,
      'Invalid params: "inputResponses.roots" must be a roots/list result, {"roots": [{"uri": "file:///…"}]}.',
      200,
    );
  }
  return localRootPaths(response.roots, "inputResponses.roots.roots", server.log);
}

/**
 * The input responses of a retry, once its `requestState` verifies; only the answers to input
 * requests that state was issued for count. A retry without state has answered nothing; a state
 * that does not verify (changed, expired, another request's or caller's, another process's, or
 * presented over HTTP where none is ever issued) refuses the request.
 */
function answeredInputs(
  server: ModernServer,
  method: string,
  params: Params,
  caller: Caller,
): Record<string, unknown> | undefined {
  const state = params.requestState;
  if (state === undefined) return undefined;
  if (typeof state !== "string") throw refusedState("it is not a string");
  const keys = server.requestState.verify(state, { method, params, principal: caller.principal });
  if (typeof keys === "string") throw refusedState(keys);
  const responses = isRecord(params.inputResponses) ? params.inputResponses : {};
  return Object.fromEntries(keys.filter((key) => key in responses).map((key) => [key, responses[key]]));
}

function refusedState(why: string): ModernError {
  return new ModernError(
    ErrorCode.InvalidParams,
    `Invalid params: "requestState" is refused: ${why}. Send the request again without requestState and inputResponses.`,
    200,
  );
}

function inputRequired(
  server: ModernServer,
  method: string,
  params: Params,
  caller: Caller,
  needed: InputRequired,
): Record<string, unknown> {
  const binding = { method, params, principal: caller.principal };
  return {
    resultType: "input_required",
    inputRequests: needed.inputRequests,
    requestState: server.requestState.issue(binding, Object.keys(needed.inputRequests)),
    _meta: { [META.serverInfo]: SERVER_INFO },
  };
}

/**
 * Frozen results decorated once per cache scope and method, so constant answers stay constant
 * (and serialize once); looked up without building a key string per request.
 */
const decorated = {
  public: new WeakMap<object, Map<string, Record<string, unknown>>>(),
  private: new WeakMap<object, Map<string, Record<string, unknown>>>(),
};

/**
 * Every result carries `resultType` and the server's identity; lists, reads and discovery carry
 * caching hints. A result that depends on the caller's token (authorization on) is `private`.
 */
export function decorate(method: string, result: Record<string, unknown>, caller: Caller): Record<string, unknown> {
  const cacheScope = caller.scopes === undefined ? "public" : "private";
  const frozen = Object.isFrozen(result);
  if (frozen) {
    const hit = decorated[cacheScope].get(result)?.get(method);
    if (hit) return hit;
  }
  const meta = isRecord(result._meta) ? result._meta : undefined;
  const out: Record<string, unknown> = { ...result, resultType: "complete" };
  if (CACHEABLE.has(method)) {
    out.ttlMs = CACHE_TTL_MS;
    out.cacheScope = cacheScope;
  }
  out._meta = { ...meta, [META.serverInfo]: SERVER_INFO };
  if (frozen) {
    const byMethod = decorated[cacheScope].get(result) ?? new Map<string, Record<string, unknown>>();
    // Frozen like the result it decorates (shallowly: what is inside is that result's own values).
    Object.freeze(out._meta);
    byMethod.set(method, Object.freeze(out));
    decorated[cacheScope].set(result, byMethod);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
