/**
 * The one owner of requests in flight: each is added when it is received and removed exactly once,
 * when its answer has been handed to the transport (or it was cancelled). Shutdown asks it two
 * things: wait until nothing is in flight (`whenIdle`), and cancel whatever still is (`cancelAll`).
 * A request is its own entry (an object with `cancel`), added and deleted by identity, or by a key
 * of its own (a session finds its answers by JSON-RPC id): no closure per request to take it off
 * again.
 */
export interface InFlightRequest {
  /** Ends the request now: abort its work and answer it with `reason` as an error, if it can still be answered. */
  cancel(reason: string): void;
}

export class InFlight<T extends InFlightRequest = InFlightRequest, K = T> {
  private readonly requests = new Map<K, T>();
  private idle: PromiseWithResolvers<void> | undefined;

  get size(): number {
    return this.requests.size;
  }

  /** Tracks a request until `delete`, under `key` (the request itself unless given). */
  add(request: T, key: K = request as unknown as K): void {
    this.requests.set(key, request);
  }

  /** The request tracked under `key`. */
  get(key: K): T | undefined {
    return this.requests.get(key);
  }

  /** The requests tracked now (a copy: ending one while iterating is fine). */
  list(): T[] {
    return [...this.requests.values()];
  }

  /** Stops tracking a request; false when it was not tracked (deleting it again does nothing). */
  delete(key: K): boolean {
    if (!this.requests.delete(key)) return false;
    if (this.requests.size === 0 && this.idle) {
      this.idle.resolve();
      this.idle = undefined;
    }
    return true;
  }

  /** Resolves once no request is in flight (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.requests.size === 0) return Promise.resolve();
    this.idle ??= Promise.withResolvers<void>();
    return this.idle.promise;
  }

  /** Cancels every request still in flight. */
  cancelAll(reason: string): void {
    for (const request of this.list()) request.cancel(reason);
  }
}

/** What shutdown can wait on: requests being answered now, and a promise for when there are none. */
export interface Idling {
  readonly size: number;
  whenIdle(): Promise<void>;
}

/**
 * Waits until every part is idle at the same time, or `ms` pass, whichever comes first; true when
 * idle. A request that arrives at one part while another finishes is waited for too.
 */
export async function idleWithin(parts: Idling | readonly Idling[], ms: number): Promise<boolean> {
  const all: readonly Idling[] = Array.isArray(parts) ? parts : [parts as Idling];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const idle = (async () => {
    while (all.some((part) => part.size > 0)) await Promise.all(all.map((part) => part.whenIdle()));
    return true as const;
  })();
  const result = await Promise.race([idle, timeout]);
  clearTimeout(timer);
  return result;
}
