/**
 * The 2025-11-25 era over HTTP runs on mcpkit's own session engine (`src/mcp/legacy/session.ts`
 * on `http/session-transport.ts`, joined in `http/legacy-endpoint.ts`), not the MCP SDK's Server: a
 * session and a --stateless request load no SDK module (a preload reports every SDK import), and
 * what the SDK's Server did over HTTP that no other test pins down still holds: what the engine
 * sends while answering a request (progress, log lines, its roots/list and that request's
 * cancellation) names that request, so it goes on that request's POST; logging/setLevel and the
 * cached roots are per session across POSTs; notifications/cancelled and DELETE abort the tool's
 * work, not only its answer. The engine's naming of the request, as a unit, is tested in
 * test/legacy/session.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { REPO_ROOT } from "../support/mcp.ts";
import { until } from "../modern/support.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  deleteRawSession,
  messagesOf,
  openRawSession,
  startHttpServer,
} from "./support.ts";

type Json = Record<string, any>;

const PROBE = resolve(import.meta.dir, "fixtures/probe-server.ts");
const TRACE_SDK = resolve(REPO_ROOT, "test/modern/fixtures/trace-sdk.ts");

/** A raw POST to the probe server's session. */
function post(url: string, sessionId: string | undefined, body: Json): Promise<Response> {
  const headers: Record<string, string> = { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION };
  if (sessionId) headers["mcp-session-id"] = sessionId;
  return fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
}

const call = (id: number | string, name: string, args: Json = {}, progressToken?: string): Json => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) },
});

/** Reads an SSE answer until a message satisfies `wanted` (or the stream ends); returns the messages so far. */
async function readMessages(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
  wanted: (message: Json) => boolean,
): Promise<Json[]> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const messages = messagesOf(text, "text/event-stream") as Json[];
    if (messages.some(wanted)) return messages;
    const { done, value } = await reader.read();
    if (done) return messages;
    text += decoder.decode(value, { stream: true });
  }
}

/** Opens a raw session that declares `capabilities`. */
async function openWith(url: string, capabilities: Json): Promise<string> {
  const response = await post(url, undefined, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities, clientInfo: { name: "raw", version: "1" } },
  });
  await response.text();
  const sessionId = response.headers.get("mcp-session-id");
  if (!sessionId) throw new Error(`initialize failed with HTTP ${response.status}`);
  await post(url, sessionId, { jsonrpc: "2.0", method: "notifications/initialized" }).then((r) => r.text());
  return sessionId;
}

