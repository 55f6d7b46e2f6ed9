/**
 * mcpkit's own Streamable HTTP transport (`src/mcp/http/session-transport.ts`) over real sockets:
 * a request is answered `application/json` unless something related to it has to go first (then
 * the answer is an SSE stream, the response last), notifications get 202, the GET stream carries
 * messages related to no request, and the header checks of the SDK transport still hold.
 * The probe fixture offers tools that report progress, log, sleep and broadcast on demand.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { until } from "../modern/support.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  connectClient,
  deleteRawSession,
  keepAlives,
  messagesOf,
  openRawSession,
  readInBackground,
  startHttpServer,
} from "./support.ts";

const PROBE = join(import.meta.dir, "fixtures/probe-server.ts");

type Message = Record<string, any>;

/** A raw tools/call body. */
function callBody(
  id: number | string,
  name: string,
  args: Record<string, unknown> = {},
  progressToken?: string,
): string {
  const params: Record<string, unknown> = { name, arguments: args };
  if (progressToken) params._meta = { progressToken };
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
}

function sessionHeaders(sessionId: string): Record<string, string> {
  return { ...MCP_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
}

/** Reads an SSE body until `done(text so far)` holds, the stream ends, or `ms` pass. */
async function readUntil(
  body: ReadableStream<Uint8Array>,
  done: (text: string) => boolean,
  ms = 5000,
): Promise<{ text: string; ended: boolean }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let ended = false;
  const timer = setTimeout(() => void reader.cancel(), ms);
  try {
    while (!done(text)) {
      const { done: finished, value } = await reader.read();
      if (finished) {
        ended = true;
        break;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  return { text, ended };
}

describe("mcpkit --http --toolsets boj", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(["--toolsets", "boj"]);
  });
  afterAll(async () => {
    await server.stop();
  });

  test("a plain tools/call is answered application/json: one JSON-RPC response with a length, no stream", async () => {
    const sessionId = await openRawSession(server.url);
    const response = await fetch(server.url, {
      method: "POST",
      headers: sessionHeaders(sessionId),
      body: callBody(5, "boj_list_databases"),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    const text = await response.text();
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    const message = JSON.parse(text) as Message;
    expect(message.jsonrpc).toBe("2.0");
    expect(message.id).toBe(5);
    expect(message.result.content[0].type).toBe("text");
    expect(message.result.content[0].text).toContain("FM08");
    expect(message.result.structuredContent.count).toBe(message.result.structuredContent.databases.length);
    expect(await deleteRawSession(server.url, sessionId)).toBe(200);
  });

  test("a constant result (the catalog) is serialized once: each answer still carries its own id, same result", async () => {
    const sessionId = await openRawSession(server.url);
    const answers: Message[] = [];
    // A string id with characters JSON must escape, a number, and the first id again.
    for (const id of ['a "quoted" \\ id', 7, 'a "quoted" \\ id']) {
      const response = await fetch(server.url, {
        method: "POST",
        headers: sessionHeaders(sessionId),
        body: callBody(id, "boj_list_databases"),
      });
      expect(response.headers.get("content-type")).toBe("application/json");
      const text = await response.text();
      expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
      const message = JSON.parse(text) as Message;
      expect(message).toMatchObject({ jsonrpc: "2.0", id });
      expect(Object.keys(message).sort()).toEqual(["id", "jsonrpc", "result"]);
      answers.push(message);
    }
    expect(answers[1].result).toEqual(answers[0].result);
    expect(answers[2].result).toEqual(answers[0].result);
    expect(answers[0].result.structuredContent.databases.length).toBeGreaterThan(40);
    expect(await deleteRawSession(server.url, sessionId)).toBe(200);
  });

  test("the SDK client reads the JSON answers: initialize, tools/list, tools/call, ping", async () => {
    const { client, transport } = await connectClient(server.url);
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("boj_list_databases");
    const result = (await client.callTool({ name: "boj_list_databases", arguments: {} })) as {
      content: { text: string }[];
    };
    expect(result.content[0].text).toContain("FM08");
    expect(await client.ping()).toEqual({});
    await transport.terminateSession();
    await client.close();
  });

  test("an unknown tool is a JSON-RPC error in a JSON answer", async () => {
    const sessionId = await openRawSession(server.url);
    const response = await fetch(server.url, {
      method: "POST",
      headers: sessionHeaders(sessionId),
      body: callBody("x", "boj_no_such_tool"),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const message = (await response.json()) as Message;
    expect(message.id).toBe("x");
    expect(message.error.code).toBe(-32602);
    expect(message.error.message).toContain("Unknown tool");
    await deleteRawSession(server.url, sessionId);
  });
});

describe("the probe server (sessions)", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer([], { entry: PROBE });
  });
  afterAll(async () => {
    await server.stop();
  });

  const post = (sessionId: string, body: string, headers: Record<string, string> = {}) =>
    fetch(server.url, { method: "POST", headers: { ...sessionHeaders(sessionId), ...headers }, body });

  test("a call that reports progress and logs first is answered as a stream: the notifications, the result last, the end", async () => {
    const sessionId = await openRawSession(server.url);
    const response = await post(sessionId, callBody(7, "probe_chatty", {}, "tok-1"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    const text = await response.text();
    expect(text.startsWith(": stream open\n\n")).toBe(true);
    const messages = messagesOf(text, "text/event-stream") as Message[];
    expect(messages.map((message) => message.method ?? `response ${message.id}`)).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/progress",
      "response 7",
    ]);
    expect(messages[0].params).toEqual({ progressToken: "tok-1", progress: 1, total: 2, message: "halfway" });
    expect(messages[1].params).toMatchObject({ level: "info", logger: "probe", data: "probe_chatty is halfway" });
    expect(messages[3].result.content).toEqual([{ type: "text", text: "chatty done" }]);
    // Every event is `event: message` with one `data:` line.
    expect(text.match(/^event: message$/gm)?.length).toBe(4);
    await deleteRawSession(server.url, sessionId);
  });

  test("the SDK client gets the progress and the log line of a streamed answer, then the result", async () => {
    const { client, transport } = await connectClient(server.url);
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
      logged.push(notification.params.data);
    });
    const progress: number[] = [];
    const result = (await client.callTool({ name: "probe_chatty", arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    })) as { content: { type: string; text: string }[] };
    expect(result.content).toEqual([{ type: "text", text: "chatty done" }]);
    expect(progress).toEqual([1, 2]);
    expect(logged).toEqual(["probe_chatty is halfway"]);
    await transport.terminateSession();
    await client.close();
  });

  test("a POST of notifications or responses only gets 202 with an empty body", async () => {
    const sessionId = await openRawSession(server.url);
    const initialized = await post(sessionId, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(initialized.status).toBe(202);
    expect(initialized.headers.get("content-type")).toBeNull();
    expect(await initialized.text()).toBe("");
    // A response to a request the server never sent is accepted and dropped, as the SDK does.
    const answer = await post(sessionId, JSON.stringify({ jsonrpc: "2.0", id: "not-asked", result: {} }));
    expect(answer.status).toBe(202);
    expect(await answer.text()).toBe("");
    await deleteRawSession(server.url, sessionId);
  });

  test("the GET stream opens at once, carries messages related to no request, and a second GET gets 409", async () => {
    const sessionId = await openRawSession(server.url);
    const getHeaders = {
      accept: "text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": PROTOCOL_VERSION,
    };
    const stream = await fetch(server.url, { headers: getHeaders });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(stream.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(stream.headers.get("mcp-session-id")).toBe(sessionId);
    const body = stream.body as ReadableStream<Uint8Array>;
    expect((await readUntil(body, (text) => text.includes("\n\n"))).text).toBe(": stream open\n\n");

    const second = await fetch(server.url, { headers: getHeaders });
    expect(second.status).toBe(409);
    const conflict = (await second.json()) as Message;
    expect(conflict.error.code).toBe(-32000);
    expect(conflict.error.message).toContain("only one is allowed per session");

    const call = await post(sessionId, callBody(3, "probe_broadcast"));
    expect(call.headers.get("content-type")).toBe("application/json");
    const answer = (await call.json()) as Message;
    expect(answer.result.content[0].text).toMatch(/^sent to [1-9]\d* sessions$/);

    const { text } = await readUntil(body, (received) => received.includes("to every session"));
    const [broadcast] = messagesOf(text, "text/event-stream") as Message[];
    expect(broadcast).toEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", logger: "probe", data: "to every session" },
    });

    // DELETE ends the session, and with it the GET stream; the id is then unknown.
    expect(await deleteRawSession(server.url, sessionId)).toBe(200);
    expect((await readUntil(body, () => false)).ended).toBe(true);
    const after = await post(sessionId, callBody(4, "probe_echo", { text: "hi" }));
    expect(after.status).toBe(404);
    expect(((await after.json()) as Message).error.code).toBe(-32001);
  });

  test("DELETE while a call runs: the call is answered with an error at once, not left hanging", async () => {
    const sessionId = await openRawSession(server.url);
    // The call would end after the test's own timeout: only the DELETE can end it in time.
    const call = post(sessionId, callBody(11, "probe_sleep", { ms: 60_001 }));
    await until(() => server.stderr().includes("probe_sleep started (60001 ms)"), "the call to start");
    expect(await deleteRawSession(server.url, sessionId)).toBe(200);
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const message = (await response.json()) as Message;
    expect(message).toMatchObject({ id: 11, error: { code: -32000 } });
    expect(message.error.message).toContain("session ended");
  });

  test("a cancelled call's answer ends without a response instead of staying open", async () => {
    const sessionId = await openRawSession(server.url);
    const call = post(sessionId, callBody(41, "probe_sleep", { ms: 60_002 })); // past the test's timeout
    await until(() => server.stderr().includes("probe_sleep started (60002 ms)"), "the call to start");
    const cancel = await post(
      sessionId,
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41, reason: "test" } }),
    );
    expect(cancel.status).toBe(202);
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const text = await response.text();
    expect(text).toBe(": stream open\n\n");
    // The id is free again: a new request may use it.
    const again = await post(sessionId, callBody(41, "probe_echo", { text: "again" }));
    expect(((await again.json()) as Message).result.content[0].text).toBe("again");
    await deleteRawSession(server.url, sessionId);
  });

  test("a request reusing the id of one still running gets 400 and the running one is unharmed", async () => {
    const sessionId = await openRawSession(server.url);
    const first = post(sessionId, callBody(9, "probe_hold"));
    await until(() => server.stderr().includes("probe_hold started"), "the call to start");
    const duplicate = await post(sessionId, callBody(9, "probe_echo", { text: "dup" }));
    expect(duplicate.status).toBe(400);
    expect((await duplicate.json()) as Message).toMatchObject({ id: 9, error: { code: -32600 } });
    const release = await post(sessionId, callBody(10, "probe_release"));
    expect(((await release.json()) as Message).result.content[0].text).toBe("released 1");
    const answer = (await (await first).json()) as Message;
    expect(answer).toMatchObject({ id: 9, result: { content: [{ type: "text", text: "released" }] } });
    await deleteRawSession(server.url, sessionId);
  });

  test("406 without both content types in Accept, 415 without a JSON body, 400 for an unsupported protocol version", async () => {
    const sessionId = await openRawSession(server.url);
    const echo = callBody(21, "probe_echo", { text: "x" });
    const cases: [string, Promise<Response>, number, string][] = [
      ["POST Accept json only", post(sessionId, echo, { accept: "application/json" }), 406, "text/event-stream"],
      ["POST Accept sse only", post(sessionId, echo, { accept: "text/event-stream" }), 406, "application/json"],
      ["POST text/plain", post(sessionId, echo, { "content-type": "text/plain" }), 415, "Content-Type"],
      [
        "POST unknown version",
        post(sessionId, echo, { "mcp-protocol-version": "1999-01-01" }),
        400,
        "Unsupported protocol version",
      ],
      [
        "GET Accept json",
        fetch(server.url, { headers: { ...sessionHeaders(sessionId), accept: "application/json" } }),
        406,
        "text/event-stream",
      ],
      [
        "GET unknown version",
        fetch(server.url, {
          headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "0.1" },
        }),
        400,
        "Unsupported protocol version",
      ],
      [
        "DELETE unknown version",
        fetch(server.url, {
          method: "DELETE",
          headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "0.1" },
        }),
        400,
        "Unsupported protocol version",
      ],
    ];
    for (const [name, pending, status, phrase] of cases) {
      const response = await pending;
      const body = (await response.json()) as Message;
      expect(`${name}: ${response.status}`).toBe(`${name}: ${status}`);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(body.error.code).toBe(-32000);
      expect(body.error.message).toContain(phrase);
    }
    // None of the refusals touched the session, and an absent version header means the default one.
    const { "mcp-protocol-version": _dropped, ...withoutVersion } = sessionHeaders(sessionId);
    const absent = await fetch(server.url, { method: "POST", headers: withoutVersion, body: echo });
    expect(absent.status).toBe(200);
    expect(((await absent.json()) as Message).result.content[0].text).toBe("x");
    expect(await deleteRawSession(server.url, sessionId)).toBe(200);
  });

  test("initialize on an open session gets 400 and the session goes on", async () => {
    const sessionId = await openRawSession(server.url);
    const again = await post(
      sessionId,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "again", version: "1" } },
      }),
    );
    expect(again.status).toBe(400);
    expect(((await again.json()) as Message).error.message).toContain("already initialized");
    const echo = await post(sessionId, callBody(2, "probe_echo", { text: "still here" }));
    expect(((await echo.json()) as Message).result.content[0].text).toBe("still here");
    await deleteRawSession(server.url, sessionId);
  });

  test("a call silent for half the idle timeout becomes a kept-alive stream and outlives the timeout", async () => {
    // Bun closes a connection silent for --idle-timeout-s: 2 s here (10 by default), so the answer
    // turns into a stream after 1 s and a keep-alive goes out every 1 s until the call is released.
    // Without keep-alives Bun breaks the connection after about 4 s (it checks in 4 s steps), so
    // the wait for the first one fails.
    const quick = await startHttpServer([], { entry: PROBE, env: { IDLE_TIMEOUT_S: "2" } });
    try {
      const sessionId = await openRawSession(quick.url);
      const started = Date.now();
      const aborter = new AbortController();
      const response = await fetch(quick.url, {
        method: "POST",
        headers: sessionHeaders(sessionId),
        body: callBody(12, "probe_hold"),
        signal: aborter.signal,
      });
      // The headers arrive when the answer turns into a stream, long before the result (which waits
      // for probe_release below).
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const stream = readInBackground(response, aborter);
      await stream.until((text) => keepAlives(text) >= 1, "the first keep-alive");
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000 - 20); // as old as the idle timeout
      const release = await fetch(quick.url, {
        method: "POST",
        headers: sessionHeaders(sessionId),
        body: callBody(13, "probe_release"),
      });
      expect(((await release.json()) as Message).result.content[0].text).toBe("released 1");
      const text = await stream.finished();
      expect(stream.ended()).toBe(true);
      expect(text.startsWith(": stream open\n\n: keepalive\n\n")).toBe(true);
      const messages = messagesOf(text, "text/event-stream") as Message[];
      expect(messages).toEqual([{ jsonrpc: "2.0", id: 12, result: { content: [{ type: "text", text: "released" }] } }]);
      await deleteRawSession(quick.url, sessionId);
    } finally {
      await quick.stop();
    }
  });
});

