/**
 * A 2025-era `ping` (issue 21): the session transport answers it itself with the bytes the session
 * engine sends, without handing it to the engine. In process, through the real pipeline; the
 * count of messages reaching the engine shows whether the fast path was taken.
 */
import { expect, test } from "bun:test";
import { silentLogger } from "../../src/core/log.ts";
import { InFlight } from "../../src/mcp/in-flight.ts";
import { readHttpConfig } from "../../src/mcp/http/config.ts";
import { createHostOriginCheck } from "../../src/mcp/http/host-origin.ts";
import { createPipeline } from "../../src/mcp/http/pipeline.ts";
import { SessionStore } from "../../src/mcp/http/session-store.ts";
import type { HttpState } from "../../src/mcp/http/state.ts";

const URL_ = "http://127.0.0.1:8080/mcp";
const HEADERS = {
  host: "127.0.0.1:8080",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function setUp(stateless = false) {
  const config = readHttpConfig({ http: "127.0.0.1:8080", ...(stateless ? { stateless: true } : {}) });
  if (!config) throw new Error("no config");
  const store = new SessionStore({ maxSessions: 10, maxPerOwner: 10, idleMs: 3_600_000 }, silentLogger);
  const state: HttpState = {
    config,
    serverOptions: { toolsets: [], log: silentLogger, toolNames: "portable", outputBudget: 100_000 },
    log: silentLogger,
    publicUrl: new URL("http://127.0.0.1:8080"),
    resource: URL_,
    sessions: stateless ? undefined : store,
    resourceServer: undefined,
    stopping: false,
    statelessCalls: new InFlight(),
  };
  const handle = createPipeline(state, createHostOriginCheck({ boundHost: "127.0.0.1", publicUrl: state.publicUrl }));
  return { handle, store };
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: "POST", headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });

test("a ping is answered by the transport with the session engine's bytes; a ping with params still reaches the engine", async () => {
  const { handle, store } = setUp();
  const init = await handle(
    post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  );
  const sessionId = init.headers.get("mcp-session-id") ?? "";
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));

  const transport = store.get(sessionId)?.transport;
  if (!transport?.onmessage) throw new Error("no session");
  const reached: string[] = [];
  const toEngine = transport.onmessage;
  transport.onmessage = (message, extra) => {
    reached.push((message as { method?: string }).method ?? "(response)");
    toEngine(message, extra);
  };

  const fast = await handle(post({ jsonrpc: "2.0", id: 7, method: "ping" }, headers));
  const fastEmpty = await handle(post({ jsonrpc: "2.0", id: "p", method: "ping", params: {} }, headers));
  expect(reached).toEqual([]);
  const viaEngine = await handle(post({ jsonrpc: "2.0", id: 7, method: "ping", params: { _meta: {} } }, headers));
  expect(reached).toEqual(["ping"]);

  expect([fast.status, fast.headers.get("content-type"), fast.headers.get("mcp-session-id")]).toEqual([
    200,
    "application/json",
    sessionId,
  ]);
  const engineBytes = await viaEngine.text();
  expect(await fast.text()).toBe(engineBytes);
  expect(engineBytes).toBe('{"jsonrpc":"2.0","id":7,"result":{}}');
  expect(await fastEmpty.text()).toBe('{"jsonrpc":"2.0","id":"p","result":{}}');
  // Nothing is left on the session's record of requests in flight.
  expect(transport.requestsInFlight).toBe(0);
});

test("the checks before it still apply, stateless too: a wrong protocol version gets 400, a missing Accept 406", async () => {
  const { handle } = setUp(true);
  const ok = await handle(post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "2025-11-25" }));
  expect(await ok.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  const refused = await handle(
    post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-protocol-version": "1999-01-01" }),
  );
  expect(refused.status).toBe(400);
  const noAccept = await handle(
    new Request(URL_, {
      method: "POST",
      headers: { host: HEADERS.host, "content-type": "application/json", accept: "application/json" },
      body: '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    }),
  );
  expect(noAccept.status).toBe(406);
});
