/**
 * With no OTEL_* variable set (or OTEL_SDK_DISABLED=true), no file of an @opentelemetry package is
 * loaded, over stdio or HTTP: a preloaded plugin (fixtures/report-otel-imports.ts) reports every
 * such file the process loads. One variable is enough to load the SDK, which shows the report works.
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { startHttpServer } from "../http/support.ts";
import { meta, post, request } from "../modern/support.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { startRawServer } from "../support/raw-stdio.ts";

const REPORTER = resolve(REPO_ROOT, "test/telemetry/fixtures/report-otel-imports.ts");
const WITH_REPORTER = [process.execPath, "--preload", REPORTER, resolve(REPO_ROOT, "src/main.ts")];

/** Loaded @opentelemetry files of a stdio server that answered one tools/list and ended. */
async function stdioLoads(env: Record<string, string>): Promise<string[]> {
  const raw = startRawServer(["--toolsets", "boj"], env, WITH_REPORTER);
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  const answer = await raw.response(1);
  expect((answer.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  raw.closeStdin();
  expect(await raw.exited).toBe(0);
  return raw
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("otel-load "));
}

describe("the OpenTelemetry SDK is loaded only when an OTEL_* variable asks", () => {
  test("stdio: nothing loaded without OTEL_*, or with OTEL_SDK_DISABLED=true", async () => {
    expect(await stdioLoads({})).toEqual([]);
    expect(await stdioLoads({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })).toEqual(
      [],
    );
  });

  test("stdio: one variable loads it (the report sees the loads)", async () => {
    const loads = await stdioLoads({ OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" });
    expect(loads.some((line) => line.includes("@opentelemetry/api"))).toBe(true);
  });

  test("HTTP: nothing loaded without OTEL_*", async () => {
    const server = await startHttpServer(["--toolsets", "boj"], { preload: REPORTER });
    try {
      const answer = await post(server.url, request("tools/list"));
      expect(answer.status).toBe(200);
      expect(answer.response.result?._meta?.["io.modelcontextprotocol/serverInfo"]).toBeDefined();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(
      server
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("otel-load ")),
    ).toEqual([]);
  });
});
