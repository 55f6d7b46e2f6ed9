/**
 * OTEL_METRICS_EXPORTER=prometheus: mcpkit serves /metrics at OTEL_EXPORTER_PROMETHEUS_HOST/_PORT.
 * A scrape shows mcp.server.operation.duration as a Prometheus histogram with the MCP semantic
 * conventions' buckets; when Debian's `prometheus` is installed, a real Prometheus scrapes it too.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHttpServer } from "../http/support.ts";
import { meta, post, request } from "../modern/support.ts";
import { freeLoopbackPort } from "../support/ports.ts";
import { startRawServer } from "../support/raw-stdio.ts";
import { hasSystemTool } from "../support/system-tools.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const MCP_BUCKETS = [
  "0.01",
  "0.02",
  "0.05",
  "0.1",
  "0.2",
  "0.5",
  "1",
  "2",
  "5",
  "10",
  "30",
  "60",
  "120",
  "300",
  "+Inf",
];

const later = cleanupsAfterEach();

/** mcpkit over HTTP with its metrics at http://127.0.0.1:PORT/metrics; two tools/list answered. */
async function servingMetrics(): Promise<string> {
  const port = freeLoopbackPort();
  const server = await startHttpServer(["--toolsets", "boj"], {
    env: {
      OTEL_METRICS_EXPORTER: "prometheus",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
    },
  });
  later(() => server.stop());
  for (let i = 0; i < 2; i++) expect((await post(server.url, request("tools/list"))).status).toBe(200);
  return `127.0.0.1:${port}`;
}

test("a scrape of /metrics shows mcp.server.operation.duration as a histogram with the semconv buckets", async () => {
  const target = await servingMetrics();
  const response = await fetch(`http://${target}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).toContain("# TYPE mcp_server_operation_duration histogram");
  const list = (line: string) =>
    line.includes('mcp_method_name="tools/list"') && line.includes('network_transport="tcp"');
  const lines = text.split("\n").filter(list);
  const count = lines.find((line) => line.startsWith("mcp_server_operation_duration_count{"));
  expect(count?.split(" ").at(-1)).toBe("2");
  const bounds = lines
    .filter((line) => line.startsWith("mcp_server_operation_duration_bucket{"))
    .map((line) => /le="([^"]+)"/.exec(line)?.[1]);
  expect(bounds).toEqual(MCP_BUCKETS);
  expect(
    lines
      .find((line) => line.includes('le="+Inf"'))
      ?.split(" ")
      .at(-1),
  ).toBe("2");
});

test("a Prometheus port already in use is a warning naming it; the server keeps answering", async () => {
  const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
  later(() => taken.stop(true));
  const raw = startRawServer(["--toolsets", "boj"], {
    OTEL_METRICS_EXPORTER: "prometheus",
    OTEL_TRACES_EXPORTER: "none",
    OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
    OTEL_EXPORTER_PROMETHEUS_PORT: String(taken.port),
  });
  raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
  expect(((await raw.response(1)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  raw.closeStdin();
  expect(await raw.exited).toBe(0);
  expect(raw.stderr()).toContain(
    `OpenTelemetry: the Prometheus endpoint could not start url="http://127.0.0.1:${taken.port}/metrics"`,
  );
});

test("a real Prometheus scrapes mcpkit's /metrics", async () => {
  if (!hasSystemTool("prometheus", "prometheus", "a real Prometheus scraping mcpkit")) return;
  const target = await servingMetrics();
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-prometheus-"));
  later(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: mcpkit\n    static_configs:\n      - targets: ["${target}"]\n`,
  );
  const web = `127.0.0.1:${freeLoopbackPort()}`;
  const prometheus = Bun.spawn(
    [
      "prometheus",
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=${web}`,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  later(async () => {
    prometheus.kill("SIGTERM");
    await prometheus.exited;
  });
  // Its log is read to the end: a closed pipe would end Prometheus at its next line (SIGPIPE).
  let log = "";
  const ready = Promise.withResolvers<void>();
  void (async () => {
    for await (const chunk of prometheus.stderr) {
      log += new TextDecoder().decode(chunk);
      if (log.includes("Server is ready to receive web requests")) ready.resolve();
    }
    ready.reject(new Error(`prometheus exited before it was ready:\n${log}`));
  })();
  await ready.promise;
  // The first scrape comes within a scrape interval; the answer is what Prometheus stored from it.
  const query = `http://${web}/api/v1/query?query=${encodeURIComponent('mcp_server_operation_duration_count{mcp_method_name="tools/list"}')}`;
  let value: string | undefined;
  while (value === undefined) {
    const answer = (await (await fetch(query)).json()) as { data: { result: { value: [number, string] }[] } };
    value = answer.data.result[0]?.value[1];
    if (value === undefined) await Bun.sleep(250);
  }
  expect(value).toBe("2");
}, 60_000);

/** The local addresses (hex, as /proc/net/tcp{,6} spell them) of the sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((table) =>
    readFileSync(table, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A")
      .map((fields) => fields[1].split(":")[0]),
  );
}

test.skipIf(process.platform !== "linux")(
  "without OTEL_EXPORTER_PROMETHEUS_HOST, /metrics listens on loopback only",
  async () => {
    const port = freeLoopbackPort();
    const raw = startRawServer(["--toolsets", "boj"], {
      OTEL_METRICS_EXPORTER: "prometheus",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
    });
    later(() => raw.kill());
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } });
    expect((await raw.response(1)).result).toBeDefined();
    expect(raw.stderr()).toContain(`OpenTelemetry: Prometheus metrics served url="http://127.0.0.1:${port}/metrics"`);
    // 127.0.0.1 as /proc/net/tcp writes it; 0.0.0.0 (every network) would be 00000000.
    expect(listeningAddresses(port)).toEqual(["0100007F"]);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  },
);
