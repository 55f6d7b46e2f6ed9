/**
 * A caller's W3C baggage (user and tenant ids, as often as not) is not passed on upstream: mcpkit
 * continues the caller's trace (traceparent, tracestate) into its BOJ request, and sends no
 * `baggage` with it, whether the caller put it in `_meta` (stdio) or in the HTTP header. The
 * upstream here is a Bun.serve that records the headers it gets and answers 404 (one attempt).
 */
import { expect, test } from "bun:test";
import { startHttpServer } from "../http/support.ts";
import { meta, post, request } from "../modern/support.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const later = cleanupsAfterEach();
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const TRACEPARENT = `00-${TRACE}-b7ad6b7169203331-01`;
const BAGGAGE = "user.id=alice-7f3e,tenant=acme";
const SERIES = { db: "CO", codes: ["TK99F1000601GCQ01000"] };
/** Nothing exported during the test: the trace context is on whenever any OTEL_* variable is set. */
const OTEL_ON = { OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" };

interface Seen {
  traceparent: string | null;
  tracestate: string | null;
  baggage: string | null;
}

function recordingUpstream(): { url: string; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(incoming) {
      const header = (name: string) => incoming.headers.get(name);
      seen.push({ traceparent: header("traceparent"), tracestate: header("tracestate"), baggage: header("baggage") });
      return new Response("not here", { status: 404 });
    },
  });
  later(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, seen };
}

test("stdio: _meta.baggage stays with mcpkit; the trace goes on upstream", async () => {
  const upstream = recordingUpstream();
  const raw = startRawServer(["--toolsets", "boj", "--boj-base-url", upstream.url], OTEL_ON);
  const _meta = meta({ traceparent: TRACEPARENT, tracestate: "vendor=1", baggage: BAGGAGE });
  raw.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "boj_get_data_code", arguments: SERIES, _meta },
  });
  expect((await raw.response(1)).error).toBeDefined();
  raw.closeStdin();
  expect(await raw.exited).toBe(0);
  expect(upstream.seen).toHaveLength(1);
  expect(upstream.seen[0].traceparent?.split("-")[1]).toBe(TRACE);
  expect(upstream.seen[0].tracestate).toBe("vendor=1");
  expect(upstream.seen[0].baggage).toBeNull();
});

test("HTTP: the baggage header stays with mcpkit; the trace goes on upstream", async () => {
  const upstream = recordingUpstream();
  const server = await startHttpServer(["--toolsets", "boj", "--boj-base-url", upstream.url], { env: OTEL_ON });
  later(() => server.stop());
  const answer = await post(server.url, request("tools/call", { name: "boj_get_data_code", arguments: SERIES }), {
    traceparent: TRACEPARENT,
    baggage: BAGGAGE,
  });
  expect(answer.status).toBe(200);
  expect(upstream.seen).toHaveLength(1);
  expect(upstream.seen[0].traceparent?.split("-")[1]).toBe(TRACE);
  expect(upstream.seen[0].baggage).toBeNull();
});
