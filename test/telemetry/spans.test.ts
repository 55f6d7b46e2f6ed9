/**
 * OpenTelemetry by the MCP semantic conventions, from the real process: a local OTLP/HTTP receiver
 * (http/json) gets the spans and metrics of `bun src/main.ts` in both eras, over stdio and HTTP,
 * and the fake BOJ sees the `traceparent` of the upstream request's CLIENT span. Every export
 * waits for the process to end (stdin closed, or SIGTERM): the last spans and metrics are flushed
 * on shutdown, so nothing here waits on a clock.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeBoj, startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { MCP_HEADERS, PROTOCOL_VERSION, openRawSession, startHttpServer } from "../http/support.ts";
import { meta, post, request } from "../modern/support.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  startOtlpReceiver,
} from "./otlp-receiver.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

/** docs/gen-ai/mcp.md: the buckets of both MCP duration histograms. */
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const CALLER = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
const HTTP_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const HTTP_SPAN = "00f067aa0ba902b7";
const HTTP_PARENT = `00-${HTTP_TRACE}-${HTTP_SPAN}-01`;
const SERIES = { db: "CO", codes: ["TK99F1000601GCQ01000"] };

const later = cleanupsAfterEach();

function receiver(): OtlpReceiver {
  const started = startOtlpReceiver();
  later(() => started.stop());
  return started;
}

function fakeBoj(): FakeBoj {
  const boj = startFakeBoj();
  later(() => boj.stop());
  return boj;
}

/** OTLP/HTTP JSON to the receiver; nothing exported before shutdown, so the test reads one complete picture. */
function otelEnv(to: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: to.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "mcpkit-under-test",
    OTEL_BSP_SCHEDULE_DELAY: "3600000",
    OTEL_METRIC_EXPORT_INTERVAL: "3600000",
  };
}

function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0];
}

function pointsOf(to: OtlpReceiver, name: string) {
  return to.metrics.filter((metric) => metric.name === name).flatMap((metric) => metric.points);
}

