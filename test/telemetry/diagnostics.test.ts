/**
 * The SDK's failures reach mcpkit's log: a collector that refuses the export is a warning at
 * shutdown, and the OTLP header values (API keys) never show in it. The default protocol is
 * http/protobuf (the receiver, which reads JSON only, refuses it with 415).
 */
import { expect, test } from "bun:test";
import { meta } from "../modern/support.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import { startOtlpReceiver } from "./otlp-receiver.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const later = cleanupsAfterEach();

test("a refused export is a warning at shutdown; the API key in OTEL_EXPORTER_OTLP_HEADERS stays out", async () => {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const apiKey = "collector-api-key-5f1d2c";
  const raw = startRawServer(["--toolsets", "boj"], {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${apiKey}`,
  });
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  await raw.response(1);
  raw.closeStdin();
  expect(await raw.exited).toBe(0);
  expect(otlp.contentTypes).toContain("application/x-protobuf");
  expect(raw.stderr()).toContain("WARN  mcpkit: OpenTelemetry: the last spans could not be sent");
  expect(raw.stderr()).toContain("WARN  mcpkit: OpenTelemetry: PeriodicExportingMetricReader: metrics export failed");
  expect(raw.stderr()).not.toContain(apiKey);
});
