/**
 * The one shape every step of the HTTP pipeline has (see `pipeline.ts`): a function of the
 * exchange and `next`. A step answers by returning a response, or passes the exchange on by
 * returning `next()` (calling it once at most), and may change what comes back (CORS does). A
 * route is a step that answers its own path and calls `next()` for every other.
 */
import type { Authenticated } from "./auth/resource-server.ts";
import type { Envelope } from "../modern/core.ts";
import type { IncomingMessage } from "../protocol/message.ts";

/** One request on its way through the pipeline; steps add what they learn. */
export interface Exchange {
  readonly request: Request;
  /** The request URL's path (the Host header was checked before), what routes match on. */
  readonly pathname: string;
  /** The request URL, parsed (the pipeline parses it only when a step asks). */
  readonly url: URL;
  /**
   * The client's IP address (for rate limits), looked up only when asked: the socket's peer, or the
   * address a --trusted-proxies proxy names in X-Forwarded-For.
   */
  clientAddress(): string | undefined;
  /** Who is calling, once `authenticate` has checked the token (absent without authorization). */
  caller?: Authenticated;
  /** The JSON-RPC message of a POST, once `jsonRpcBody` has read it. */
  message?: IncomingMessage;
  /** For a 2026-07-28 request, its checked `_meta` envelope (`modern-endpoint.ts`); absent for the legacy era. */
  modern?: Envelope;
}

export type Next = () => Response | Promise<Response>;
export type Middleware = (exchange: Exchange, next: Next) => Response | Promise<Response>;

/**
 * The step a configuration does not need (no authorization, say): `compose` and `mount` leave it
 * out, so a request does not pay a call and a closure for it.
 */
export const passThrough: Middleware = (_exchange, next) => next();

/**
 * The steps as one function. Synchronous between steps: a step that answers at once costs no
 * promise, and only the steps that wait (reading the body, a tool call) make one. One `next` per
 * request walks the steps (each step calls it at most once), not a closure per step.
 */
function chain(steps: readonly Middleware[]): (exchange: Exchange) => Response | Promise<Response> {
  const live = steps.filter((step) => step !== passThrough);
  return (exchange) => {
    let index = 0;
    const next: Next = () => {
      const step = live[index++];
      if (!step) throw new Error("the HTTP pipeline ended without an answer");
      return step(exchange, next);
    };
    return next();
  };
}

/** Runs the steps in order; the last one must answer (`next` past the end is a programming error). */
export function compose(steps: readonly Middleware[]): (exchange: Exchange) => Promise<Response> {
  const run = chain(steps);
  // Not an async function: one returning the answer's promise would wrap it in another, adopted
  // through two more microtask jobs on every request that waits.
  return (exchange) => {
    try {
      const answer = run(exchange);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** A step that answers one exact path (any method) and passes every other path on. */
export function route(
  path: string | readonly string[],
  handler: (exchange: Exchange) => Response | Promise<Response>,
): Middleware {
  const paths = typeof path === "string" ? [path] : path;
  return (exchange, next) => (paths.includes(exchange.pathname) ? handler(exchange) : next());
}

/**
 * Steps that belong to one path, run as one step: the MCP endpoint's checks (draining, Host and
 * Origin, CORS, authorization, …) apply to it alone, whatever is mounted before or after.
 */
export function mount(path: string, steps: readonly Middleware[]): Middleware {
  const run = chain(steps);
  return (exchange, next) => (exchange.pathname === path ? run(exchange) : next());
}