describe("stdio", () => {
  test("2025-11-25: a tool call is a SERVER span under the caller's _meta.traceparent, its BOJ request a CLIENT child that sends traceparent", async () => {
    const otlp = receiver();
    const boj = fakeBoj();
    const raw = startRawServer(["--toolsets", "boj", "--boj-base-url", boj.url], otelEnv(otlp));
    const initialized = await raw.initialize();
    expect((initialized.result as { protocolVersion: string }).protocolVersion).toBe("2025-11-25");
    raw.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "boj_get_data_code", arguments: SERIES, _meta: { traceparent: CALLER } },
    });
    const answer = await raw.response(2);
    expect(answer.result).toBeDefined();
    // The same request again is answered from BOJ's answer cache: a hit, no upstream request.
    raw.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "boj_get_data_code", arguments: SERIES } });
    expect((await raw.response(3)).result).toBeDefined();
    // A known tool's own refusal (BOJ's VALIDATION_ERROR, -32602 with data) keeps the tool in the name.
    raw.send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "boj_get_data_code", arguments: { db: "CO", codes: [] } },
    });
    expect(((await raw.response(4)).error as { code: number }).code).toBe(-32602);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);

    const [call, cached, invalid] = otlp.spans.filter((span) => span.name === "tools/call boj_get_data_code");
    expect(cached.attributes["jsonrpc.request.id"]).toBe("3");
    expect(invalid.attributes).toMatchObject({ "jsonrpc.request.id": "4", "error.type": "-32602" });
    expect(call.events.map((event) => event.name)).toEqual(["mcpkit.boj.cache.lookups"]);
    expect(cached.events.map((event) => event.name)).toEqual(["mcpkit.boj.cache.lookups"]);
    expect(otlp.spans.filter((span) => span.kind === SPAN_KIND_CLIENT && span.parentSpanId === cached.spanId)).toEqual(
      [],
    );
    expect(call.kind).toBe(SPAN_KIND_SERVER);
    expect(call.traceId).toBe(CALLER_TRACE);
    expect(call.parentSpanId).toBe(CALLER_SPAN);
    expect(call.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": "2",
      "mcp.protocol.version": "2025-11-25",
      "network.transport": "pipe",
      "gen_ai.tool.name": "boj_get_data_code",
      "gen_ai.operation.name": "execute_tool",
    });
    expect(call.resource["service.name"]).toBe("mcpkit-under-test");
    // Tool arguments are not recorded on the MCP spans without the opt-in.
    const serverSpans = otlp.spans.filter((span) => span.kind === SPAN_KIND_SERVER);
    expect(JSON.stringify(serverSpans)).not.toContain("TK99F1000601GCQ01000");

    const initialize = only(otlp.spans, "initialize");
    expect(initialize.attributes["mcp.protocol.version"]).toBe("2025-11-25");
    expect(initialize.attributes["jsonrpc.request.id"]).toBe("init");

    const upstream = otlp.spans.filter((span) => span.kind === SPAN_KIND_CLIENT);
    expect(upstream.length).toBeGreaterThanOrEqual(1);
    const client = upstream[0];
    expect(client.name).toBe("GET");
    expect(client.traceId).toBe(CALLER_TRACE);
    expect(client.parentSpanId).toBe(call.spanId);
    expect(client.attributes).toMatchObject({
      "http.request.method": "GET",
      "server.address": "127.0.0.1",
      "http.response.status_code": 200,
    });
    expect(boj.requests.map((logged) => logged.traceparent)).toContain(`00-${CALLER_TRACE}-${client.spanId}-01`);

    const operations = pointsOf(otlp, "mcp.server.operation.duration");
    const calls = operations.find((point) => point.attributes["gen_ai.tool.name"] === "boj_get_data_code");
    expect(calls?.attributes).toMatchObject({ "mcp.method.name": "tools/call", "network.transport": "pipe" });
    expect(Number(calls?.count)).toBe(2);
    const invalidCalls = operations.find((point) => point.attributes["error.type"] === "-32602");
    expect(invalidCalls?.attributes["gen_ai.tool.name"]).toBe("boj_get_data_code");
    expect(calls?.explicitBounds).toEqual(MCP_BUCKETS);
    const sessions = pointsOf(otlp, "mcp.server.session.duration");
    expect(sessions.map((point) => [point.attributes["network.transport"], Number(point.count)])).toEqual([
      ["pipe", 1],
    ]);
    expect(sessions[0].explicitBounds).toEqual(MCP_BUCKETS);
    const lookups = pointsOf(otlp, "mcpkit.boj.cache.lookups").map((point) => [
      point.attributes["mcpkit.cache.result"],
      Number(point.asInt ?? point.asDouble),
    ]);
    expect(lookups.sort()).toEqual([
      ["hit", 1],
      ["miss", 1],
    ]);
    const upstreamPoints = pointsOf(otlp, "http.client.request.duration");
    expect(upstreamPoints.some((point) => point.attributes["server.address"] === "127.0.0.1")).toBe(true);
  });

  test("2026-07-28: spans carry the _meta version and parent; a tool result with isError is error.type tool_error, a JSON-RPC error its code", async () => {
    const otlp = receiver();
    const root = mkdtempSync(join(tmpdir(), "mcpkit-otel-"));
    later(() => rmSync(root, { recursive: true, force: true }));
    const raw = startRawServer(["--toolsets", "fs", "--root", root], otelEnv(otlp));
    const send = (id: number, method: string, params: Record<string, unknown>) => {
      raw.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta({ traceparent: CALLER }) } });
      return raw.response(id);
    };
    const bad = await send(1, "tools/call", { name: "fs_search_by_time", arguments: { from: "not a date" } });
    expect((bad.result as { isError?: boolean }).isError).toBe(true);
    const unknown = await send(2, "tools/call", { name: "no_such_tool", arguments: {} });
    expect((unknown.error as { code: number }).code).toBe(-32602);
    const walked = await send(4, "tools/call", { name: "fs_search_by_time", arguments: { timeField: "modified" } });
    expect((walked.result as { isError?: boolean }).isError).toBeUndefined();
    await send(3, "tools/list", {});
    const unknownMethod = await send(5, "no/such_method", {});
    expect((unknownMethod.error as { code: number }).code).toBe(-32601);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);

    const failed = otlp.spans.find((span) => span.attributes["jsonrpc.request.id"] === "1") as ReceivedSpan;
    expect(failed.name).toBe("tools/call fs_search_by_time");
    expect(failed.parentSpanId).toBe(CALLER_SPAN);
    expect(failed.attributes).toMatchObject({
      "mcp.protocol.version": "2026-07-28",
      "network.transport": "pipe",
      "error.type": "tool_error",
    });
    expect(failed.status.code).toBe(2);
    const search = otlp.spans.find((span) => span.attributes["jsonrpc.request.id"] === "4");
    expect(search?.events.map((event) => event.name)).toEqual(["mcpkit.fs.walk"]);
    // A made-up name is not in the span's name (its attribute keeps what the client sent).
    const refused = otlp.spans.find((span) => span.attributes["jsonrpc.request.id"] === "2") as ReceivedSpan;
    expect(refused.name).toBe("tools/call");
    expect(refused.attributes).toMatchObject({
      "gen_ai.tool.name": "no_such_tool",
      "error.type": "-32602",
      "rpc.response.status_code": "-32602",
    });
    const other = only(otlp.spans, "_OTHER");
    expect(other.attributes).toMatchObject({ "mcp.method.name": "no/such_method", "error.type": "-32601" });
    const list = only(otlp.spans, "tools/list");
    expect(list.attributes["error.type"]).toBeUndefined();
    expect(list.traceId).toBe(CALLER_TRACE);

    const operations = pointsOf(otlp, "mcp.server.operation.duration");
    // A name the server does not know never becomes a metric attribute.
    expect(JSON.stringify(operations)).not.toContain("no_such_tool");
    expect(JSON.stringify(operations)).not.toContain("no/such_method");
    expect(operations.find((point) => point.attributes["error.type"] === "tool_error")?.attributes).toMatchObject({
      "gen_ai.tool.name": "fs_search_by_time",
    });
  });
});

