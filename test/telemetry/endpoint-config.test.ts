/**
 * An OTLP endpoint that is not a URL (a mistyped port) is one warning that names the variable,
 * never its value: the SDK quoted it whole, password and ?api_key= included, and then sent to
 * http://localhost:4318 instead, stalling the exit 5 s on a port nobody answered. The server
 * serves on, and stdout carries JSON-RPC only.
 */
import { expect, test } from "bun:test";
import { meta } from "../modern/support.ts";
import { isJsonRpcLine, startRawServer } from "../support/raw-stdio.ts";

const PASSWORD = "collector-password-8c1e";
const API_KEY = "collector-query-key-3b7a";

test("an endpoint that does not parse is named in one warning, its credentials are not, and nothing is sent", async () => {
  const raw = startRawServer(["--toolsets", "boj"], {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://team:${PASSWORD}@127.0.0.1:43l8/?api_key=${API_KEY}`,
  });
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  expect((await raw.response(1)).result).toBeDefined();
  raw.closeStdin();
  expect(await raw.exited).toBe(0);

  const stderr = raw.stderr();
  expect(stderr).not.toContain(PASSWORD);
  expect(stderr).not.toContain(API_KEY);
  const warnings = stderr.split("\n").filter((line) => line.includes(" WARN "));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(
    "OpenTelemetry: OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL, so no spans or metrics are sent over OTLP",
  );
  expect(raw.lines().every(isJsonRpcLine)).toBe(true);
});

test("a per-signal endpoint that does not parse turns off that signal's OTLP export alone", async () => {
  const raw = startRawServer(["--toolsets", "boj"], {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `https://127.0.0.1:43l8/v1/traces?token=${API_KEY}`,
    OTEL_METRICS_EXPORTER: "none",
  });
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  expect((await raw.response(1)).result).toBeDefined();
  raw.closeStdin();
  expect(await raw.exited).toBe(0);
  const warnings = raw
    .stderr()
    .split("\n")
    .filter((line) => line.includes(" WARN "));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not an http:// or https:// URL, so no spans are",
  );
  expect(raw.stderr()).not.toContain(API_KEY);
});
