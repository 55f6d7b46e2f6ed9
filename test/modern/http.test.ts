/**
 * The 2026-07-28 era over Streamable HTTP, on the wire: raw requests to a real `mcpkit --http`
 * process (boj and fs), and to the probe fixture for what the shipped tools do not do on demand
 * (progress, log messages, waiting to be cancelled). The 2025 era on the same endpoint is checked
 * alongside: both are served by one process at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { LEGACY_VERSIONS } from "../../src/mcp/protocol/versions.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  initializeBody,
  openRawSession,
  startHttpServer,
} from "../http/support.ts";
import { headersFor, type Json, meta, MODERN, openStream, post, PROBE, readUntil, request, until } from "./support.ts";

let server: HttpServerProcess;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-modern-http-"));
  writeFileSync(join(root, "a.txt"), "a");
  server = await startHttpServer(["--toolsets", "boj,fs", "--root", root]);
});

afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("server/discover", () => {
  test("lists both eras' versions, the capabilities and instructions; identifies the server in _meta; cacheable", async () => {
    const { status, contentType, response } = await post(server.url, request("server/discover"));
    expect(status).toBe(200);
    expect(contentType).toBe("application/json");
    const result = response.result;
    expect(result.supportedVersions).toEqual([MODERN, ...SUPPORTED_PROTOCOL_VERSIONS]);
    expect(result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} });
    expect(result.instructions).toContain("fs_search_by_time");
    expect(result.resultType).toBe("complete");
    expect(result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "mcpkit" });
    expect(result.ttlMs).toBeGreaterThan(0);
    expect(result.cacheScope).toBe("public");
  });

  test("the legacy version list is the SDK's, so discover never names a version initialize would refuse", () => {
    expect<string[]>([...LEGACY_VERSIONS]).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  test("a request without clientInfo is served (clientInfo is a SHOULD)", async () => {
    const { status, response } = await post(
      server.url,
      request("server/discover", { _meta: meta({ "io.modelcontextprotocol/clientInfo": undefined }) }),
    );
    expect(status).toBe(200);
    expect(response.result.supportedVersions).toContain(MODERN);
  });
});

describe("the _meta envelope and the version", () => {
  const cases: [string, Json][] = [
    ["no _meta at all", { _meta: undefined }],
    ["no protocolVersion", { _meta: meta({ "io.modelcontextprotocol/protocolVersion": undefined }) }],
    ["no clientCapabilities", { _meta: meta({ "io.modelcontextprotocol/clientCapabilities": undefined }) }],
    ["an unknown logLevel", { _meta: meta({ "io.modelcontextprotocol/logLevel": "loud" }) }],
  ];
  for (const [name, params] of cases) {
    test(`${name}: 400 with -32602 and the request's id`, async () => {
      const body = request("tools/list", {}, `bad-${name}`);
      body.params = params._meta === undefined ? {} : params;
      const { status, response } = await post(server.url, body, { "mcp-protocol-version": MODERN });
      expect(status).toBe(400);
      expect(response.id).toBe(`bad-${name}`);
      expect(response.error.code).toBe(-32602);
    });
  }

  test("an unsupported version: 400 UnsupportedProtocolVersion -32022 listing the supported ones and echoing the request", async () => {
    const body = request("tools/list", { _meta: meta({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }) }, 7);
    const { status, response } = await post(server.url, body);
    expect(status).toBe(400);
    expect(response.id).toBe(7);
    expect(response.error.code).toBe(-32022);
    expect(response.error.data).toEqual({
      supported: [MODERN, ...SUPPORTED_PROTOCOL_VERSIONS],
      requested: "2099-01-01",
    });
  });

  test("the requested version is echoed at most 80 characters; a method named like Object's own is simply unknown", async () => {
    const huge = "9".repeat(4_000); // mirrored in the MCP-Protocol-Version header, which Bun caps near 16 KB
    const body = request("tools/list", { _meta: meta({ "io.modelcontextprotocol/protocolVersion": huge }) }, 8);
    const { response } = await post(server.url, body);
    expect(response.error.code).toBe(-32022);
    // It came back whole (900 KB over stdio, where no header caps it).
    expect(response.error.data.requested).toBe(`${"9".repeat(80)}…`);
    for (const method of ["constructor", "toString", "__proto__"]) {
      const unknown = await post(server.url, request(method, { _meta: meta() }, 9));
      expect(unknown.response.error.message).toBe(`Method not found: ${JSON.stringify(method)}.`);
    }
  });
});

describe("request headers mirror the body (400 HeaderMismatch -32020)", () => {
  const call = () => request("tools/call", { name: "boj_list_databases", arguments: {} });
  const cases: [string, () => Json, Record<string, string | null>][] = [
    ["MCP-Protocol-Version missing", call, { "mcp-protocol-version": null }],
    ["MCP-Protocol-Version differs from _meta", call, { "mcp-protocol-version": "2025-11-25" }],
    ["Mcp-Method missing", call, { "mcp-method": null }],
    ["Mcp-Method differs from the method", call, { "mcp-method": "tools/list" }],
    ["Mcp-Method in another case", call, { "mcp-method": "TOOLS/CALL" }],
    ["Mcp-Name missing on tools/call", call, { "mcp-name": null }],
    ["Mcp-Name naming another tool", call, { "mcp-name": "fs_search_by_time" }],
    [
      "Mcp-Name on resources/read naming another URI",
      () => request("resources/read", { uri: "boj://catalog/databases" }),
      { "mcp-name": "boj://x" },
    ],
    ["Mcp-Name missing on prompts/get", () => request("prompts/get", { name: "x" }), { "mcp-name": null }],
    ["Mcp-Name with a broken base64 sentinel", call, { "mcp-name": "=?base64?***?=" }],
  ];
  for (const [name, body, headers] of cases) {
    test(name, async () => {
      const sent = body();
      const { status, response } = await post(server.url, sent, headers);
      expect(status).toBe(400);
      expect(response.id).toBe(sent.id);
      expect(response.error.code).toBe(-32020);
    });
  }

  test("a tools/call without params.name and without Mcp-Name is -32602 naming params.name, not a header mismatch", async () => {
    const sent = request("tools/call", { arguments: {} });
    const { response } = await post(server.url, sent, { "mcp-name": null });
    expect(response.id).toBe(sent.id);
    expect(response.error.code).toBe(-32602);
    expect(response.error.message).toContain('"name"');
  });

  test("a base64-encoded Mcp-Name is decoded before it is compared; header names are case-insensitive", async () => {
    const body = request("tools/call", { name: "boj_list_databases", arguments: {} });
    const encoded = `=?base64?${Buffer.from("boj_list_databases").toString("base64")}?=`;
    const { status, response } = await post(server.url, body, { "MCP-NAME": encoded });
    expect(status).toBe(200);
    expect(response.result.content[0].text).toContain("FM08");
  });
});

describe("methods", () => {
  for (const method of [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "no/such",
  ]) {
    test(`${method} with the modern envelope: 404 and -32601`, async () => {
      const body = request(method, {}, `m-${method}`);
      const { status, response } = await post(server.url, body);
      expect(status).toBe(404);
      expect(response.id).toBe(`m-${method}`);
      expect(response.error.code).toBe(-32601);
    });
  }

  test("every result carries resultType complete and serverInfo; lists and reads carry ttlMs and cacheScope, calls do not", async () => {
    const calls: [string, Json, boolean][] = [
      ["tools/list", {}, true],
      ["resources/list", {}, true],
      ["resources/templates/list", {}, true],
      ["resources/read", { uri: "boj://catalog/databases" }, true],
      ["prompts/list", {}, true],
      ["tools/call", { name: "boj_list_databases", arguments: {} }, false],
      [
        "completion/complete",
        {
          ref: { type: "ref/resource", uri: "boj://catalog/parameters/{endpoint}" },
          argument: { name: "endpoint", value: "" },
        },
        false,
      ],
    ];
    for (const [method, params, cacheable] of calls) {
      const { status, response } = await post(server.url, request(method, params));
      expect(`${method} ${status}`).toBe(`${method} 200`);
      expect(response.result.resultType).toBe("complete");
      expect(response.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("mcpkit");
      if (cacheable) {
        expect(response.result.ttlMs).toBeGreaterThan(0);
        expect(response.result.cacheScope).toBe("public");
      } else {
        expect(response.result.ttlMs).toBeUndefined();
        expect(response.result.cacheScope).toBeUndefined();
      }
    }
  });

  test("prompts/get is served and carries resultType", async () => {
    const { response: listed } = await post(server.url, request("prompts/list"));
    const prompt = listed.result.prompts[0];
    const args = Object.fromEntries(
      (prompt.arguments ?? []).filter((a: Json) => a.required).map((a: Json) => [a.name, "FM08"]),
    );
    const { response } = await post(server.url, request("prompts/get", { name: prompt.name, arguments: args }));
    expect(response.result.resultType).toBe("complete");
    expect(response.result.messages.length).toBeGreaterThan(0);
  });

  test("a resource that does not exist is -32602 with its uri in data (not -32002)", async () => {
    const { response } = await post(server.url, request("resources/read", { uri: "boj://no/such/thing" }));
    expect(response.error.code).toBe(-32602);
    expect(response.error.data).toEqual({ uri: "boj://no/such/thing" });
  });

  test("tools/list comes in the same order every time, the order the 2025 era lists", async () => {
    const names = async () =>
      (await post(server.url, request("tools/list"))).response.result.tools.map((t: Json) => t.name);
    const first = await names();
    expect(await names()).toEqual(first);
    const sessionId = await openRawSession(server.url);
    const legacy = await fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    const legacyNames = ((await legacy.json()) as Json).result.tools.map((t: Json) => t.name);
    expect(first).toEqual(legacyNames);
    expect(first).toEqual([
      "boj_get_data_code",
      "boj_get_data_layer",
      "boj_get_metadata",
      "boj_list_databases",
      "boj_get_parameter_catalog",
      "boj_get_message_catalog",
      "boj_search_series",
      "fs_search_by_time",
    ]);
  });
});

describe("both eras on one endpoint", () => {
  test("initialize still opens a session; a modern request is served without one, ignoring a stray Mcp-Session-Id", async () => {
    const opened = await fetch(server.url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
    const sessionId = opened.headers.get("mcp-session-id");
    await opened.text();
    expect(sessionId).toBeTruthy();
    const { status, headers, response } = await post(server.url, request("tools/list"), {
      "mcp-session-id": "no-such-session",
    });
    expect(status).toBe(200);
    expect(headers.get("mcp-session-id")).toBeNull();
    expect(response.result.tools.length).toBe(8);
  });

  test("a legacy request without a session still gets today's 400 'missing Mcp-Session-Id' (a dual-era client's cue to initialize)", async () => {
    const legacy = await fetch(server.url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(legacy.status).toBe(400);
    expect(((await legacy.json()) as Json).error.message).toContain("Mcp-Session-Id");
  });

  test("GET with a 2026-07-28 version header: 405 (there is no GET stream in this era)", async () => {
    const reply = await fetch(server.url, { headers: { accept: "text/event-stream", "mcp-protocol-version": MODERN } });
    expect(reply.status).toBe(405);
    await reply.text();
  });

  test("a modern notification is accepted with 202 and no body", async () => {
    const reply = await fetch(server.url, {
      method: "POST",
      headers: { ...headersFor({ method: "notifications/cancelled" }) },
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, _meta: meta() },
      }),
    });
    expect(reply.status).toBe(202);
    expect(await reply.text()).toBe("");
  });
});

describe("subscriptions/listen", () => {
  test("acknowledged first, tagged with the request id, with only what was asked for and exists; open until the client leaves", async () => {
    const body = request(
      "subscriptions/listen",
      {
        notifications: {
          toolsListChanged: true,
          resourcesListChanged: true,
          resourceSubscriptions: ["boj://catalog/databases"],
        },
      },
      "sub-1",
    );
    const { response: reply, aborter } = await openStream(server.url, body);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    const reader = reply.body!.getReader();
    const text = await readUntil(reader, (read) => read.includes("\n\n", read.indexOf("data:")));
    const first = JSON.parse(
      text
        .split("\n")
        .find((line) => line.startsWith("data:"))!
        .slice(5),
    );
    expect(first).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" },
        notifications: {
          toolsListChanged: true,
          resourcesListChanged: true,
          resourceSubscriptions: ["boj://catalog/databases"],
        },
      },
    });
    aborter.abort();
    await reader.cancel().catch(() => {});
  });

  test("a kind the server does not have (prompts, with only fs on) is left out of the acknowledgement", async () => {
    const fsOnly = await startHttpServer(["--toolsets", "fs", "--root", root]);
    try {
      const body = request(
        "subscriptions/listen",
        { notifications: { promptsListChanged: true, toolsListChanged: false } },
        9,
      );
      const { response: reply, aborter } = await openStream(fsOnly.url, body);
      const reader = reply.body!.getReader();
      let text = await readUntil(reader, (read) => read.includes("acknowledged"));
      text = await readUntil(reader, (read) => read.endsWith("\n\n"), text);
      const ack = JSON.parse(
        text
          .split("\n")
          .find((line) => line.startsWith("data:"))!
          .slice(5),
      );
      expect(ack.params.notifications).toEqual({});
      aborter.abort();
      await reader.cancel().catch(() => {});
    } finally {
      await fsOnly.stop();
    }
  });

  test("a listen without a notifications filter is -32602", async () => {
    const { status, response } = await post(server.url, request("subscriptions/listen", {}, 11));
    expect(status).toBe(400);
    expect(response.error.code).toBe(-32602);
  });
});

describe("the probe (progress, logging, cancellation, constant results)", () => {
  let probe: HttpServerProcess;
  beforeAll(async () => {
    probe = await startHttpServer([], { entry: PROBE });
  });
  afterAll(async () => {
    await probe?.stop();
  });

  test("without _meta logLevel no notifications/message is sent; progress goes on the request's own stream", async () => {
    const body = request("tools/call", { name: "probe_chatty", arguments: {}, _meta: meta({ progressToken: "p1" }) });
    const { contentType, messages, response } = await post(probe.url, body);
    expect(contentType).toBe("text/event-stream");
    expect(messages.filter((m) => m.method === "notifications/message")).toEqual([]);
    expect(messages.filter((m) => m.method === "notifications/progress").map((m) => m.params)).toEqual([
      { progressToken: "p1", progress: 1, total: 2, message: "halfway" },
      { progressToken: "p1", progress: 2, total: 2, message: "done" },
    ]);
    expect(response.result.content[0].text).toBe("chatty done");
    expect(messages.at(-1)).toBe(response);
  });

  test("without a progressToken and a logLevel nothing precedes the answer: plain JSON", async () => {
    const { contentType, messages } = await post(
      probe.url,
      request("tools/call", { name: "probe_chatty", arguments: {} }),
    );
    expect(contentType).toBe("application/json");
    expect(messages.length).toBe(1);
  });

  test("with _meta logLevel warning, messages from warning up arrive before the answer", async () => {
    const body = request("tools/call", {
      name: "probe_chatty",
      arguments: {},
      _meta: meta({ "io.modelcontextprotocol/logLevel": "warning" }),
    });
    const { messages } = await post(probe.url, body);
    expect(messages.filter((m) => m.method === "notifications/message").map((m) => m.params.level)).toEqual([
      "warning",
      "error",
      "critical",
      "alert",
      "emergency",
    ]);
  });

  test("closing the connection cancels the call: the tool's signal fires", async () => {
    const body = request("tools/call", { name: "probe_wait", arguments: {} });
    const aborter = new AbortController();
    const pending = fetch(probe.url, {
      method: "POST",
      headers: headersFor(body),
      body: JSON.stringify(body),
      signal: aborter.signal,
    });
    await until(() => probe.stderr().includes("probe_wait started"), "the call to start");
    aborter.abort();
    await pending.catch(() => {});
    await until(() => probe.stderr().includes("probe_wait cancelled"), "the call to be cancelled");
    expect(probe.stderr()).toContain("probe_wait cancelled");
  });

  test("a constant result is answered identically every time (serialized once)", async () => {
    const one = await post(probe.url, request("tools/call", { name: "probe_constant", arguments: {} }, "c1"));
    const two = await post(probe.url, request("tools/call", { name: "probe_constant", arguments: {} }, "c2"));
    expect(one.response.result).toEqual(two.response.result);
    expect(one.response.result).toMatchObject({ structuredContent: { value: 42 }, resultType: "complete" });
  });

  test("over HTTP no requestState is ever issued, so one presented is refused (-32602), whatever the tool", async () => {
    const body = request("tools/call", {
      name: "probe_constant",
      arguments: {},
      requestState: "forged",
      inputResponses: {},
    });
    const { response } = await post(probe.url, body);
    expect(response.error.code).toBe(-32602);
    expect(response.error.message).toContain("requestState");
  });

  test("over HTTP roots stay server-configured: a client declaring roots is never asked for them", async () => {
    const body = request("tools/call", {
      name: "probe_roots",
      arguments: {},
      _meta: meta({ "io.modelcontextprotocol/clientCapabilities": { roots: {} } }),
    });
    const { response } = await post(probe.url, body);
    expect(response.result.resultType).toBe("complete");
    expect(JSON.parse(response.result.content[0].text).roots).toBeNull();
  });
});

describe("--stateless", () => {
  test("keeps meaning no legacy sessions: modern requests are served, initialize gets no session id", async () => {
    const stateless = await startHttpServer(["--toolsets", "boj", "--stateless"]);
    try {
      const { status, response } = await post(
        stateless.url,
        request("tools/call", { name: "boj_list_databases", arguments: {} }),
      );
      expect(status).toBe(200);
      expect(response.result.resultType).toBe("complete");
      const opened = await fetch(stateless.url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
      expect(opened.status).toBe(200);
      expect(opened.headers.get("mcp-session-id")).toBeNull();
      await opened.text();
    } finally {
      await stateless.stop();
    }
  });
});

describe("MCP Apps in the 2026-07-28 era", () => {
  test("a client declaring the UI extension in _meta sees _meta.ui on the chart tools and the ui:// resource; others do not", async () => {
    const ui = meta({
      "io.modelcontextprotocol/clientCapabilities": {
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
      },
    });
    const withUi = (await post(server.url, request("tools/list", { _meta: ui }))).response.result.tools;
    const plain = (await post(server.url, request("tools/list"))).response.result.tools;
    const chart = (tools: Json[]): Json => {
      const found = tools.find((tool) => tool.name === "boj_get_data_code");
      if (!found) throw new Error("boj_get_data_code is not listed");
      return found;
    };
    expect(chart(withUi)._meta.ui.resourceUri).toStartWith("ui://");
    expect(chart(plain)._meta).toBeUndefined();
    const uri = chart(withUi)._meta.ui.resourceUri;
    const listed = (await post(server.url, request("resources/list", { _meta: ui }))).response.result.resources;
    expect(listed.map((r: Json) => r.uri)).toContain(uri);
    const hidden = (await post(server.url, request("resources/list"))).response.result.resources;
    expect(hidden.map((r: Json) => r.uri)).not.toContain(uri);
    const read = (await post(server.url, request("resources/read", { uri, _meta: ui }))).response.result;
    expect(read.contents[0].mimeType).toBe("text/html;profile=mcp-app");
    expect(read.cacheScope).toBe("public");
  });
});

describe("open subscriptions are bounded (review of issue 20)", () => {
  test("past --max-sessions open subscriptions/listen streams the next gets 503 + Retry-After; closing one frees a place", async () => {
    const small = await startHttpServer(["--toolsets", "boj", "--max-sessions", "2"]);
    const open: AbortController[] = [];
    const listen = async (id: string) => {
      const body = request("subscriptions/listen", { notifications: { toolsListChanged: true } }, id);
      const { response, aborter } = await openStream(small.url, body);
      if (response.status === 200) open.push(aborter);
      return response;
    };
    try {
      expect((await listen("a")).status).toBe(200);
      expect((await listen("b")).status).toBe(200);
      const refused = await listen("c");
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(((await refused.json()) as Json).error.message).toContain("--max-sessions");
      open.shift()?.abort();
      // The server learns of the closed stream asynchronously: ask until the place is free.
      let status = 0;
      for (let attempt = 0; attempt < 3000 && status !== 200; attempt++) {
        const again = await listen(`d${attempt}`);
        status = again.status;
        if (status !== 200) await again.text().then(() => Bun.sleep(10)); // 30 s and more in all
      }
      expect(status).toBe(200);
    } finally {
      for (const aborter of open) aborter.abort();
      await small.stop();
    }
  });
});