describe("admission control", () => {
  test("a call that waits for a slot has a queued event, one refused counts in mcpkit.calls.refused; the gauges report", async () => {
    const otlp = receiver();
    const arrived = Promise.withResolvers<void>();
    const boj = startFakeBoj({ onRequest: () => arrived.resolve() });
    later(() => boj.stop());
    // The first call holds the only slot until it is cancelled: BOJ answers it after a minute.
    boj.enqueue({ kind: "delay", ms: 60_000 });
    const prometheus = `127.0.0.1:${freeLoopbackPort()}`;
    const raw = startRawServer(
      ["--toolsets", "boj", "--boj-base-url", boj.url, "--max-calls", "1", "--max-queued-calls", "1"],
      {
        ...otelEnv(otlp),
        OTEL_METRICS_EXPORTER: "otlp,prometheus",
        OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
        OTEL_EXPORTER_PROMETHEUS_PORT: prometheus.split(":")[1],
      },
    );
    const call = (id: number, codes: string[]) =>
      raw.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "boj_get_data_code", arguments: { db: "CO", codes }, _meta: meta() },
      });
    call(1, ["TK99F1000601GCQ01000"]);
    await arrived.promise;
    call(2, ["TK99F2000601GCQ01000"]);
    call(3, ["TK99F1000601GCQ01000"]);
    const refused = await raw.response(3);
    expect((refused.error as { code: number; data: { limit: string } }).data.limit).toBe("server");
    // Now one call runs and one waits, as the gauges say.
    const scraped = await (await fetch(`http://${prometheus}/metrics`)).text();
    const gauge = (name: string) => new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(scraped)?.[1];
    expect([gauge("mcpkit_calls_running"), gauge("mcpkit_calls_waiting")]).toEqual(["1", "1"]);
    for (const id of [1, 2]) raw.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    raw.closeStdin();
    expect(await raw.exited).toBe(0);

    const byId = (id: string) => otlp.spans.find((span) => span.attributes["jsonrpc.request.id"] === id);
    expect(byId("2")?.events.map((event) => event.name)).toContain("mcpkit.call.queued");
    expect(byId("3")?.attributes).toMatchObject({ "error.type": "-32000", "rpc.response.status_code": "-32000" });
    const counted = pointsOf(otlp, "mcpkit.calls.refused").map((point) => [
      point.attributes["mcpkit.limit"],
      Number(point.asInt ?? point.asDouble),
    ]);
    expect(counted).toEqual([["server", 1]]);
  });
});

