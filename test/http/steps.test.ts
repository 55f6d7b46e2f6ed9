/**
 * Each step of the HTTP pipeline (src/mcp/http/pipeline.ts) on its own, in-process: a Request in,
 * a Response out, no sockets. The end-to-end behaviour is in transport/auth/malformed tests.
 */
import { expect, test } from "bun:test";
import { createLogger, silentLogger } from "../../src/core/log.ts";
import { readHttpConfig } from "../../src/mcp/http/config.ts";
import { cors } from "../../src/mcp/http/cors.ts";
import { draining } from "../../src/mcp/http/draining.ts";
import { health } from "../../src/mcp/http/health.ts";
import { createHostOriginCheck, hostAndOrigin } from "../../src/mcp/http/host-origin.ts";
import { jsonRpcBody } from "../../src/mcp/http/jsonrpc-body.ts";
import { notFound } from "../../src/mcp/http/mcp-endpoint.ts";
import { methods } from "../../src/mcp/http/methods.ts";
import { type Exchange, type Middleware, compose, mount, route } from "../../src/mcp/http/middleware.ts";
import { SessionStore } from "../../src/mcp/http/session-store.ts";
import { ownerKey } from "../../src/mcp/protocol/caller.ts";
import { type HttpState, createHttpState } from "../../src/mcp/http/state.ts";
import { plainPath, requestPath } from "../../src/mcp/http/well-formed.ts";

function makeState(overrides: Partial<HttpState> = {}): HttpState {
  const config = readHttpConfig({ http: "127.0.0.1:0", "max-body-bytes": "2048" });
  if (!config) throw new Error("no config");
  const serverOptions = { toolsets: [], log: silentLogger, toolNames: "portable" as const, outputBudget: 100_000 };
  const state = createHttpState(config, serverOptions, { publicUrl: new URL("http://127.0.0.1:8080") });
  return { ...state, sessions: undefined, ...overrides };
}

function exchange(path: string, init: RequestInit = {}): Exchange {
  const request = new Request(`http://127.0.0.1:8080${path}`, init);
  const url = new URL(request.url);
  return { request, url, pathname: url.pathname, clientAddress: () => "127.0.0.1" };
}

/** What the rest of the pipeline answers in these tests: 299, so "passed on" is visible. */
const next = async () => new Response("passed on", { status: 299 });
const run = async (step: Middleware, ex: Exchange) => step(ex, next);

test("compose runs steps in order until one answers; route answers only its own paths", async () => {
  const seen: string[] = [];
  const tag =
    (name: string): Middleware =>
    (_e, n) => {
      seen.push(name);
      return n();
    };
  const handle = compose([tag("a"), route("/x", () => new Response("x")), tag("b"), () => new Response("end")]);
  expect(await (await handle(exchange("/x"))).text()).toBe("x");
  expect(await (await handle(exchange("/y"))).text()).toBe("end");
  expect(seen).toEqual(["a", "a", "b"]);
  await expect(compose([tag("only")])(exchange("/"))).rejects.toThrow("without an answer");
});

test("well-formed: the URL's path, or 400 with a sentence logged at debug only", () => {
  const lines: string[] = [];
  const log = createLogger("debug", (line) => lines.push(line));
  expect(requestPath(new Request("http://127.0.0.1:1/mcp", { headers: { host: "127.0.0.1:1" } }), log)).toBe("/mcp");
  const refused = requestPath(
    new Request("http://127.0.0.1:1/mcp", { headers: { host: "127.0.0.1#evil" } }),
    log,
  ) as Response;
  expect(refused.status).toBe(400);
  expect(lines.length).toBe(1);
  expect(lines[0]).toContain("DEBUG");
});

