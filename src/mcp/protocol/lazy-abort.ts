/**
 * An abort signal made only when something asks for it. Every request carries a signal its work
 * may watch, but a `tools/call` answered from memory never looks at it, and a native
 * AbortController (with its AbortSignal) is one of the costlier objects a request would otherwise
 * allocate (issue 21). Aborting before anyone asked is remembered: a signal asked for later is
 * already aborted, with the same reason. test/http/lazy-abort.test.ts fails if an answered call
 * starts making one again.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;

  /** The request's signal (made now, on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Whether it was aborted, without making the signal. */
  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** Aborts the signal (now if it exists, else when it is made); again does nothing. */
  abort(reason?: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}