describe("HTTP", () => {
  test("2025-11-25: the traceparent header is the parent; the span has a hash of the session id, never the id, and network.transport tcp; SIGTERM flushes", async () => {
    const otlp = receiver();
    const boj = fakeBoj();
    const server = await startHttpServer(["--toolsets", "boj", "--boj-base-url", boj.url], { env: otelEnv(otlp) });
    later(() => server.stop());
    const session = await openRawSession(server.url);
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        ...MCP_HEADERS,
        "mcp-session-id": session,
        "mcp-protocol-version": PROTOCOL_VERSION,
        traceparent: HTTP_PARENT,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "boj_get_data_code", arguments: SERIES },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"id":7');
    expect(await server.stop()).toBe(0);

    const call = only(otlp.spans, "tools/call boj_get_data_code");
    expect(call.traceId).toBe(HTTP_TRACE);
    expect(call.parentSpanId).toBe(HTTP_SPAN);
    // The session id lets whoever holds it use the session: spans carry the first 16 hex digits
    // of its SHA-256, which still group a session's spans, and the id appears nowhere.
    expect(JSON.stringify(otlp.spans)).not.toContain(session);
    expect(JSON.stringify(otlp.metrics)).not.toContain(session);
    expect(call.attributes).toMatchObject({
      "mcp.session.id": new Bun.CryptoHasher("sha256").update(session).digest("hex").slice(0, 16),
      "mcp.protocol.version": PROTOCOL_VERSION,
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "jsonrpc.request.id": "7",
    });
    const client = otlp.spans.find((span) => span.kind === SPAN_KIND_CLIENT && span.parentSpanId === call.spanId);
    expect(client).toBeDefined();
    expect(boj.requests.map((logged) => logged.traceparent)).toContain(`00-${HTTP_TRACE}-${client?.spanId}-01`);
    const sessions = pointsOf(otlp, "mcp.server.session.duration");
    expect(sessions.some((point) => point.attributes["network.transport"] === "tcp")).toBe(true);
  });

  test("--stateless: a request is a span but no session; only an initialize opens one", async () => {
    const otlp = receiver();
    const server = await startHttpServer(["--toolsets", "boj", "--stateless"], { env: otelEnv(otlp) });
    later(() => server.stop());
    const send = async (body: Record<string, unknown>) => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      await response.text();
    };
    for (const id of [1, 2]) await send({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
    expect(await server.stop()).toBe(0);
    expect(otlp.spans.filter((span) => span.name === "tools/list").length).toBe(2);
    expect(pointsOf(otlp, "mcp.server.session.duration")).toEqual([]);
  });

  // With OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true a span keeps the arguments and the
  // result as JSON, cut at 8 KB. The arguments are the client's: nested 60,000 deep they cost
  // JSON.stringify 1.6 s of CPU and came out as "null"; now they are written up to the cut.
  test("2025-11-25 with content capture: the arguments and the result on the span, cut, however deep the arguments", async () => {
    const otlp = receiver();
    const env = { ...otelEnv(otlp), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" };
    const server = await startHttpServer(["--toolsets", "boj"], { env });
    later(() => server.stop());
    const session = await openRawSession(server.url);
    const call = async (id: number, argumentsJson: string) => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION },
        body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"boj_get_message_catalog","arguments":${argumentsJson}}}`,
      });
      expect(response.status).toBe(200);
      await response.text();
    };
    await call(1, `{"status":400}`);
    await call(2, `{"status":${"[".repeat(60_000)}${"]".repeat(60_000)}}`);
    expect(await server.stop()).toBe(0);
    const calls = otlp.spans.filter((span) => span.name === "tools/call boj_get_message_catalog");
    expect(calls).toHaveLength(2);
    const [plain, deep] = calls.map((span) => span.attributes);
    expect(plain["gen_ai.tool.call.arguments"]).toBe('{"status":400}');
    expect(String(plain["gen_ai.tool.call.result"])).toStartWith('{"content":[');
    expect(String(plain["gen_ai.tool.call.result"]).length).toBeLessThanOrEqual(8192);
    expect(String(deep["gen_ai.tool.call.arguments"])).toStartWith(`{"status":${"[".repeat(100)}`);
    expect(String(deep["gen_ai.tool.call.arguments"])).toHaveLength(8192);
  });

  test("2026-07-28: _meta.traceparent is the parent and the header's context a link", async () => {
    const otlp = receiver();
    const server = await startHttpServer(["--toolsets", "boj"], { env: otelEnv(otlp) });
    later(() => server.stop());
    const withHeader = await post(server.url, request("tools/list", {}, 11), { traceparent: HTTP_PARENT });
    expect(withHeader.status).toBe(200);
    const withBoth = await post(server.url, request("prompts/list", { _meta: meta({ traceparent: CALLER }) }, 12), {
      traceparent: HTTP_PARENT,
    });
    expect(withBoth.status).toBe(200);
    const read = await post(server.url, request("resources/read", { uri: "boj://guide/call-order" }, 13));
    expect(read.response.result?.contents).toBeDefined();
    expect(await server.stop()).toBe(0);

    const list = only(otlp.spans, "tools/list");
    expect(list.parentSpanId).toBe(HTTP_SPAN);
    expect(list.attributes).toMatchObject({ "mcp.protocol.version": "2026-07-28", "network.transport": "tcp" });
    expect(list.attributes["mcp.session.id"]).toBeUndefined();
    const prompts = only(otlp.spans, "prompts/list");
    expect(prompts.traceId).toBe(CALLER_TRACE);
    expect(prompts.parentSpanId).toBe(CALLER_SPAN);
    expect(prompts.links).toEqual([{ traceId: HTTP_TRACE, spanId: HTTP_SPAN }]);
    // A read names its resource in mcp.resource.uri, not in the span name (its cardinality is the client's).
    const resource = only(otlp.spans, "resources/read");
    expect(resource.attributes).toMatchObject({
      "mcp.resource.uri": "boj://guide/call-order",
      "jsonrpc.request.id": "13",
    });
  });
});