describe("the probe server with --stateless", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer([], { entry: PROBE, env: { STATELESS: "1" } });
  });
  afterAll(async () => {
    await server.stop();
  });

  const post = (body: string) =>
    fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION },
      body,
    });

  test("a plain call is a JSON answer without a session id", async () => {
    const response = await post(callBody(1, "probe_echo", { text: "stateless" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(((await response.json()) as Message).result.content).toEqual([{ type: "text", text: "stateless" }]);
  });

  test("a call that reports progress is a stream, and its server lives until the result is written", async () => {
    const response = await post(callBody(2, "probe_chatty", {}, "tok-s"));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const messages = messagesOf(await response.text(), "text/event-stream") as Message[];
    expect(messages.map((message) => message.method ?? "response")).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/progress",
      "response",
    ]);
    expect(messages[3]).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "chatty done" }] } });
  });

  test("shutdown waits for a stateless call in flight", async () => {
    const call = post(callBody(3, "probe_sleep", { ms: 600 }));
    await until(() => server.stderr().includes("probe_sleep started (600 ms)"), "the call to start");
    server.kill("SIGTERM");
    const answer = (await (await call).json()) as Message;
    expect(answer.result.content[0].text).toBe("slept 600 ms");
    expect(await server.exited).toBe(0);
  });
});

describe("the probe server with --stateless, past the shutdown grace", () => {
  test("a stateless call still running when the grace ends is answered 'shutting down', not cut off (one owner of calls in flight)", async () => {
    const short = await startHttpServer([], { entry: PROBE, env: { STATELESS: "1", GRACE_MS: "200" } });
    const call = fetch(short.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION },
      body: callBody(4, "probe_sleep", { ms: 4_000 }),
    });
    await until(() => short.stderr().includes("probe_sleep started (4000 ms)"), "the call to start");
    short.kill("SIGTERM");
    const answer = (await (await call).json()) as Message;
    expect(answer.id).toBe(4);
    expect(JSON.stringify(answer.error)).toContain("shutting down");
    expect(await short.exited).toBe(0);
  });
});
