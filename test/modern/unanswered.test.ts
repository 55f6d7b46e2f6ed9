/**
 * A 2026-07-28 request for a method nothing answers (`ping`, which the revision removed, a method
 * removed or unknown) is refused by the HTTP endpoint at once (issue 39): no answer to track in
 * flight, no error object. In process, through the real pipeline; whether the request entered the
 * record of requests in flight shows whether the fast path was taken, and its bytes must be the
 * ones the era's `answer` gives.
 */
import { expect, test } from "bun:test";
import { jsonAnswer } from "../../src/mcp/http/answer.ts";
import { answer, readEnvelope } from "../../src/mcp/modern/core.ts";
import { ANONYMOUS } from "../../src/mcp/protocol/caller.ts";
import { inProcessPipeline, inProcessPost, inProcessState } from "../http/in-process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function modernPost(id: string, method: string) {
  return inProcessPost(
    { jsonrpc: "2.0", id, method, params: { _meta: META } },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": method },
  );
}

test("ping and other unanswered methods are refused without entering the requests in flight, with the bytes answer() gives", async () => {
  const state = inProcessState();
  const { handle } = inProcessPipeline(state);
  const tracked: unknown[] = [];
  const { inFlight } = state.modern;
  const add = inFlight.add.bind(inFlight);
  inFlight.add = (request, key) => {
    tracked.push(request);
    add(request, key);
  };

  // A method that is answered goes through the record: the spy sees it.
  const listed = await handle(modernPost("l", "tools/list"));
  expect(listed.status).toBe(200);
  expect(tracked.length).toBe(1);

  for (const method of ["ping", "logging/setLevel", "no/such"]) {
    const response = await handle(modernPost(`m-${method}`, method));
    const io = { signal: new AbortController().signal, caller: ANONYMOUS, notify: () => {} };
    const envelope = readEnvelope({ _meta: META });
    const general = jsonAnswer(`m-${method}`, await answer(state.modern.server, method, {}, envelope, io), {});
    expect([response.status, response.headers.get("content-type")]).toEqual([404, "application/json"]);
    expect(await response.text()).toBe(await general.text());
    expect(general.status).toBe(404);
  }
  expect(tracked.length).toBe(1);
  expect(state.modern.inFlight.size).toBe(0);
});
