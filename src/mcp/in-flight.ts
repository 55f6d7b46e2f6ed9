/**
 * The one owner of requests in flight: each is added when it is received and removed exactly once,
 * when its answer has been handed to the transport (or it was cancelled). Shutdown asks it two
 * things: wait until nothing is in flight (`whenIdle`), and cancel whatever still is (`cancelAll`).
 * A request is its own entry (an object with `cancel`), added and deleted by identity: no closure
 * per request to take it off again.
 */
export interface InFlightRequest {
  /** Ends the request now: abort its work and answer it with `reason` as an error, if it can still be answered. */
  cancel(reason: string): void;
}

export class InFlight<T extends InFlightRequest = InFlightRequest> {
  private readonly requests = new Set<T>();
  private idle: PromiseWithResolvers<void> | undefined;

  get size(): number {
    return this.requests.size;
  }

  /** Tracks a request until `delete`. */
  add(request: T): void {
    this.requests.add(request);
  }

  /** Stops tracking a request (deleting it again does nothing). */
  delete(request: T): void {
    if (!this.requests.delete(request)) return;
    if (this.requests.size === 0 && this.idle) {
      this.idle.resolve();
      this.idle = undefined;
    }
  }

  /** Resolves once no request is in flight (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.requests.size === 0) return Promise.resolve();
    this.idle ??= Promise.withResolvers<void>();
    return this.idle.promise;
  }

  /** Cancels every request still in flight. */
  cancelAll(reason: string): void {
    for (const request of [...this.requests]) request.cancel(reason);
  }
}

/** Waits for `inFlight` to be idle, or `ms` to pass, whichever comes first; true when idle. */
export async function idleWithin(inFlight: InFlight, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const idle = await Promise.race([inFlight.whenIdle().then(() => true as const), timeout]);
  clearTimeout(timer);
  return idle;
}