test("well-formed: the path of a plain URL is read without the URL parser, and always as the parser reads it", () => {
  // The fast path (issue 21): the MCP endpoint's own requests never reach the URL parser.
  expect(plainPath("http://127.0.0.1:8080/mcp", "127.0.0.1:8080")).toBe("/mcp");
  expect(plainPath("https://mcp.example.com/oauth/callback", "mcp.example.com")).toBe("/oauth/callback");
  // A segment that starts with a dot is the parser's to read (it may be a dot segment).
  expect(plainPath("http://127.0.0.1:8080/.well-known/x", "127.0.0.1:8080")).toBeUndefined();
  const host = "127.0.0.1:8080";
  const tricky = [
    "/mcp",
    "/a/../mcp",
    "/./mcp",
    "/%6Dcp",
    "/mcp?x=1",
    "/mcp#f",
    "//mcp",
    "/mcp/",
    "/",
    "/a\\b",
    "/m c p",
  ];
  const alphabet = [..."/.%?#\\ab-_~:@!$&'()*+,;=\u00e9 "];
  const random = Array.from({ length: 2000 }, (_, i) => {
    let path = "/";
    for (let k = 0; k < 1 + (i % 12); k++) path += alphabet[Math.floor(Math.random() * alphabet.length)];
    return path;
  });
  for (const path of [...tricky, ...random]) {
    const url = `http://${host}${path}`;
    if (!URL.canParse(url)) continue;
    const request = new Request(url, { headers: { host } });
    expect([path, requestPath(request, silentLogger)]).toEqual([path, new URL(request.url).pathname]);
  }
});

test("health: 200 with the session and call counts; 503 while draining", async () => {
  const state = makeState();
  const anyHost = () => undefined;
  expect((await run(health(state, anyHost), exchange("/healthz"))).status).toBe(200);
  expect((await run(health(state, anyHost), exchange("/mcp"))).status).toBe(299);
  state.stopping = true;
  const response = await run(health(state, anyHost), exchange("/healthz"));
  expect(response.status).toBe(503);
  expect(await response.json()).toEqual({ status: "stopping", sessions: 0, calls: { running: 0, waiting: 0 } });
});

test("mcp endpoint: its steps run for /mcp only; any other path gets 404 naming /mcp", async () => {
  const refuse: Middleware = () => new Response("refused by an /mcp step", { status: 403 });
  expect((await run(mount("/mcp", [refuse]), exchange("/mcp"))).status).toBe(403);
  expect((await run(mount("/mcp", [refuse]), exchange("/other"))).status).toBe(299);
  const other = await run(notFound(), exchange("/other"));
  expect(other.status).toBe(404);
  expect(await other.text()).toContain("/mcp");
});

test("draining: 503 with Retry-After once stopping", async () => {
  const state = makeState();
  expect((await run(draining(state), exchange("/mcp"))).status).toBe(299);
  state.stopping = true;
  const refused = await run(draining(state), exchange("/mcp"));
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toBe("5");
});

test("host and origin: foreign names get 403, loopback names pass", async () => {
  const check = createHostOriginCheck({ boundHost: "127.0.0.1", publicUrl: new URL("http://127.0.0.1:8080") });
  const step = hostAndOrigin(makeState(), check);
  expect(
    (await run(step, exchange("/mcp", { headers: { host: "localhost:9", origin: "http://localhost:3000" } }))).status,
  ).toBe(299);
  expect((await run(step, exchange("/mcp", { headers: { host: "evil.example" } }))).status).toBe(403);
  expect(
    (await run(step, exchange("/mcp", { headers: { host: "127.0.0.1:8080", origin: "http://evil.example" } }))).status,
  ).toBe(403);
  expect(check("127.999.999.999", null)).toContain("Host");
});

test("cors: preflight answered; allowed origins can read the session id and challenge", async () => {
  const preflight = await run(
    cors(),
    exchange("/mcp", { method: "OPTIONS", headers: { origin: "http://localhost:3000" } }),
  );
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get("access-control-allow-headers")).toContain("mcp-session-id");
  const answered = await run(
    cors(),
    exchange("/mcp", { method: "POST", headers: { origin: "http://localhost:3000" } }),
  );
  expect(answered.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
  expect((await run(cors(), exchange("/mcp"))).headers.get("access-control-allow-origin")).toBeNull();
});

test("methods: 405 with Allow; GET and DELETE only with sessions", async () => {
  const stateful = methods(
    makeState({ sessions: new SessionStore({ maxSessions: 1, maxPerOwner: 1, idleMs: 60_000 }, silentLogger) }),
  );
  const statelessStep = methods(makeState());
  expect((await run(stateful, exchange("/mcp", { method: "GET" }))).status).toBe(299);
  const put = await run(stateful, exchange("/mcp", { method: "PUT" }));
  expect(put.status).toBe(405);
  expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
  const get = await run(statelessStep, exchange("/mcp", { method: "GET" }));
  expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
});

