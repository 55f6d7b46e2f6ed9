/**
 * OTEL_METRIC_EXPORT_INTERVAL below the default export timeout (30 s) is a setting like any other:
 * the periodic reader threw for it ('exportIntervalMillis must be greater than or equal to
 * exportTimeoutMillis'), and the whole SDK, traces too, stayed off. A value of 0 or below is one
 * warning naming the variable; spans and metrics are still sent.
 */
import { expect, test } from "bun:test";
import { meta } from "../modern/support.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import { cleanupsAfterEach } from "./cleanups.ts";
import { startOtlpReceiver } from "./otlp-receiver.ts";

const later = cleanupsAfterEach();

async function exportsWith(interval: string) {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const raw = startRawServer(["--toolsets", "boj"], {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "3600000",
    OTEL_METRIC_EXPORT_INTERVAL: interval,
  });
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  expect((await raw.response(1)).result).toBeDefined();
  raw.closeStdin();
  expect(await raw.exited).toBe(0);
  return {
    spans: otlp.spans.map((span) => span.name),
    metrics: otlp.metrics.map((metric) => metric.name),
    warnings: raw
      .stderr()
      .split("\n")
      .filter((line) => line.includes(" WARN ")),
  };
}

test("an interval shorter than the default timeout (5 s) exports spans and metrics, without a warning", async () => {
  const sent = await exportsWith("5000");
  expect(sent.warnings).toEqual([]);
  expect(sent.spans).toEqual(["tools/list"]);
  expect(sent.metrics).toContain("mcp.server.operation.duration");
});

test("an interval of 0 is one warning naming the variable; spans and metrics are sent", async () => {
  const sent = await exportsWith("0");
  expect(sent.warnings).toHaveLength(1);
  expect(sent.warnings[0]).toContain(
    "OpenTelemetry: OTEL_METRIC_EXPORT_INTERVAL must be a number of milliseconds above 0; using 60000",
  );
  expect(sent.spans).toEqual(["tools/list"]);
  expect(sent.metrics).toContain("mcp.server.operation.duration");
});
