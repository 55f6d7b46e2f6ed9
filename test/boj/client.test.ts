/**
 * The HTTP client against the fake BOJ server: gzip, retries (which, how many, how far apart),
 * timeouts, gateway pages, capped bodies, cancellation and the spacing between requests.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/core/log.ts";
import { BojClient, type BojClientConfig } from "../../src/toolsets/boj/client.ts";
import { bojClientConfig } from "./support.ts";
import { type Pacer, createPacer } from "../../src/toolsets/boj/pacer.ts";
import { FakeClock, recordingSleep } from "../support/fake-clock.ts";
import { decodeDataBody } from "../../src/toolsets/boj/decode/index.ts";
import { BojError, toProtocolError } from "../../src/toolsets/boj/errors.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { buildCodeRequest, requestPath } from "../../src/toolsets/boj/validation.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

function client(
  overrides: Partial<BojClientConfig> = {},
  clock: { pace?: Pacer; wait?: (ms: number, signal: AbortSignal) => Promise<void>; now?: () => number } = {},
): BojClient {
  return new BojClient(bojClientConfig(fake.url, overrides), silentLogger, clock.pace, clock.wait, clock.now);
}

const request = buildCodeRequest({
  db: "CO",
  codes: ["TK99F1000601GCQ01000"],
  start_date: "202401",
  end_date: "202504",
});

function fetchCo(c: BojClient, signal = new AbortController().signal) {
  return c.send(request, signal, (body) => decodeDataBody(body, request, "code").output);
}

async function failure(promise: Promise<unknown>): Promise<BojError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BojError) return error;
    throw error;
  }
  throw new Error("expected a BojError");
}

test("asks for gzip, gets a gzipped body, and decodes it", async () => {
  const output = await fetchCo(client());
  expect(output.series[0].points.map((p) => p.value)).toEqual([11, 13, 13, 14, 12, 13, 14, null]);
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0].acceptEncoding).toContain("gzip");
  expect(fake.requests[0].gzipped).toBe(true);
  expect(fake.requests[0].userAgent).toBe("mcpkit-test");
  expect(fake.requests[0].query.get("code")).toBe("TK99F1000601GCQ01000");
});

describe('retries (docs/contracts/boj.md "Retries")', () => {
  test("BOJ 500 then 503 are retried with backoff 40 ms then 80 ms, and the third attempt succeeds", async () => {
    fake.enqueue({ kind: "status", status: 500 }, { kind: "status", status: 503 });
    const clock = new FakeClock();
    const firstWait = clock.nextSleep();
    const answer = fetchCo(client({}, { wait: clock.sleep }));
    expect(await firstWait).toBe(40); // backoff·2^0
    clock.advance(39);
    expect(clock.sleeping).toBe(1); // not yet: the retry waits out the whole backoff
    expect(fake.requests).toHaveLength(1);
    const secondWait = clock.nextSleep();
    clock.advance(1);
    expect(await secondWait).toBe(80); // backoff·2^1
    expect(fake.requests).toHaveLength(2);
    clock.advance(80);
    expect((await answer).meta.status).toBe(200);
    expect(fake.requests).toHaveLength(3);
    expect(clock.waits).toEqual([40, 80]);
  });

  test("gives up after retry_max retries with the last API error and the attempt count", async () => {
    fake.enqueue(
      { kind: "status", status: 503 },
      { kind: "status", status: 503 },
      { kind: "status", status: 503 },
      { kind: "status", status: 503 },
    );
    const error = await failure(fetchCo(client()));
    expect(error.type).toBe("API_ERROR");
    expect(error.details).toMatchObject({ status: 503, message_id: "M181091S", attempts: 3 });
    expect(fake.requests).toHaveLength(3);
  });

  test("retry_max 0 means one attempt", async () => {
    fake.enqueue({ kind: "status", status: 500 });
    expect((await failure(fetchCo(client({ retryMax: 0 })))).details.attempts).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });

  test("a 400 is not retried", async () => {
    const bad = buildCodeRequest({ db: "CO", codes: ["NOPE"] });
    const error = await failure(
      client().send(bad, new AbortController().signal, (body) => decodeDataBody(body, bad, "code")),
    );
    expect(error.details).toMatchObject({ status: 400, message_id: "M181013E" });
    expect(error.message).toContain("1番目のコード");
    expect(fake.requests).toHaveLength(1);
  });

  test("a gateway's HTML 502 is a transport failure: retried, then the real answer", async () => {
    fake.enqueue({ kind: "html", status: 502 });
    expect((await fetchCo(client())).series_count).toBe(1);
    expect(fake.requests).toHaveLength(2);
  });

  test("HTML 502 on every attempt ends as TRANSPORT_ERROR with an excerpt", async () => {
    fake.enqueue({ kind: "html", status: 502 }, { kind: "html", status: 502 }, { kind: "html", status: 502 });
    const error = await failure(fetchCo(client()));
    expect(error.type).toBe("TRANSPORT_ERROR");
    expect(error.message).toContain("502 Bad Gateway");
    expect(error.details.attempts).toBe(3);
  });

  test("an HTML 4xx is an API_ERROR with the HTTP status and is not retried", async () => {
    fake.enqueue({
      kind: "raw",
      status: 403,
      body: "<html><body>Forbidden by WAF</body></html>",
      contentType: "text/html",
    });
    const error = await failure(fetchCo(client()));
    expect(error.type).toBe("API_ERROR");
    expect(error.details).toMatchObject({ status: 403, message_id: null });
    expect(error.message).toBe("Forbidden by WAF");
    expect(fake.requests).toHaveLength(1);
  });

  test("a connection dropped mid-body is retried", async () => {
    fake.enqueue({ kind: "drop" });
    expect((await fetchCo(client())).series_count).toBe(1);
    expect(fake.requests).toHaveLength(2);
  });

  test("an unreachable host is a TRANSPORT_ERROR after all attempts", async () => {
    const error = await failure(fetchCo(client({ baseUrl: "http://127.0.0.1:9", retryBackoffMs: 1 })));
    expect(error.type).toBe("TRANSPORT_ERROR");
    // The host and the flag to check, like oj's network errors (issue 19).
    expect(error.message).toContain("cannot reach BOJ at 127.0.0.1:9 (connection refused): check --boj-base-url");
    expect(error.details.attempts).toBe(3);
  });
});

describe("Retry-After", () => {
  test("503 with Retry-After: 3600 is not retried, and the error says to retry after about an hour", async () => {
    fake.enqueue({ kind: "status", status: 503, headers: { "retry-after": "3600" } });
    const waits: number[] = [];
    const error = await failure(fetchCo(client({}, { wait: recordingSleep(waits) })));
    expect(fake.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(error.details).toMatchObject({ status: 503, attempts: 1, retry_after_s: 3600 });
    const shown = toProtocolError(error, "boj_get_data_code");
    expect(shown.message).toContain(
      "BOJ asked to retry after 3600 s (about 1 h) (Retry-After): do not call boj_get_data_code again before then",
    );
    expect(shown.data).toMatchObject({ retry_after_s: 3600 });
  });

  test("a short Retry-After is waited out in full before the retry, not just the backoff", async () => {
    fake.enqueue({ kind: "status", status: 503, headers: { "retry-after": "3" } });
    const clock = new FakeClock();
    const firstWait = clock.nextSleep();
    const answer = fetchCo(client({}, { wait: clock.sleep }));
    expect(await firstWait).toBe(3000); // not the 40 ms backoff
    clock.advance(2999);
    expect(fake.requests).toHaveLength(1);
    clock.advance(1);
    expect((await answer).meta.status).toBe(200);
    expect(fake.requests).toHaveLength(2);
    expect(clock.waits).toEqual([3000]);
  });

  test("an HTTP-date Retry-After is measured from the injected clock", async () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    fake.enqueue({ kind: "status", status: 503, headers: { "retry-after": "Wed, 21 Oct 2026 07:28:02 GMT" } });
    const waits: number[] = [];
    expect((await fetchCo(client({}, { wait: recordingSleep(waits), now: () => now }))).series_count).toBe(1);
    expect(waits).toEqual([2000]);

    fake.reset();
    fake.enqueue({ kind: "status", status: 503, headers: { "retry-after": "Wed, 21 Oct 2026 09:28:00 GMT" } });
    const error = await failure(fetchCo(client({}, { wait: recordingSleep(waits), now: () => now })));
    expect(error.details.retry_after_s).toBe(7200);
    expect(fake.requests).toHaveLength(1);
  });

  test("429 with Retry-After: the error gives the wait and what to do", async () => {
    fake.enqueue({
      kind: "raw",
      status: 429,
      body: "<html><body>Too Many Requests</body></html>",
      contentType: "text/html",
      headers: { "retry-after": "120" },
    });
    const error = await failure(fetchCo(client()));
    expect(fake.requests).toHaveLength(1);
    const shown = toProtocolError(error, "boj_get_data_code");
    expect(shown.message).toContain("The BOJ API answered HTTP 429: Too Many Requests (too many requests:");
    expect(shown.message).toContain("retry after 120 s (about 2 min) (Retry-After)");
  });
});

describe("redirects", () => {
  test("a redirect to another host is refused, naming that host, and its answer never comes back", async () => {
    // A second fake on another local port: it would answer valid BOJ data for the same request.
    const elsewhere = startFakeBoj();
    try {
      const path = `/api/v1/getDataCode?db=CO&code=TK99F1000601GCQ01000`;
      fake.enqueue({ kind: "raw", status: 302, body: "", headers: { location: `${elsewhere.url}${path}` } });
      const error = await failure(fetchCo(client()));
      expect(error.type).toBe("TRANSPORT_ERROR");
      const host = new URL(elsewhere.url).host;
      expect(error.message).toContain(`answered HTTP 302, a redirect to another host, ${host}`);
      expect(error.message).toContain("--boj-base-url (BOJ_BASE_URL)");
      expect(elsewhere.requests).toHaveLength(0);
      expect(fake.requests).toHaveLength(1); // not retried: the same request gets the same redirect
    } finally {
      await elsewhere.stop();
    }
  });

  test("a redirect to a host that does not resolve names that host, not BOJ's", async () => {
    fake.enqueue({ kind: "raw", status: 302, body: "", headers: { location: "http://example.invalid/x" } });
    const error = await failure(fetchCo(client()));
    expect(error.message).toContain("a redirect to another host, example.invalid (http://example.invalid)");
    expect(error.message).not.toContain("cannot reach");
    expect(error.details.attempts).toBe(1);
  });

  test("a redirect within the configured origin is followed, a few times at most", async () => {
    const { pathname, search } = new URL(`${fake.url}${requestPath(request)}`);
    fake.enqueue({ kind: "raw", status: 301, body: "", headers: { location: `${pathname}${search}` } });
    expect((await fetchCo(client())).series_count).toBe(1);
    expect(fake.requests).toHaveLength(2);

    fake.reset();
    const loop = { kind: "raw", status: 307, body: "", headers: { location: `${pathname}${search}` } } as const;
    fake.enqueue(loop, loop, loop, loop, loop);
    const error = await failure(fetchCo(client()));
    expect(error.message).toContain("a redirect again after 3 redirects");
    expect(fake.requests).toHaveLength(4);
  });
});

test("a slow answer times out per attempt and is retried", async () => {
  // The first answer would come after the test's own timeout, so only the per-attempt timeout lets
  // the retry answer in time; the second gets the same second, which a loaded machine's loopback
  // answer does not need.
  fake.enqueue({ kind: "delay", ms: 60_000 });
  expect((await fetchCo(client({ timeoutMs: 1000, retryMax: 1 }))).series_count).toBe(1);
  expect(fake.requests).toHaveLength(2);

  fake.reset();
  fake.enqueue({ kind: "delay", ms: 60_000 });
  const error = await failure(fetchCo(client({ timeoutMs: 150, retryMax: 0 })));
  expect(error.type).toBe("TRANSPORT_ERROR");
  expect(error.message).toContain("within 150 ms (--boj-timeout-ms)");
});

test("a body over the cap is a DECODE_ERROR, read no further than the cap, and not retried", async () => {
  fake.enqueue({ kind: "oversize", bytes: 50 * 1024 * 1024 });
  const error = await failure(fetchCo(client({ maxBodyBytes: 1024 * 1024 })));
  expect(error.type).toBe("DECODE_ERROR");
  expect(error.message).toContain("1048576-byte cap (--boj-max-body-bytes)");
  expect(fake.requests).toHaveLength(1);
});

describe("cancellation", () => {
  test("aborts a backoff wait at once", async () => {
    fake.enqueue({ kind: "status", status: 500 });
    const controller = new AbortController();
    // The real wait, ten minutes long: only the abort can end it within the test's timeout. It is
    // cancelled when the client announces it, that is while it waits.
    const c = client({ retryBackoffMs: 600_000 });
    const call = c.send(
      request,
      controller.signal,
      (body) => decodeDataBody(body, request, "code").output,
      (_level, message) => {
        if (message.includes("retrying in 600000 ms")) controller.abort(new Error("cancelled by client"));
      },
    );
    // Not `expect(call).rejects`, which in Bun 1.4.4 outlives the test's timeout when call never settles.
    const error = await call.then(
      () => undefined,
      (reason: Error) => reason,
    );
    expect(error?.message).toBe("cancelled by client");
    expect(fake.requests).toHaveLength(1);
  });

  test("aborts a request in flight", async () => {
    // The answer and the per-attempt timeout both come after the test's own timeout: only the abort can end the call.
    fake.enqueue({ kind: "delay", ms: 60_000 });
    const controller = new AbortController();
    const call = fetchCo(client({ timeoutMs: 60_000 }), controller.signal).then(
      () => undefined,
      (reason: Error) => reason,
    );
    while (fake.requests.length === 0) await Bun.sleep(5);
    controller.abort(new Error("cancelled by client"));
    expect((await call)?.message).toBe("cancelled by client");
  });
});

test("requests to one host are spaced by the minimum interval, even when issued together", async () => {
  const clock = new FakeClock();
  const pace = createPacer(clock); // one process's pacer, shared by its sessions' clients
  const c = client({ minIntervalMs: 150 }, { pace });
  const other = client({ minIntervalMs: 150 }, { pace });
  const calls = [fetchCo(c), fetchCo(other), fetchCo(c)];
  expect(clock.waits).toEqual([150, 300]); // the first goes at once, the others take the next slots
  await calls[0];
  expect(fake.requests).toHaveLength(1);
  clock.advance(149);
  expect(clock.sleeping).toBe(2);
  clock.advance(1);
  await calls[1];
  expect(fake.requests).toHaveLength(2);
  expect(clock.sleeping).toBe(1);
  clock.advance(150);
  await calls[2];
  expect(fake.requests).toHaveLength(3);
});

test("a caller cancelled while waiting for its turn gives its slot back", async () => {
  const clock = new FakeClock();
  const awaitTurn = createPacer(clock);
  const origin = "http://pacer-test.invalid";
  const never = new AbortController().signal;
  await awaitTurn(origin, 300, never); // first request: goes at once, next slot in 300 ms
  const cancelled = new AbortController();
  const waiting = awaitTurn(origin, 300, cancelled.signal).catch((error) => error);
  clock.advance(100);
  cancelled.abort(new Error("cancelled"));
  expect(await waiting).toBeInstanceOf(Error);
  const announced: number[] = [];
  const next = awaitTurn(origin, 300, never, (ms) => announced.push(ms));
  // It takes the cancelled caller's slot (300 ms after the first), not the one after it (600 ms).
  expect(announced).toEqual([200]);
  clock.advance(200);
  await next;
  expect(clock.waits).toEqual([300, 200]);
});

test("callers cancelled ahead of others give their slots back: everyone behind moves up, none closer than the interval", async () => {
  const clock = new FakeClock();
  const awaitTurn = createPacer(clock);
  const origin = "http://pacer-test.invalid";
  const never = new AbortController().signal;
  await awaitTurn(origin, 1000, never); // goes at once; the next slot is at 1000
  const cancelled = Array.from({ length: 10 }, () => new AbortController());
  const queued = cancelled.map((controller) => awaitTurn(origin, 1000, controller.signal).catch((error) => error));
  const kept = awaitTurn(origin, 1000, never);
  clock.advance(50);
  // Cancelled in arrival order, as client timeouts fire: only the last gave its slot back before.
  for (const controller of cancelled) controller.abort(new Error("cancelled"));
  for (const outcome of await Promise.all(queued)) expect(outcome).toBeInstanceOf(Error);
  // The kept caller now holds the first free slot (1000), not the eleventh (11000).
  clock.advance(949);
  expect(clock.sleeping).toBe(1);
  clock.advance(1);
  expect(clock.sleeping).toBe(0); // woken at 1000 (it slept until 11000 before)
  await kept;
  const announced: number[] = [];
  const next = awaitTurn(origin, 1000, never, (ms) => announced.push(ms));
  expect(announced).toEqual([1000]); // one interval after the kept caller's request, not before
  clock.advance(1000);
  await next;
});
