/**
 * A 2025-era `ping` (issue 21): the session transport answers it itself with the bytes the session
 * engine sends, without handing it to the engine. In process, through the real pipeline; the
 * count of messages reaching the engine shows whether the fast path was taken.
 */
import { expect, test } from "bun:test";
import {
  IN_PROCESS_HEADERS,
  IN_PROCESS_URL,
  inProcessPipeline,
  inProcessPost as post,
  inProcessState,
  openInProcessSession,
} from "./in-process.ts";

function setUp(stateless = false) {
  return inProcessPipeline(inProcessState({ flags: stateless ? { stateless: true } : {} }));
}

test("a ping is answered by the transport with the session engine's bytes; a ping with params still reaches the engine", async () => {
  const { handle, store } = setUp();
  const headers = await openInProcessSession(handle);
  const sessionId = headers["mcp-session-id"];

  const transport = store?.get(sessionId)?.transport;
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
  expect(transport.requests.size).toBe(0);
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
    new Request(IN_PROCESS_URL, {
      method: "POST",
      headers: { host: IN_PROCESS_HEADERS.host, "content-type": "application/json", accept: "application/json" },
      body: '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    }),
  );
  expect(noAccept.status).toBe(406);
});
