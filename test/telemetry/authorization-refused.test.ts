/**
 * mcpkit.authorization.refused: what the authorization server's limits turn away, by http.route
 * and mcpkit.limit. The per-address limits through `mcpkit --http --auth oauth` itself; the
 * server-wide bounds and the CIMD cap (503 once CIMD_MAX_IN_FLIGHT documents are being fetched)
 * through a process that builds the authorization server with the test switch and small bounds
 * (fixtures/authorization-limits.ts). Both export to a local OTLP receiver on shutdown.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startIdp } from "../auth-server/harness.ts";
import { startHttpServer } from "../http/support.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { cleanupsAfterEach } from "./cleanups.ts";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.ts";

const later = cleanupsAfterEach();

/** Export only at shutdown, so what the receiver holds is one final export. */
const otlpEnv = (otlp: OtlpReceiver) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_TRACES_EXPORTER: "none",
  OTEL_METRIC_EXPORT_INTERVAL: "3600000",
});

/** Each point of mcpkit.authorization.refused as `route limit: count`, sorted. */
function refusals(otlp: OtlpReceiver): string[] {
  return otlp.metrics
    .filter((metric) => metric.name === "mcpkit.authorization.refused")
    .flatMap((metric) => metric.points)
    .map(
      (point) =>
        `${point.attributes["http.route"]} ${point.attributes["mcpkit.limit"]}: ${Number(point.asInt ?? point.asDouble)}`,
    )
    .sort();
}

test("the per-address limits of /register and /authorize count their refusals, and only those", async () => {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const idp = await startIdp();
  later(() => idp.stop());
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-otel-refused-"));
  later(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startHttpServer(
    [
      ...["--auth", "oauth", "--upstream-issuer", idp.issuer, "--upstream-client-id", "mcpkit-upstream"],
      ...["--allow", "alice@example.com=boj:read", "--state", `sqlite:${join(dir, "auth.db")}`, "--toolsets", "boj"],
    ],
    { env: otlpEnv(otlp) },
  );
  later(() => server.stop());
  // Every request counts against its address's minute, junk included: 10 registrations, 60 sign-ins.
  const registrations: number[] = [];
  for (let i = 0; i < 11; i++) {
    const response = await fetch(`${server.base}/register`, { method: "POST", body: "{}" });
    registrations.push(response.status);
  }
  expect(registrations).toEqual([...Array(10).fill(400), 429]);
  const signIns: number[] = [];
  for (let i = 0; i < 61; i++) signIns.push((await fetch(`${server.base}/authorize`, { redirect: "manual" })).status);
  expect(signIns).toEqual([...Array(60).fill(400), 429]);
  expect(await server.stop()).toBe(0);

  expect(refusals(otlp)).toEqual(["/authorize address: 1", "/register address: 1"]);
});

test("the CIMD cap's 503, the server-wide bounds of /register and /authorize and the consent page's per-browser limit count their refusals", async () => {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const run = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures/authorization-limits.ts")], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...otlpEnv(otlp) },
    stdout: "pipe",
    stderr: "pipe",
  });
  later(() => run.kill());
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  const statuses = JSON.parse(stdout) as Record<string, number[]>;
  expect(statuses.cimd).toEqual([503, ...Array(16).fill(200)]);
  expect(statuses.registerServer).toEqual([...Array(10).fill(201), 429]);
  expect(statuses.authorizeServer.at(-1)).toBe(429);
  expect(statuses.authorizeServer.slice(0, -1).every((status) => status === 200)).toBe(true);

  expect(statuses.consentBrowser).toEqual([...Array(10).fill(302), 429]);

  expect(refusals(otlp)).toEqual([
    "/authorize metadata_documents: 1",
    "/authorize server: 1",
    "/consent browser: 1",
    "/register server: 1",
  ]);
});
