/**
 * Admission control for tool calls end to end (issue 34 H3): real processes serving probe tools
 * with mcpkit's flags (`fixtures/server.ts`), over HTTP in both eras and over stdio in both eras.
 * Beyond --max-calls-per-subject a caller's calls get 429, beyond --max-calls and
 * --max-queued-calls 503, both with Retry-After and a JSON-RPC error body naming the limit; stdio
 * answers the same JSON-RPC error. Another subject is served during one subject's flood, and a
 * waiting call that is cancelled frees its place. Held calls and the server's readiness lines
 * order every step: nothing waits on the clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import {
  type AuthServer,
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  openRawSession,
  startAuthServer,
  startHttpServer,
} from "../http/support.ts";
import { type Answer, type Json, meta, post, request, until } from "../modern/support.ts";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";

const FIXTURE = resolve(import.meta.dir, "fixtures/server.ts");

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;
const held = (server: { stderr(): string }, n: number) =>
  until(() => server.stderr().includes(`probe_hold started (${n} held)`), `${n} held calls`);
const waiting = (server: { stderr(): string }, n: number) =>
  until(() => occurrences(server.stderr(), "tools/call waits for a slot") >= n, `${n} waiting calls`);

interface HttpAnswer {
  status: number;
  retryAfter: string | null;
  body: Json;
}

async function answerOf(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  const json = text.startsWith("{") ? JSON.parse(text) : JSON.parse(/data: (.*)/.exec(text)?.[1] ?? "{}");
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: json };
}

/** A 2026-07-28 answer (`modern/support.ts` post) as the refusal checks read it. */
const modernAnswer = (answer: Answer): HttpAnswer => ({
  status: answer.status,
  retryAfter: answer.headers.get("retry-after"),
  body: answer.response,
});

/** A tools/call on a 2025 session, raw. */
function sessionCall(
  url: string,
  session: string,
  id: number,
  name: string,
  args: Json = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
  });
}

function expectRefusal(answer: HttpAnswer, status: 429 | 503, flag: string): void {
  expect(answer.status).toBe(status);
  expect(answer.retryAfter).toBe("2");
  expect(answer.body.error.code).toBe(-32000);
  expect(answer.body.error.message).toContain(flag);
  expect(answer.body.error.data).toMatchObject({ flag, limit: status === 429 ? "subject" : "server" });
}

/** A 2025 session of `sub`, signed in: the call helpers send its token with every call. */
interface SignedInSession {
  id: string;
  headers: Record<string, string>;
}

/**
 * The fixture started with `limits` behind a JWT authorization server for the enclosing describe
 * block; `token(sub)` gets a bearer token for user `sub`.
 */
function authorizedServer(limits: string[]) {
  let auth: AuthServer;
  let server: HttpServerProcess;
  beforeAll(async () => {
    auth = await startAuthServer();
    server = await startHttpServer([...limits, "--auth", "jwt", "--issuer", auth.issuer], { entry: FIXTURE });
  });
  afterAll(async () => {
    await server?.stop();
    await auth?.stop();
  });
  return {
    get server() {
      return server;
    },
    token: (sub: string) =>
      auth.token({
        scope: "probe:read",
        resource: server.url,
        mutate: (_header, payload) => {
          payload.sub = sub;
        },
      }),
  };
}