describe("the legacy era over HTTP, on the probe server", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer([], { entry: PROBE });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** Asks probe_roots; answers a roots/list that comes on the call's own stream with `roots`. */
  async function askRoots(sessionId: string, id: number, roots: string[]): Promise<{ asked: boolean; text: string }> {
    const response = await post(server.url, sessionId, call(id, "probe_roots"));
    if (response.headers.get("content-type") === "application/json") {
      return { asked: false, text: ((await response.json()) as Json).result.content[0].text };
    }
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const [request] = await readMessages(reader, (message) => message.method === "roots/list");
    expect(request).toMatchObject({ jsonrpc: "2.0", method: "roots/list" });
    const answered = await post(server.url, sessionId, {
      jsonrpc: "2.0",
      id: request?.id,
      result: { roots: roots.map((path) => ({ uri: `file://${path}` })) },
    });
    expect(answered.status).toBe(202);
    const messages = await readMessages(reader, (message) => message.id === id);
    return { asked: true, text: messages.find((message) => message.id === id)?.result.content[0].text };
  }

  test("roots/list goes on the POST of the call that needs the roots; the roots are cached until roots/list_changed", async () => {
    const sessionId = await openWith(server.url, { roots: { listChanged: true } });
    expect(await askRoots(sessionId, 1, ["/srv/a"])).toEqual({ asked: true, text: '["/srv/a"]' });
    expect(await askRoots(sessionId, 2, ["/srv/ignored"])).toEqual({ asked: false, text: '["/srv/a"]' });
    const changed = await post(server.url, sessionId, { jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    expect(changed.status).toBe(202);
    expect(await askRoots(sessionId, 3, ["/srv/b"])).toEqual({ asked: true, text: '["/srv/b"]' });
    await deleteRawSession(server.url, sessionId);
  });

  test("the call whose stream carried the roots/list is abandoned by its client: a call sharing those roots gets a roots/list of its own and answers with them", async () => {
    const sessionId = await openWith(server.url, { roots: {} });
    const leaving = new AbortController();
    const asker = await fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION, "mcp-session-id": sessionId },
      body: JSON.stringify(call(1, "probe_roots")),
      signal: leaving.signal,
    });
    const askerReader = (asker.body as ReadableStream<Uint8Array>).getReader();
    expect((await readMessages(askerReader, (message) => message.method === "roots/list")).at(-1)?.id).toBe(0);
    const sharer = post(server.url, sessionId, call(2, "probe_roots"));
    leaving.abort(); // the client leaves before answering: it never will on that stream
    const reader = ((await sharer).body as ReadableStream<Uint8Array>).getReader();
    const [request] = await readMessages(reader, (message) => message.method === "roots/list");
    expect(request).toMatchObject({ jsonrpc: "2.0", id: 1, method: "roots/list" });
    const answered = await post(server.url, sessionId, {
      jsonrpc: "2.0",
      id: 1,
      result: { roots: [{ uri: "file:///srv/c" }] },
    });
    expect(answered.status).toBe(202);
    const messages = await readMessages(reader, (message) => message.id === 2);
    expect(messages.find((message) => message.id === 2)?.result.content[0].text).toBe('["/srv/c"]');
    await deleteRawSession(server.url, sessionId);
  });

  test("roots/list answered with an error of 900,000 characters: the call gets no roots, the warning shows 200 of them, and the next call asks again", async () => {
    const sessionId = await openWith(server.url, { roots: {} });
    const message = `huge-roots-error ${"x".repeat(900_000)}`;
    for (const id of [1, 2]) {
      const response = await post(server.url, sessionId, call(id, "probe_roots"));
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const [request] = await readMessages(reader, (each) => each.method === "roots/list");
      const refused = await post(server.url, sessionId, {
        jsonrpc: "2.0",
        id: request?.id,
        error: { code: -32603, message },
      });
      expect(refused.status).toBe(202);
      const messages = await readMessages(reader, (each) => each.id === id);
      expect(messages.find((each) => each.id === id)?.result.content[0].text).toBe("[]");
    }
    // Whole lines only (the last piece may still be arriving).
    const warnings = () =>
      server
        .stderr()
        .split("\n")
        .slice(0, -1)
        .filter((line) => line.includes("could not read the client's roots") && line.includes("huge-roots-error"));
    await until(() => warnings().length === 2, "both warnings");
    for (const line of warnings()) {
      expect(line).toContain(`huge-roots-error ${"x".repeat(150)}`);
      expect(line.length).toBeLessThan(400);
    }
    await deleteRawSession(server.url, sessionId);
  });

  test("an initialize sent as a notification (no id) opens no session: 400 -32600, no mcp-session-id", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "initialize",
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = (await response.json()) as Json;
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('give it an "id"');
  });

  test("logging/setLevel refuses an unknown level with -32602 and, once set, holds for the session's later POSTs", async () => {
    const sessionId = await openRawSession(server.url);
    const loud = await post(server.url, sessionId, {
      jsonrpc: "2.0",
      id: 1,
      method: "logging/setLevel",
      params: { level: "loud" },
    });
    expect(((await loud.json()) as Json).error.code).toBe(-32602);
    const error = await post(server.url, sessionId, {
      jsonrpc: "2.0",
      id: 2,
      method: "logging/setLevel",
      params: { level: "error" },
    });
    expect(((await error.json()) as Json).result).toEqual({});
    const chatty = await post(server.url, sessionId, call(3, "probe_chatty", {}, "tok"));
    const methods = messagesOf(await chatty.text(), chatty.headers.get("content-type")).map(
      (message) => message.method ?? `answer ${message.id}`,
    );
    // The progress still comes (it is not a log line); the info line is below the level asked for.
    expect(methods).toEqual(["notifications/progress", "notifications/progress", "answer 3"]);
    await deleteRawSession(server.url, sessionId);
  });

  test("notifications/cancelled aborts the tool's work, not only its answer", async () => {
    const sessionId = await openRawSession(server.url);
    const running = post(server.url, sessionId, call(5, "probe_sleep", { ms: 60_001 }));
    await until(() => server.stderr().includes("probe_sleep started (60001 ms)"), "the call to start");
    await post(server.url, sessionId, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "test" },
    });
    await until(() => server.stderr().includes("probe_sleep cancelled (60001 ms)"), "the work to be aborted");
    await (await running).text();
    await deleteRawSession(server.url, sessionId);
  });

  test("a client that disconnects before its (JSON) answer aborts the tool's work, and the session holds no request", async () => {
    const sessionId = await openRawSession(server.url);
    const aborter = new AbortController();
    const running = fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION, "mcp-session-id": sessionId },
      body: JSON.stringify(call(8, "probe_sleep", { ms: 60_003 })),
      signal: aborter.signal,
    }).catch((error: Error) => error);
    await until(() => server.stderr().includes("probe_sleep started (60003 ms)"), "the call to start");
    aborter.abort();
    expect(await running).toBeInstanceOf(Error);
    await until(() => server.stderr().includes("probe_sleep cancelled (60003 ms)"), "the work to be aborted");
    // The id is free again on the session.
    const again = await post(server.url, sessionId, call(8, "probe_echo", { text: "again" }));
    expect(((await again.json()) as Json).result.content[0].text).toBe("again");
    await deleteRawSession(server.url, sessionId);
  });

  test("DELETE aborts the work of a call still running on the session", async () => {
    const sessionId = await openRawSession(server.url);
    const running = post(server.url, sessionId, call(6, "probe_sleep", { ms: 60_002 }));
    await until(() => server.stderr().includes("probe_sleep started (60002 ms)"), "the call to start");
    expect(await deleteRawSession(server.url, sessionId)).toBe(200);
    await until(() => server.stderr().includes("probe_sleep cancelled (60002 ms)"), "the work to be aborted");
    expect(((await (await running).json()) as Json).error.code).toBe(-32000);
  });
});

