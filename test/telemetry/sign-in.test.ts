/**
 * `mcpkit --http --auth oauth` with OpenTelemetry on: a sign-in at the identity provider shows as
 * CLIENT spans to the IdP (its discovery and token requests) and counts in
 * mcpkit.authorization.sign_ins; no token, client secret or Authorization header reaches a span.
 */
import { expect, test } from "bun:test";
import { SPAN_KIND_CLIENT, startOtlpReceiver } from "./otlp-receiver.ts";
import { cleanupsAfterEach } from "./cleanups.ts";
import { signedInThroughOAuth } from "./oauth-sign-in.ts";

const later = cleanupsAfterEach();

test("a sign-in's requests to the IdP are CLIENT spans and it is counted; no secret is recorded", async () => {
  const otlp = startOtlpReceiver();
  later(() => otlp.stop());
  const { server, idp, provider } = await signedInThroughOAuth(later, [], {
    MCPKIT_UPSTREAM_CLIENT_SECRET: "upstream-secret",
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "3600000",
    OTEL_METRIC_EXPORT_INTERVAL: "3600000",
  });
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
