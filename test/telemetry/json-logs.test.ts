/**
 * `--log-format json` (LOG_FORMAT=json): one JSON object a line on stderr with time, level and
 * message, and while OpenTelemetry is on, the trace and span ids of the request a line belongs to.
 * Secrets registered with the logger stay out of JSON lines as they do out of text lines.
 */
import { expect, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { meta } from "../modern/support.ts";
import { runCli } from "../support/mcp.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import { SPAN_KIND_SERVER, startOtlpReceiver } from "./otlp-receiver.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER = `00-${CALLER_TRACE}-b7ad6b7169203331-01`;

const later = cleanupsAfterEach();

function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test("every stderr line is a JSON object; lines logged while serving a request carry its trace and span ids", async () => {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const raw = startRawServer(["--toolsets", "boj", "--log-level", "debug"], {
    LOG_FORMAT: "json",
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_METRICS_EXPORTER: "none",
  });
  raw.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "boj_list_databases", arguments: {}, _meta: meta({ traceparent: CALLER }) },
  });
  await raw.response(1);
  raw.closeStdin();
  expect(await raw.exited).toBe(0);

  const lines = jsonLines(raw.stderr());
  for (const line of lines) {
    expect(typeof line.time).toBe("string");
    expect(typeof line.level).toBe("string");
    expect(typeof line.message).toBe("string");
  }
  const call = otlp.spans.find(
    (span) => span.kind === SPAN_KIND_SERVER && span.name === "tools/call boj_list_databases",
  );
  expect(call).toBeDefined();
  const during = lines.filter((line) => line.message === "tools/call");
  expect(during.length).toBe(1);
  expect(during[0]).toMatchObject({ level: "debug", tool: "boj_list_databases", trace_id: CALLER_TRACE });
  expect(during[0].span_id).toBe(call?.spanId);
  // Outside a request there is no trace to name.
  const startLine = lines.find((line) => line.message === "serving MCP on stdio");
  expect(startLine?.trace_id).toBeUndefined();
});

test("--log-format takes text or json; anything else is a usage error naming the flag and its variable", async () => {
  const { code, stderr } = await runCli(["tools", "--log-format", "xml"]);
  expect(code).toBe(2);
  expect(stderr).toContain("--log-format (LOG_FORMAT)");
  expect(stderr).toContain("expected text or json");
});

test("a registered secret is replaced in JSON lines, in the message and in fields", () => {
  const written: string[] = [];
  const log = createLogger("info", (line) => written.push(line), "json");
  const token = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2Vu.c2lnbmF0dXJl";
  log.redact(token);
  log.warn(`upstream refused Bearer ${token}`, { authorization: `Bearer ${token}`, nested: { token } });
  expect(written.join("")).not.toContain(token);
  const line = JSON.parse(written[0]);
  expect(line.message).toBe("upstream refused Bearer [redacted]");
  expect(line.authorization).toBe("Bearer [redacted]");
  expect(line.level).toBe("warn");
});