/** `bun --preload trace-sdk src/main.ts --http …`: its stderr names every SDK module it loads. */
function startTraced(args: string[]): Promise<HttpServerProcess> {
  return startHttpServer(args, { preload: TRACE_SDK });
}

describe("no HTTP legacy exchange loads the MCP SDK", () => {
  test("a session: initialize, tools/list, tools/call, logging/setLevel, a ping with params, GET, DELETE", async () => {
    const server = await startTraced(["--toolsets", "boj"]);
    try {
      const sessionId = await openRawSession(server.url);
      const exchanges: Json[] = [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        call(3, "boj_list_databases"),
        { jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "debug" } },
        { jsonrpc: "2.0", id: 5, method: "ping", params: { _meta: {} } },
      ];
      const answers: Json[] = [];
      for (const body of exchanges) {
        const response = await post(server.url, sessionId, body);
        answers.push(...(messagesOf(await response.text(), response.headers.get("content-type")) as Json[]));
      }
      expect(answers.map((answer) => [answer.id, "result" in answer])).toEqual([
        [2, true],
        [3, true],
        [4, true],
        [5, true],
      ]);
      const aborter = new AbortController();
      const stream = await fetch(server.url, {
        headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
        signal: aborter.signal,
      });
      expect(stream.status).toBe(200);
      aborter.abort();
      expect(await deleteRawSession(server.url, sessionId)).toBe(200);
      expect(sdkImports(server.stderr())).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test("--stateless: a tools/call without a session", async () => {
    const server = await startTraced(["--toolsets", "boj", "--stateless"]);
    try {
      const response = await post(server.url, undefined, call(1, "boj_list_databases"));
      expect(((await response.json()) as Json).result.content.length).toBeGreaterThan(0);
      expect(sdkImports(server.stderr())).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test("the preload does report an SDK import (so the checks above can fail)", async () => {
    const child = Bun.spawn(
      [process.execPath, "--preload", TRACE_SDK, "-e", 'await import("@modelcontextprotocol/sdk/types.js")'],
      { cwd: REPO_ROOT, stdout: "ignore", stderr: "pipe" },
    );
    const stderr = await new Response(child.stderr).text();
    await child.exited;
    expect(sdkImports(stderr)).toEqual(["@modelcontextprotocol/sdk/types.js"]);
  });
});

function sdkImports(stderr: string): string[] {
  return [...stderr.matchAll(/^SDK-IMPORT (\S+)/gm)].map((match) => match[1] ?? "");
}