test("JSON-RPC body: the message rides on the exchange; 413, -32700 and -32600 otherwise", async () => {
  const step = jsonRpcBody(makeState());
  const ok = exchange("/mcp", { method: "POST", body: '{"jsonrpc":"2.0","id":3,"method":"ping"}' });
  expect((await run(step, ok)).status).toBe(299);
  expect(ok.message).toMatchObject({ method: "ping", id: 3, isRequest: true });
  const codeOf = async (body: string) => {
    const response = await run(step, exchange("/mcp", { method: "POST", body }));
    return [response.status, ((await response.json()) as { error: { code: number } }).error.code];
  };
  expect(await codeOf("x".repeat(3000))).toEqual([413, -32600]);
  expect(await codeOf("{nope")).toEqual([400, -32700]);
  expect(await codeOf("[]")).toEqual([400, -32600]);
});

test("session store: the per-owner cap refuses only that owner, and counts come back when sessions end", () => {
  const store = new SessionStore({ maxSessions: 10, maxPerOwner: 2, idleMs: 60_000 }, silentLogger);
  const alice = ownerKey("https://issuer", "alice");
  const bob = ownerKey("https://issuer", "bob");
  expect(ownerKey("https://a", "x")).not.toBe(ownerKey("https://b", "x"));
  expect([store.reserve(alice), store.reserve(alice), store.reserve(alice)]).toEqual([
    undefined,
    undefined,
    "owner-full",
  ]);
  expect(store.reserve(bob)).toBeUndefined();
  // Anonymous sessions (no authorization) have no per-owner cap.
  expect([store.reserve(undefined), store.reserve(undefined), store.reserve(undefined)]).toEqual([
    undefined,
    undefined,
    undefined,
  ]);
  store.release(alice);
  expect(store.heldBy(alice)).toBe(1);
  expect(store.reserve(alice)).toBeUndefined();
  const full = new SessionStore({ maxSessions: 1, maxPerOwner: 5, idleMs: 60_000 }, silentLogger);
  expect([full.reserve(alice), full.reserve(bob)]).toEqual([undefined, "server-full"]);
  expect(full.heldBy(bob)).toBe(0);
});

test("answers share one Headers for their content type, so CORS headers added to one never reach the next", async () => {
  const { createPipeline } = await import("../../src/mcp/http/pipeline.ts");
  const state = makeState({
    sessions: new SessionStore({ maxSessions: 2, maxPerOwner: 2, idleMs: 60_000 }, silentLogger),
  });
  const check = createHostOriginCheck({ boundHost: "127.0.0.1", publicUrl: state.publicUrl });
  const handle = createPipeline(state, check);
  const base = {
    host: "127.0.0.1:8080",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const origin = { origin: "http://localhost:3000" };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const discover = (extra: Record<string, string>) =>
    handle(
      new Request("http://127.0.0.1:8080/mcp", {
        method: "POST",
        headers: { ...base, ...extra, "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }),
      }),
    );
  expect((await discover(origin)).headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
  expect((await discover({})).headers.get("access-control-allow-origin")).toBeNull();

  const init = await handle(
    new Request("http://127.0.0.1:8080/mcp", {
      method: "POST",
      headers: base,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    }),
  );
  const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
  const ping = (extra: Record<string, string>) =>
    handle(
      new Request("http://127.0.0.1:8080/mcp", {
        method: "POST",
        headers: { ...base, ...session, ...extra },
        body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      }),
    );
  const withOrigin = await ping(origin);
  expect([withOrigin.headers.get("access-control-allow-origin"), withOrigin.headers.get("mcp-session-id")]).toEqual([
    "http://localhost:3000",
    session["mcp-session-id"],
  ]);
  const without = await ping({});
  expect([without.headers.get("access-control-allow-origin"), without.headers.get("mcp-session-id")]).toEqual([
    null,
    session["mcp-session-id"],
  ]);
});
