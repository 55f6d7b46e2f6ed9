/**
 * The last step with sessions: `initialize` without Mcp-Session-Id opens a session (mcpkit's
 * legacy session engine on its transport, `legacy-endpoint.ts`), every other request is forwarded to the
 * session it names. A session answers only to the owner that opened it; to anyone else it does
 * not exist (404).
 */
import { randomBytes } from "node:crypto";
import { sessionTag } from "../../core/session-tag.ts";
import { openLegacyHttp } from "./legacy-endpoint.ts";
import type { IncomingMessage } from "../protocol/message.ts";
import { RETRY_AFTER_SECONDS, TRANSPORT_ERROR, jsonRpcErrorResponse, sessionNotFound } from "./jsonrpc-errors.ts";
import type { Exchange, Middleware } from "./middleware.ts";
import type { Session, SessionStore } from "./session-store.ts";
import { keepAliveMs } from "./sse.ts";
import type { HttpState } from "./state.ts";

export function sessions(state: HttpState, store: SessionStore): Middleware {
  return (exchange) => {
    const { request, message } = exchange;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) {
      if (message?.method === "initialize") return openSession(state, store, exchange, message);
      const hint = message
        ? "Send initialize first, then send the mcp-session-id it returns on every later request."
        : "Send the mcp-session-id that initialize returned.";
      return jsonRpcErrorResponse(400, TRANSPORT_ERROR, `Bad Request: missing Mcp-Session-Id header. ${hint}`, {
        id: message?.id ?? null,
      });
    }
    const session = store.get(sessionId);
    if (!session || session.owner !== exchange.caller?.owner) {
      if (session)
        state.log.warn("session used with another subject's token; answering 404", { session: sessionTag(sessionId) });
      return sessionNotFound("it expired, was deleted, or never existed");
    }
    return forward(session, exchange);
  };
}

/**
 * 429 or 503 with Retry-After. Logged at debug only, as the other refusals of a request: anyone who can reach the port
 * (one user, for the per-subject cap) can send initialize after initialize, and a line each would fill the log.
 */
function refuseOpening(state: HttpState, refusal: "server-full" | "owner-full", message: IncomingMessage): Response {
  const { config, log } = state;
  const headers = { "retry-after": String(RETRY_AFTER_SECONDS) };
  if (refusal === "owner-full") {
    log.debug("per-subject session cap reached; refusing initialize", {
      maxSessionsPerSubject: config.maxSessionsPerSubject,
    });
    return jsonRpcErrorResponse(
      429,
      TRANSPORT_ERROR,
      `Too Many Requests: this user already holds ${config.maxSessionsPerSubject} sessions, the most one user may hold (--max-sessions-per-subject). End unused sessions with DELETE, or retry after ${RETRY_AFTER_SECONDS} seconds.`,
      { id: message.id ?? null, headers },
    );
  }
  log.debug("session cap reached; refusing initialize", { maxSessions: config.maxSessions });
  return jsonRpcErrorResponse(
    503,
    TRANSPORT_ERROR,
    `Service Unavailable: this server already holds its maximum of ${config.maxSessions} sessions (--max-sessions). Retry after ${RETRY_AFTER_SECONDS} seconds, or end unused sessions with DELETE.`,
    { id: message.id ?? null, headers },
  );
}

async function openSession(
  state: HttpState,
  store: SessionStore,
  exchange: Exchange,
  message: IncomingMessage,
): Promise<Response> {
  const owner = exchange.caller?.owner;
  const refusal = store.reserve(owner);
  if (refusal) return refuseOpening(state, refusal, message);
  let session: Session | undefined;
  const { transport } = openLegacyHttp(
    state.serverOptions,
    {
      keepAliveMs: keepAliveMs(state.config.idleTimeoutS),
      // 256 random bits, base64url: visible ASCII as the spec requires, and unguessable.
      sessionIdGenerator: () => randomBytes(32).toString("base64url"),
      onSessionInitialized: (id) => {
        session = { id, transport, owner, lastActive: Date.now() };
        store.add(session);
      },
    },
    () => {
      if (session) store.forget(session.id);
    },
  );
  transport.onsettled = () => {
    if (session) session.lastActive = Date.now();
  };
  try {
    return await transport.handleRequest(exchange.request, message, exchange.caller?.authInfo, owner);
  } finally {
    if (!session) {
      // The transport refused the initialize (bad headers, say): give the slot back.
      store.release(owner);
      void transport.close();
    }
  }
}

function forward(session: Session, { request, message, caller }: Exchange): Response | Promise<Response> {
  // The transport keeps the one record of requests in flight (it also refuses an id still running;
  // the engine works on that record); the session only notes that it was used, now and when a
  // request leaves that record (`onsettled`).
  session.lastActive = Date.now();
  return session.transport.handleRequest(request, message, caller?.authInfo, caller?.owner);
}
