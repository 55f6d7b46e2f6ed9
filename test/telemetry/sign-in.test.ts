/**
 * `mcpkit --http --auth oauth` with OpenTelemetry on: a sign-in at the identity provider shows as
 * CLIENT spans to the IdP (its discovery and token requests) and counts in
 * mcpkit.authorization.sign_ins; no token, client secret or Authorization header reaches a span.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { type Harness, signIn, startIdp } from "../auth-server/harness.ts";
import { MemoryProvider } from "../auth-server/sdk-client.ts";
import { startHttpServer } from "../http/support.ts";
import { SPAN_KIND_CLIENT, startOtlpReceiver } from "./otlp-receiver.ts";
import { cleanupsAfterEach } from "./cleanups.ts";

const later = cleanupsAfterEach();

test("a sign-in's requests to the IdP are CLIENT spans and it is counted; no secret is recorded", async () => {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const idp = await startIdp();
  later(() => idp.stop());
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-otel-sign-in-"));
  later(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startHttpServer(
    [
      ...["--auth", "oauth", "--upstream-issuer", idp.issuer, "--upstream-client-id", "mcpkit-upstream"],
      ...["--allow", "alice@example.com=boj:read", "--state", `sqlite:${join(dir, "auth.db")}`, "--toolsets", "boj"],
    ],
    {
      env: {
        MCPKIT_UPSTREAM_CLIENT_SECRET: "upstream-secret",
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "3600000",
        OTEL_METRIC_EXPORT_INTERVAL: "3600000",
      },
    },
  );
  later(() => server.stop());
  const provider = new MemoryProvider("http://127.0.0.1:9/callback");
  expect(await auth(provider, { serverUrl: server.url })).toBe("REDIRECT");
  const { exit } = await signIn({ base: server.base, idp } as Harness, (provider.authorizationUrl as URL).href);
  const code = exit.searchParams.get("code") ?? "";
  expect(await auth(provider, { serverUrl: server.url, authorizationCode: code })).toBe("AUTHORIZED");
  expect(await server.stop()).toBe(0);

  const idpPort = Number(new URL(idp.issuer).port);
  const toIdp = otlp.spans.filter(
    (span) => span.kind === SPAN_KIND_CLIENT && span.attributes["server.port"] === idpPort,
  );
  const methods = toIdp.map((span) => `${span.name} ${new URL(String(span.attributes["url.full"])).pathname}`);
  expect(methods.some((line) => line.startsWith("GET ") && line.includes(".well-known"))).toBe(true);
  expect(methods.some((line) => line.startsWith("POST "))).toBe(true);

  const signIns = otlp.metrics
    .filter((metric) => metric.name === "mcpkit.authorization.sign_ins")
    .flatMap((metric) => metric.points)
    .map((point) => [point.attributes["mcpkit.outcome"], Number(point.asInt ?? point.asDouble)]);
  expect(signIns).toEqual([["signed_in", 1]]);

  const recorded = JSON.stringify(otlp.spans);
  expect(recorded).not.toContain("upstream-secret");
  expect(recorded).not.toContain(provider.saved?.access_token ?? "unreachable");
  expect(recorded.toLowerCase()).not.toContain("authorization");
});
