/**
 * The timer behind BOJ's retries and pacing: a delay past what a timer keeps (2^31 − 1 ms) must
 * not fire at once, as Node's timers do after a TimeoutOverflowWarning: a pacing slot that far
 * away (a shared pacing row set by hand) let a request go out immediately.
 */
import { expect, test } from "bun:test";
import { setTimeout as later } from "node:timers/promises";
import { sleep } from "../../src/toolsets/boj/sleep.ts";

test("a delay past 2^31 − 1 ms waits instead of firing after 1 ms", async () => {
  const stop = new AbortController();
  let fired = false;
  const waiting = sleep(98_204_067_524_918, stop.signal).then(
    () => {
      fired = true;
    },
    () => {},
  );
  // Timers fire in deadline order: an overflowed one (1 ms) would fire before this 5 ms one, however busy the machine.
  await later(5);
  expect(fired).toBe(false);
  stop.abort(new Error("done"));
  await waiting;
});