describe("2025-11-25 sessions over HTTP with authorization", () => {
  const fixture = authorizedServer(["--max-calls", "2", "--max-calls-per-subject", "1", "--max-queued-calls", "1"]);
  const signIn = async (sub: string): Promise<SignedInSession> => {
    const headers = { authorization: `Bearer ${await fixture.token(sub)}` };
    return { id: await openRawSession(fixture.server.url, headers), headers };
  };
  const call = (session: SignedInSession, id: number, name: string, args: Json = {}) =>
    sessionCall(fixture.server.url, session.id, id, name, args, session.headers);

  test("one user's flood gets 429 with Retry-After, another user is served, a full server answers 503", async () => {
    const { server } = fixture;
    // One at a time: each token's subject is set by a one-shot hook of the authorization server.
    const alice = await signIn("alice");
    const bob = await signIn("bob");
    const carol = await signIn("carol");
    const aliceHold = call(alice, 1, "probe_hold");
    await held(server, 1);
    // Alice's second call waits (her share of the queue), her third is refused: her limit, 429.
    const aliceWaits = call(alice, 2, "probe_echo", { text: "queued" });
    await waiting(server, 1);
    expectRefusal(await answerOf(await call(alice, 3, "probe_echo", { text: "x" })), 429, "--max-calls-per-subject");
    // Bob is not held back by Alice's calls.
    const bobHold = call(bob, 1, "probe_hold");
    await held(server, 2);
    // Two running, one waiting: the server is full for anyone (503).
    expectRefusal(await answerOf(await call(carol, 1, "probe_echo", { text: "x" })), 503, "--max-calls");
    server.kill("SIGUSR2");
    const answers = await Promise.all([aliceHold, aliceWaits, bobHold].map(async (r) => answerOf(await r)));
    expect(answers.map((answer) => [answer.status, answer.body.result?.content?.[0]?.text])).toEqual([
      [200, "released"],
      [200, "queued"],
      [200, "released"],
    ]);
  });

  /** The ways Alice's waiting call can end before it runs. */
  const leavings: [string, (alice: SignedInSession, leaving: AbortController) => Promise<unknown>][] = [
    [
      "her session is ended (DELETE)",
      async (alice) => {
        const deleted = await fetch(fixture.server.url, {
          method: "DELETE",
          headers: { ...alice.headers, "mcp-session-id": alice.id, "mcp-protocol-version": PROTOCOL_VERSION },
        });
        expect(deleted.status).toBe(200);
      },
    ],
    ["her client disconnects", async (_alice, leaving) => leaving.abort()],
  ];

  test.each(leavings)(
    "a call waiting on a session leaves the queue when %s, and its place is free",
    async (_how, leave) => {
      const { server } = fixture;
      const alice = await signIn("alice");
      const bob = await signIn("bob");
      const carol = await signIn("carol");
      const holds = occurrences(server.stderr(), "probe_hold started");
      const bobHold = call(bob, 1, "probe_hold");
      const aliceHold = call(alice, 1, "probe_hold");
      await until(() => occurrences(server.stderr(), "probe_hold started") >= holds + 2, "two more held calls");
      const queued = occurrences(server.stderr(), "tools/call waits for a slot");
      const left = occurrences(server.stderr(), "tools/call left the queue");
      const leaving = new AbortController();
      const aliceWaits = fetch(server.url, {
        method: "POST",
        headers: {
          ...MCP_HEADERS,
          ...alice.headers,
          "mcp-session-id": alice.id,
          "mcp-protocol-version": PROTOCOL_VERSION,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "probe_echo", arguments: { text: "never" } },
        }),
        signal: leaving.signal,
      });
      await waiting(server, queued + 1);
      await leave(alice, leaving);
      await aliceWaits.then(
        (response) => response.text(),
        () => "",
      );
      await until(
        () => occurrences(server.stderr(), "tools/call left the queue") > left,
        "the waiting call leaving the queue",
      );
      // Both holds still run (a held call ignores its cancellation), but the queue has room again:
      // Carol's call waits instead of being refused with 503.
      const carolCall = call(carol, 1, "probe_echo", { text: "served" });
      await waiting(server, queued + 2);
      server.kill("SIGUSR2");
      expect((await answerOf(await carolCall)).body.result.content[0].text).toBe("served");
      expect((await answerOf(await bobHold)).status).toBe(200);
      await aliceHold.then(
        (response) => response.text(),
        () => "",
      );
    },
  );
});

describe("2026-07-28 over HTTP", () => {
  const fixture = authorizedServer(["--max-calls", "2", "--max-calls-per-subject", "1", "--max-queued-calls", "1"]);
  const { token } = fixture;

  test("a subject's flood gets 429, another subject is served, a full server answers 503, all with Retry-After", async () => {
    const { server } = fixture;
    // One at a time: each token's subject is set by a one-shot hook of the authorization server.
    const alice = await token("alice");
    const bob = await token("bob");
    const carol = await token("carol");
    const as = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
    const call = (bearer: string, name: string, args: Json = {}) =>
      post(server.url, request("tools/call", { name, arguments: args }), as(bearer));
    const aliceHold = call(alice, "probe_hold");
    await held(server, 1);
    const aliceWaits = call(alice, "probe_echo", { text: "queued" });
    await waiting(server, 1);
    expectRefusal(modernAnswer(await call(alice, "probe_echo", { text: "x" })), 429, "--max-calls-per-subject");
    const bobHold = call(bob, "probe_hold");
    await held(server, 2);
    expectRefusal(modernAnswer(await call(carol, "probe_echo", { text: "x" })), 503, "--max-calls");
    server.kill("SIGUSR2");
    const answers = await Promise.all([aliceHold, aliceWaits, bobHold]);
    expect(answers.map((answer) => [answer.status, answer.response.result?.content?.[0]?.text])).toEqual([
      [200, "released"],
      [200, "queued"],
      [200, "released"],
    ]);
  });
});

