/**
 * Admission control for tool calls (`src/mcp/protocol/admission.ts`, issue 34 H3), without a
 * transport or a clock: the server's and a subject's running limits, the bounded first-in-first-out
 * queue, the refusals naming their limit, cancellation freeing a place, and a slot given back
 * exactly once. The end-to-end answers (429/503, stdio errors) are in `answers.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/core/options.ts";
import {
  Admission,
  CALL_REFUSED,
  CallRefused,
  type CallSlot,
  defaultCallLimits,
  readCallLimits,
} from "../../src/mcp/protocol/admission.ts";

const live = { signal: new AbortController().signal };

function refusalOf(attempt: () => unknown): CallRefused {
  try {
    attempt();
  } catch (error) {
    if (error instanceof CallRefused) return error;
    throw error;
  }
  throw new Error("the call was admitted");
}

const isSlot = (value: CallSlot | Promise<CallSlot>): value is CallSlot => !(value instanceof Promise);

describe("admission", () => {
  test("runs up to the server's limit, queues up to the queue's, then refuses naming --max-calls (503)", async () => {
    const admission = new Admission({ maxRunning: 2, maxRunningPerSubject: 2, maxQueued: 1 });
    const first = admission.admit(undefined, live);
    const second = admission.admit(undefined, live);
    expect([isSlot(first), isSlot(second)]).toEqual([true, true]);
    const queued = admission.admit(undefined, live);
    expect(queued).toBeInstanceOf(Promise);
    expect({ running: admission.running, waiting: admission.waiting }).toEqual({ running: 2, waiting: 1 });
    const refused = refusalOf(() => admission.admit(undefined, live));
    expect(refused.status).toBe(503);
    expect(refused.code).toBe(CALL_REFUSED);
    expect(refused.message).toContain("--max-calls 2");
    expect(refused.data).toEqual({ limit: "server", flag: "--max-calls", retryAfterSeconds: 2 });
    expect(refused.reply()).toMatchObject({ ok: false, status: 503, retryAfter: 2 });
    // A slot given back starts the waiting call.
    (first as CallSlot).release();
    const started = await queued;
    expect({ running: admission.running, waiting: admission.waiting }).toEqual({ running: 2, waiting: 0 });
    started.release();
    (second as CallSlot).release();
    expect(admission.running).toBe(0);
  });

  test("a subject at its limit waits, then is refused naming --max-calls-per-subject (429); another subject still runs", () => {
    const admission = new Admission({ maxRunning: 10, maxRunningPerSubject: 2, maxQueued: 10 });
    for (let n = 0; n < 2; n++) expect(isSlot(admission.admit("alice", live))).toBe(true);
    // Two may wait (the subject's share of the queue), the next is refused.
    for (let n = 0; n < 2; n++) expect(admission.admit("alice", live)).toBeInstanceOf(Promise);
    const refused = refusalOf(() => admission.admit("alice", live));
    expect(refused.status).toBe(429);
    expect(refused.message).toContain("--max-calls-per-subject 2");
    expect(refused.data).toMatchObject({ limit: "subject", flag: "--max-calls-per-subject" });
    // Bob is not held back by Alice's flood.
    expect(isSlot(admission.admit("bob", live))).toBe(true);
    expect(isSlot(admission.admit(undefined, live))).toBe(true);
  });

  test("waiting calls start in the order they came, each when its own subject has room", async () => {
    const admission = new Admission({ maxRunning: 2, maxRunningPerSubject: 1, maxQueued: 10 });
    const alice = admission.admit("alice", live) as CallSlot;
    const bob = admission.admit("bob", live) as CallSlot;
    const order: string[] = [];
    const aliceAgain = (admission.admit("alice", live) as Promise<CallSlot>).then((slot) => {
      order.push("alice");
      return slot;
    });
    const carol = (admission.admit("carol", live) as Promise<CallSlot>).then((slot) => {
      order.push("carol");
      return slot;
    });
    // Bob's slot frees the server, not Alice's share: Carol, behind Alice in the queue, goes first.
    bob.release();
    await carol;
    expect(order).toEqual(["carol"]);
    alice.release();
    await aliceAgain;
    expect(order).toEqual(["carol", "alice"]);
  });

  test("a waiting call that is cancelled leaves the queue: its place is free and it never runs", async () => {
    const admission = new Admission({ maxRunning: 1, maxRunningPerSubject: 1, maxQueued: 1 });
    const running = admission.admit(undefined, live) as CallSlot;
    const aborter = new AbortController();
    const waiting = admission.admit(undefined, { signal: aborter.signal }) as Promise<CallSlot>;
    expect(() => admission.admit(undefined, live)).toThrow(CallRefused);
    aborter.abort();
    await expect(waiting).rejects.toThrow("cancelled while it waited");
    expect(admission.waiting).toBe(0);
    const next = admission.admit(undefined, live);
    expect(next).toBeInstanceOf(Promise);
    running.release();
    (await next).release();
    expect(admission.running).toBe(0);
  });

  test("a subject's cancelled waiting call frees the subject's share too", async () => {
    const admission = new Admission({ maxRunning: 5, maxRunningPerSubject: 1, maxQueued: 5 });
    admission.admit("alice", live);
    const aborter = new AbortController();
    const waiting = admission.admit("alice", { signal: aborter.signal }) as Promise<CallSlot>;
    expect(() => admission.admit("alice", live)).toThrow(CallRefused);
    aborter.abort();
    await expect(waiting).rejects.toThrow();
    expect(admission.admit("alice", live)).toBeInstanceOf(Promise);
  });

  test("a slot released twice frees one place", () => {
    const admission = new Admission({ maxRunning: 2, maxRunningPerSubject: 2, maxQueued: 0 });
    const slot = admission.admit(undefined, live) as CallSlot;
    admission.admit(undefined, live);
    slot.release();
    slot.release();
    expect(admission.running).toBe(1);
    admission.admit(undefined, live);
    expect(() => admission.admit(undefined, live)).toThrow(CallRefused);
  });

  test("an already cancelled call is not queued", async () => {
    const admission = new Admission({ maxRunning: 1, maxRunningPerSubject: 1, maxQueued: 1 });
    admission.admit(undefined, live);
    const aborter = new AbortController();
    aborter.abort();
    await expect(admission.admit(undefined, { signal: aborter.signal })).rejects.toThrow("cancelled");
    expect(admission.waiting).toBe(0);
  });

  test("defaults come from the machine; a per-subject limit above the server's is refused naming both flags", () => {
    expect(defaultCallLimits(2)).toEqual({ maxRunning: 64, maxRunningPerSubject: 16, maxQueued: 128 });
    expect(defaultCallLimits(16)).toEqual({ maxRunning: 256, maxRunningPerSubject: 64, maxQueued: 512 });
    expect(defaultCallLimits(512).maxRunning).toBe(1024);
    expect(readCallLimits({ maxRunning: 8 }, 2)).toEqual({ maxRunning: 8, maxRunningPerSubject: 2, maxQueued: 16 });
    expect(readCallLimits({ maxRunning: 1, maxQueued: 0 }, 2)).toEqual({
      maxRunning: 1,
      maxRunningPerSubject: 1,
      maxQueued: 0,
    });
    expect(() => readCallLimits({ maxRunning: 4, maxRunningPerSubject: 5 })).toThrow(ConfigError);
    expect(() => readCallLimits({ maxRunning: 4, maxRunningPerSubject: 5 })).toThrow(
      /--max-calls-per-subject 5 must not exceed --max-calls 4/,
    );
  });
});
