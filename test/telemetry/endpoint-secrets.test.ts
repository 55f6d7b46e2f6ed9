/**
 * The credentials of a valid OTLP endpoint (its user name and password, a `?api_key=`) and of the
 * OTLP header variables never reach stderr, not a fragment, at trace level, in text and in JSON
 * lines: not even when the collector (or a proxy in front of it) refuses the export with a reason
 * that quotes the request it got, target, Basic credentials and API key header included (OTLP's
 * partial success, whose message the SDK puts in its warning). `--help` with the same variables shows none of them either.
 */
import { expect, test } from "bun:test";
import { meta } from "../modern/support.ts";
import { runCli } from "../support/mcp.ts";
import { isJsonRpcLine, startRawServer } from "../support/raw-stdio.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const later = cleanupsAfterEach();

// Every 4-character window holds a letter outside 0-9a-f, so no trace or span id can hold one.
const PASSWORD = "PwQzRt7Kx9Mv";
const QUERY_KEY = "Qk8XyZ4tWnRs";
// A quote inside: a JSON log line escapes it, and the escaped form must be hidden too.
const HEADER_KEY = 'Hn5"JkLmYq2Wz';
const SECRETS = { PASSWORD, QUERY_KEY, HEADER_KEY };
/** What the exporter makes of the endpoint's user name and password: a Basic Authorization header. */
const BASIC = btoa(`team:${PASSWORD}`);

/**
 * A collector that accepts every export in part, with a reason that quotes the request: its target
 * and its credential headers (OTLP's partial success, which the SDK logs as a warning).
 */
function quotingCollector(): { url: string; requests: number } {
  const state = { url: "", requests: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      state.requests++;
      await request.arrayBuffer();
      const target = new URL(request.url);
      const errorMessage = `refused ${target.pathname}${target.search} authorization=${request.headers.get("authorization")} x-api-key=${request.headers.get("x-api-key")}`;
      return Response.json({ partialSuccess: { rejectedDataPoints: 1, rejectedSpans: 1, errorMessage } });
    },
  });
  later(() => server.stop(true));
  state.url = `http://team:${PASSWORD}@127.0.0.1:${server.port}/otlp?api_key=${QUERY_KEY}`;
  return state;
}

function otlpEnv(endpoint: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${encodeURIComponent(HEADER_KEY)}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  };
}

/** Each secret's 4-character windows that `text` holds (none, for a clean text). */
function fragmentsIn(text: string): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(SECRETS).map(([name, secret]) => {
      const windows = Array.from({ length: secret.length - 3 }, (_, at) => secret.slice(at, at + 4));
      return [name, windows.filter((window) => text.includes(window))];
    }),
  );
}

const NONE = { PASSWORD: [], QUERY_KEY: [], HEADER_KEY: [] };

for (const format of ["text", "json"]) {
  test(`an export answer quoting the endpoint's credentials and the API key shows none of them (--log-format ${format})`, async () => {
    const collector = quotingCollector();
    const raw = startRawServer(
      ["--toolsets", "boj", "--log-level", "trace", "--log-format", format],
      otlpEnv(collector.url),
    );
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
    expect((await raw.response(1)).result).toBeDefined();
    raw.closeStdin();
    expect(await raw.exited).toBe(0);

    const stderr = raw.stderr();
    // The collector was reached and its reason was logged: the check below reads a real warning.
    expect(collector.requests).toBeGreaterThan(0);
    expect(stderr).toContain("Received Partial Success response:");
    expect(stderr).toContain("refused /otlp?api_key=");
    expect(stderr).toContain("authorization=Basic ");
    expect(fragmentsIn(stderr)).toEqual(NONE);
    expect(stderr).not.toContain(BASIC);
    expect(fragmentsIn(raw.lines().join("\n"))).toEqual(NONE);
    expect(raw.lines().every(isJsonRpcLine)).toBe(true);
  });
}

test("--help with the same variables set shows none of them", async () => {
  const help = await runCli(["--help", "--log-level", "trace"], {
    env: otlpEnv(`http://team:${PASSWORD}@127.0.0.1:9/otlp?api_key=${QUERY_KEY}`),
  });
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("--log-level");
  expect(fragmentsIn(help.stdout + help.stderr)).toEqual(NONE);
});

test("a header list with entries the SDK cannot read names their positions in one warning, never their text", async () => {
  const collector = quotingCollector();
  // 2: a token pasted without its name; 3: a value that does not percent-decode; 4: a value cut at its ";".
  const headers = [
    "x-tenant=acme",
    `Bearer ${PASSWORD}`,
    `authorization=Bearer%zz${QUERY_KEY}`,
    `x-api-key=${HEADER_KEY};v2`,
  ].join(",");
  const raw = startRawServer(["--toolsets", "boj", "--log-level", "trace"], {
    ...otlpEnv(collector.url),
    OTEL_EXPORTER_OTLP_HEADERS: headers,
  });
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  expect((await raw.response(1)).result).toBeDefined();
  raw.closeStdin();
  expect(await raw.exited).toBe(0);

  const stderr = raw.stderr();
  const warnings = stderr.split("\n").filter((line) => line.includes("OTEL_EXPORTER_OTLP_HEADERS"));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(
    "OpenTelemetry: entries 2, 3, 4 of 4 in OTEL_EXPORTER_OTLP_HEADERS are not sent: not a name=value pair with a percent-encoded value",
  );
  expect(fragmentsIn(stderr)).toEqual(NONE);
  expect(stderr).not.toContain("Bearer");
});