describe("2026-07-28 over HTTP with room to run but a full queue", () => {
  const fixture = authorizedServer(["--max-calls", "4", "--max-calls-per-subject", "1", "--max-queued-calls", "1"]);

  test("a caller at its running limit whose call cannot wait because the server's queue is full is told the queue is full (503), not its own limit", async () => {
    const { server, token } = fixture;
    const alice = await token("alice");
    const bob = await token("bob");
    const call = (bearer: string, name: string, args: Json = {}) =>
      post(server.url, request("tools/call", { name, arguments: args }), { authorization: `Bearer ${bearer}` });
    const aliceHold = call(alice, "probe_hold");
    const bobHold = call(bob, "probe_hold");
    await held(server, 2);
    // Bob's second call takes the server's only queued place; Alice has none waiting yet.
    const bobWaits = call(bob, "probe_echo", { text: "queued" });
    await waiting(server, 1);
    const refused = modernAnswer(await call(alice, "probe_echo", { text: "x" }));
    expectRefusal(refused, 503, "--max-calls");
    expect(refused.body.error.message).toContain("queue is full");
    expect(refused.body.error.message).toContain("--max-queued-calls 1");
    server.kill("SIGUSR2");
    const answers = await Promise.all([aliceHold, bobHold, bobWaits]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });
});

describe("2026-07-28 over HTTP without authorization", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(["--max-calls", "2", "--max-calls-per-subject", "1", "--max-queued-calls", "2"], {
      entry: FIXTURE,
    });
  });
  afterAll(() => server?.stop());

  test("callers without a token share one caller's limit (429), sessions too however many are opened, and a waiting call whose client disconnects frees its place", async () => {
    const hold = post(server.url, request("tools/call", { name: "probe_hold", arguments: {} }));
    await held(server, 1);
    const leaving = new AbortController();
    const body = request("tools/call", { name: "probe_echo", arguments: { text: "gone" } });
    const gone = fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "probe_echo",
      },
      body: JSON.stringify(body),
      signal: leaving.signal,
    }).catch(() => undefined);
    await waiting(server, 1);
    // Callers without a token count as one: their share is taken, so 429 at once.
    const refused = modernAnswer(
      await post(server.url, request("tools/call", { name: "probe_echo", arguments: { text: "x" } })),
    );
    expectRefusal(refused, 429, "--max-calls-per-subject");
    expect(refused.body.error.message).toContain("callers without a token");
    // A session id is no identity: fresh 2025 sessions without a token are the same caller, so
    // opening more of them does not multiply the share (each would run a call of its own if
    // sessions were subjects, and the server has a free slot).
    const sessions = await Promise.all([1, 2, 3].map(() => openRawSession(server.url)));
    const answers = await Promise.all(
      sessions.map(async (session) => answerOf(await sessionCall(server.url, session, 1, "probe_echo", { text: "x" }))),
    );
    for (const answer of answers) expectRefusal(answer, 429, "--max-calls-per-subject");
    leaving.abort();
    await gone;
    await until(() => server.stderr().includes("tools/call left the queue"), "the waiting call leaving the queue");
    // Its place is free: the next call waits instead of being refused, and runs once the hold ends.
    const next = post(server.url, request("tools/call", { name: "probe_echo", arguments: { text: "next" } }));
    await waiting(server, 2);
    server.kill("SIGUSR2");
    expect((await hold).status).toBe(200);
    const answered = await next;
    expect([answered.status, answered.response.result.content[0].text]).toEqual([200, "next"]);
  });
});

describe("stdio", () => {
  let raw: RawServer;
  beforeAll(() => {
    raw = startRawServer(["--max-calls", "1", "--max-queued-calls", "1"], {}, [process.execPath, FIXTURE]);
  });
  afterAll(() => raw?.kill());

  test("both eras: beyond the queue a call is a JSON-RPC error -32000 naming --max-calls; a cancelled waiting call frees its place", async () => {
    await raw.initialize();
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "probe_hold", arguments: {} } });
    await held(raw, 1);
    raw.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "probe_echo", arguments: { text: "a" } } });
    await waiting(raw, 1);
    // 2025 era: the queue is full.
    raw.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "probe_echo", arguments: { text: "b" } } });
    const legacy = (await raw.response(3)) as Json;
    expect(legacy.error.code).toBe(-32000);
    expect(legacy.error.message).toContain("--max-calls 1");
    expect(legacy.error.data).toEqual({ limit: "server", flag: "--max-calls", retryAfterSeconds: 2 });
    // 2026-07-28 era on the same pipe: the same refusal.
    raw.send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "probe_echo", arguments: { text: "c" }, _meta: meta() },
    });
    const modern = (await raw.response(4)) as Json;
    expect(modern.error.code).toBe(-32000);
    expect(modern.error.message).toContain("--max-calls 1");
    // notifications/cancelled takes the waiting call out: the next one waits in its place.
    raw.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "test" } });
    await until(() => raw.stderr().includes("tools/call left the queue"), "the cancelled call leaving the queue");
    raw.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "probe_echo", arguments: { text: "d" } } });
    await waiting(raw, 2);
    raw.kill("SIGUSR2");
    expect(((await raw.response(1)) as Json).result.content[0].text).toBe("released");
    expect(((await raw.response(5)) as Json).result.content[0].text).toBe("d");
    // The cancelled call was never answered (MCP: no response to a cancelled request).
    expect(raw.lines().some((line) => JSON.parse(line).id === 2)).toBe(false);
  });
});
