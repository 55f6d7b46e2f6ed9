/**
 * Streamable HTTP without authorization: sessions and every status code the transport answers,
 * DNS-rebinding protection, body cap, session cap, idle expiry and start-up refusals.
 * One real `mcpkit --http` process per scenario group, talked to over real sockets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { runCli } from "../support/mcp.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  connectClient,
  deleteRawSession,
  initializeBody,
  messagesOf,
  openRawSession,
  startHttpServer,
} from "./support.ts";

describe("a sessionful server", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(["--toolsets", "boj"]);
  });
  afterAll(async () => {
    await server.stop();
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(server.url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });

  test("GET /healthz answers 200 without any session or token", async () => {
    const response = await fetch(`${server.base}/healthz`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { status: string }).status).toBe("ok");
  });

  test("an SDK client initializes, lists and calls tools, and DELETE ends its session (then 404)", async () => {
    const { client, transport } = await connectClient(server.url);
    const sessionId = transport.sessionId;
    expect(sessionId).toMatch(/^[\x21-\x7e]{32,}$/);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((tool) => tool.name.startsWith("boj_"))).toBe(true);
    await transport.terminateSession();
    await client.close();
    const after = await post(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }), {
      "mcp-session-id": sessionId as string,
      "mcp-protocol-version": PROTOCOL_VERSION,
    });
    expect(after.status).toBe(404);
    expect(((await after.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });

  test("session ids are different and unguessable for each initialize", async () => {
    const ids = await Promise.all([1, 2, 3].map(() => openRawSession(server.url)));
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) {
      expect(Buffer.from(id, "base64url").length).toBeGreaterThanOrEqual(32);
      expect(await deleteRawSession(server.url, id)).toBe(200);
    }
  });

  test("a request without Mcp-Session-Id gets 400; an unknown one gets 404", async () => {
    const listTools = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const missing = await post(listTools);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("Mcp-Session-Id");
    const unknown = await post(listTools, {
      "mcp-session-id": "no-such-session",
      "mcp-protocol-version": PROTOCOL_VERSION,
    });
    expect(unknown.status).toBe(404);
    const get = await fetch(server.url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(400);
  });

  test("an unsupported MCP-Protocol-Version gets 400; a supported one is served", async () => {
    const sessionId = await openRawSession(server.url);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
    const bad = await post(body, { "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("protocol version");
    const good = await post(body, { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION });
    expect(good.status).toBe(200);
    expect(messagesOf(await good.text(), good.headers.get("content-type"))[0]).toMatchObject({ id: 3, result: {} });
    // Without the header the server assumes 2025-03-26, as the spec says, and serves the request.
    const absent = await post(body, { "mcp-session-id": sessionId });
    expect(absent.status).toBe(200);
    await absent.text();
    await deleteRawSession(server.url, sessionId);
  });

  test("JSON-RPC errors: -32700 for broken JSON, -32600 for invalid requests and batches, -32601 for unknown methods", async () => {
    const sessionId = await openRawSession(server.url);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };

    const parse = await post("{not json", headers);
    expect(parse.status).toBe(400);
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700);

    for (const body of [
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":42}',
      "17",
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    ]) {
      const invalid = await post(body, headers);
      expect(invalid.status).toBe(400);
      expect(((await invalid.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }

    const unknown = await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "no/such/method" }), headers);
    expect(unknown.status).toBe(200);
    const [message] = messagesOf(await unknown.text(), unknown.headers.get("content-type"));
    expect(message).toMatchObject({ id: 7, error: { code: -32601 } });
    await deleteRawSession(server.url, sessionId);
  });

  test("GET opens the server-to-client SSE stream; a second one gets 409; other methods get 405", async () => {
    const sessionId = await openRawSession(server.url);
    const headers = {
      accept: "text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": PROTOCOL_VERSION,
    };
    const aborter = new AbortController();
    const stream = await fetch(server.url, { headers, signal: aborter.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const second = await fetch(server.url, { headers });
    expect(second.status).toBe(409);
    await second.text();
    aborter.abort();
    const put = await fetch(server.url, { method: "PUT", headers: MCP_HEADERS, body: "{}" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toContain("POST");
    await deleteRawSession(server.url, sessionId);
  });

  test("DNS rebinding: a foreign Host or Origin gets 403; loopback names and origins are served", async () => {
    const badHost = await post(initializeBody(), { host: "evil.example.com" });
    expect(badHost.status).toBe(403);
    expect(await badHost.text()).toContain("Host");
    const badOrigin = await post(initializeBody(), { origin: "http://evil.example.com" });
    expect(badOrigin.status).toBe(403);
    expect(await badOrigin.text()).toContain("origin");
    const local = await post(initializeBody(), {
      host: `localhost:${server.port}`,
      origin: `http://localhost:${server.port}`,
    });
    expect(local.status).toBe(200);
    expect(local.headers.get("access-control-allow-origin")).toBe(`http://localhost:${server.port}`);
    await local.text();
    await deleteRawSession(server.url, local.headers.get("mcp-session-id") as string);
  });

  test("a POST whose Accept lacks text/event-stream gets 406; a body that is not application/json gets 415", async () => {
    const sessionId = await openRawSession(server.url);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" });
    const notAcceptable = await fetch(server.url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json" },
      body: ping,
    });
    expect(notAcceptable.status).toBe(406);
    expect(((await notAcceptable.json()) as { error: { message: string } }).error.message).toContain(
      "text/event-stream",
    );
    const unsupported = await fetch(server.url, {
      method: "POST",
      headers: { ...headers, ...MCP_HEADERS, "content-type": "text/plain" },
      body: ping,
    });
    expect(unsupported.status).toBe(415);
    expect(((await unsupported.json()) as { error: { message: string } }).error.message).toContain("application/json");
    await deleteRawSession(server.url, sessionId);
  });

  test("a notification gets 202 with no body", async () => {
    const sessionId = await openRawSession(server.url);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
    const accepted = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe("");
    await deleteRawSession(server.url, sessionId);
  });

  test("unknown paths get 404 and name the MCP endpoint", async () => {
    const response = await fetch(`${server.base}/nope`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("/mcp");
  });
});

describe("limits", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer([
      "--toolsets",
      "boj",
      "--max-sessions",
      "3",
      "--session-idle-ms",
      "1000",
      "--max-body-bytes",
      "4096",
    ]);
  });
  afterAll(async () => {
    await server.stop();
  });

  test("a body over --max-body-bytes gets 413 (declared length and chunked alike)", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(10_000) } });
    const declared = await fetch(server.url, { method: "POST", headers: MCP_HEADERS, body: big });
    expect(declared.status).toBe(413);
    expect(await declared.text()).toContain("4096");
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode("x".repeat(1000)));
        controller.close();
      },
    });
    const chunked = await fetch(server.url, { method: "POST", headers: MCP_HEADERS, body: chunks });
    expect(chunked.status).toBe(413);
  });

  test("the cap applies while the body streams in: an endless chunked upload gets 413 without being read to its end", async () => {
    // A raw socket, so the upload can stay open: a server that buffered the whole body first would never answer.
    const answer = Promise.withResolvers<string>();
    let received = "";
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: {
        data(_socket, data) {
          received += new TextDecoder().decode(data);
          if (received.includes("\r\n\r\n")) answer.resolve(received);
        },
        close() {
          answer.resolve(received);
        },
        error(_socket, error) {
          answer.reject(error);
        },
      },
    });
    const chunk = "x".repeat(2000);
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    for (let i = 0; i < 4; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    socket.flush();
    // No terminating 0-length chunk: the upload never ends.
    const timeout = setTimeout(() => answer.reject(new Error("no answer while the upload was still open")), 30_000);
    try {
      expect((await answer.promise).split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    } finally {
      clearTimeout(timeout);
      socket.end();
    }
  });

  test("beyond --max-sessions initialize gets 503 with Retry-After; ending one makes room", async () => {
    const ids = [await openRawSession(server.url), await openRawSession(server.url), await openRawSession(server.url)];
    const refused = await fetch(server.url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("--max-sessions");
    expect(await deleteRawSession(server.url, ids[0])).toBe(200);
    const fourth = await openRawSession(server.url);
    for (const id of [ids[1], ids[2], fourth]) await deleteRawSession(server.url, id);
  });

  test("initialize past --max-sessions is refused with 503 and no log line at the default level (anyone can send it)", async () => {
    const single = await startHttpServer(["--toolsets", "boj", "--max-sessions", "1"]);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(single.url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([200, 503, 503, 503, 503, 503]);
    await single.stop();
    const stderr = await single.stderrEnded;
    expect(stderr).toContain("listening on");
    expect(stderr).not.toContain("cap reached");
    expect(stderr).not.toContain("refusing initialize");
  });

  test("a session idle longer than --session-idle-ms ends (404), an active one lives on", async () => {
    // The active session is the older one: if its requests did not count as activity, it would
    // expire no later than the idle one.
    const active = await openRawSession(server.url);
    const idle = await openRawSession(server.url);
    const ping = (id: string) =>
      fetch(server.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": PROTOCOL_VERSION },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    // The log names a session by the tag its spans carry (SHA-256, 16 hex digits), never by a piece of its id.
    const tag = createHash("sha256").update(idle).digest("hex").slice(0, 16);
    const expiredLine = new RegExp(`session expired after being idle session="${tag}"`);
    // The active client pings every 50 ms (its pace, not a wait) until the server says the idle one expired.
    for (let pings = 0; !expiredLine.test(server.stderr()); pings++) {
      if (pings > 600) throw new Error(`the idle session never expired:\n${server.stderr()}`); // 30 s and more
      const response = await ping(active);
      expect(response.status).toBe(200);
      await response.text();
      await Bun.sleep(50);
    }
    for (let at = 0; at + 8 <= idle.length; at++) expect(server.stderr()).not.toContain(idle.slice(at, at + 8));
    const expired = await ping(idle);
    expect(expired.status).toBe(404);
    const alive = await ping(active);
    expect(alive.status).toBe(200);
    await alive.text();
    await deleteRawSession(server.url, active);
    const health = (await (await fetch(`${server.base}/healthz`)).json()) as { sessions: number };
    expect(health.sessions).toBe(0);
  });
});

describe("--stateless", () => {
  let server: HttpServerProcess;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "mcpkit-http-stateless-"));
    writeFileSync(join(root, "a.txt"), "a");
    server = await startHttpServer(["--toolsets", "boj,fs", "--root", root, "--stateless"]);
  });
  afterAll(async () => {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const send = (body: object, headers: Record<string, string> = {}) =>
    fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION, ...headers },
      body: JSON.stringify(body),
    });

  test("tools/call is answered as plain JSON without initialize or a session, even when the client asks for progress", async () => {
    const response = await send({
      jsonrpc: "2.0",
      id: 11,
      method: "tools/call",
      params: { name: "fs.search_by_time", arguments: { timeField: "modified" }, _meta: { progressToken: "p1" } },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as { id: number; result: { isError?: boolean; content: { text: string }[] } };
    expect(body.id).toBe(11);
    expect(body.result.isError ?? false).toBe(false);
    expect(JSON.stringify(body.result)).toContain("a.txt");
  });

  test("an SDK client talks to it end to end (initialize, list, call)", async () => {
    const { client, transport } = await connectClient(server.url);
    expect(transport.sessionId).toBeUndefined();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("fs_search_by_time");
    const result = await client.callTool({ name: "fs_search_by_time", arguments: { timeField: "modified" } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
  });

  test("an unsupported MCP-Protocol-Version gets 400; GET and DELETE get 405", async () => {
    const bad = await send({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "1999-01-01" });
    expect(bad.status).toBe(400);
    await bad.text();
    for (const method of ["GET", "DELETE"]) {
      const refused = await fetch(server.url, { method, headers: { accept: "text/event-stream" } });
      expect(refused.status).toBe(405);
      expect(refused.headers.get("allow")).toBe("POST");
      await refused.text();
    }
  });
});

describe("--allowed-hosts and --allowed-origins", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer([
      "--toolsets",
      "boj",
      "--allowed-hosts",
      "mcp.example.test",
      "--allowed-origins",
      "https://app.example.test",
    ]);
  });
  afterAll(async () => {
    await server.stop();
  });

  test("replace the loopback defaults: only the named host and origin are served", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(server.url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: initializeBody() });
    const named = await post({ host: "mcp.example.test", origin: "https://app.example.test" });
    expect(named.status).toBe(200);
    await deleteRawSession(server.url, named.headers.get("mcp-session-id") as string, { host: "mcp.example.test" });
    const loopbackHost = await post({});
    expect(loopbackHost.status).toBe(403);
    await loopbackHost.text();
    const otherOrigin = await post({ host: "mcp.example.test", origin: `http://localhost:${server.port}` });
    expect(otherOrigin.status).toBe(403);
    await otherOrigin.text();
  });
});

describe("start-up", () => {
  test("--auth jwt on every interface without --public-url is refused (the audience would be unknown)", async () => {
    const result = await runCli([
      "--toolsets",
      "fs",
      "--root",
      import.meta.dir,
      "--http",
      "0.0.0.0:0",
      "--auth",
      "jwt",
      "--issuer",
      "http://127.0.0.1:9",
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--public-url");
  });

  test("binding a non-loopback address without --auth jwt is refused with a way out", async () => {
    const result = await runCli(["--toolsets", "fs", "--root", import.meta.dir, "--http", "0.0.0.0:0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--auth jwt");
    expect(result.stderr).toContain("127.0.0.1");
  });

  test("--auth jwt without --issuer is refused", async () => {
    const result = await runCli([
      "--toolsets",
      "fs",
      "--root",
      import.meta.dir,
      "--http",
      "127.0.0.1:0",
      "--auth",
      "jwt",
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--issuer");
  });

  test("a malformed --http value names the expected form", async () => {
    const result = await runCli(["--toolsets", "fs", "--root", import.meta.dir, "--http", "localhost:99999"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("[HOST:]PORT");
  });
});
