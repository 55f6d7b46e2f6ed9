/**
 * Work for an answer that is still unanswered once the current turn of the event loop is over.
 * Nearly every request is answered within the turn it arrived in (its tool returns in a few
 * microtasks), and for those a deadline timer or a listener on `request.signal` would be set up
 * only to be taken down again: each costs the server about as much as a tenth of a whole `ping`.
 * So answers register here instead, and once per turn (one `setImmediate` for all the requests of
 * the turn) those still waiting get their timer and listener. Nothing is missed: a client that
 * left in the meantime is seen through `signal.aborted` when the listener is set, and a deadline
 * of seconds starts a turn later. `test/http/after-turn.test.ts` fails if the fast path stops
 * being taken; `scripts/bench/http.ts --method ping` shows what it buys.
 */
export interface Waiting {
  /** Called once, after the turn the answer was registered in, unless it has settled by then. */
  stillWaiting(): void;
  /** Whether the answer is out (then nothing is armed). */
  readonly settled: boolean;
}

let queue: Waiting[] = [];

/** Arms `waiting` after this turn of the event loop, if it has not settled by then. */
export function afterThisTurn(waiting: Waiting): void {
  if (queue.push(waiting) === 1) setImmediate(flush);
}

function flush(): void {
  const due = queue;
  queue = [];
  for (const waiting of due) if (!waiting.settled) waiting.stillWaiting();
}
