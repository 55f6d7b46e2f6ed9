/**
 * No secret reaches anything mcpkit exports or logs, read byte for byte: a whole OAuth sign-in
 * through `mcpkit --auth oauth` (oauth2-mock-server as the IdP), a call with the access token, one
 * with a wrong token and a refresh, with OpenTelemetry exporting http/json to a receiver that keeps
 * every request's body and with `--log-format json --log-level debug`. The OTLP API key may travel
 * only in the export requests' own headers.
 */
import { expect, test } from "bun:test";
import { tokenRequest } from "../auth-server/harness.ts";
import { MCP_HEADERS, PROTOCOL_VERSION } from "../http/support.ts";
import { cleanupsAfterEach } from "./cleanups.ts";
import { signedInThroughOAuth } from "./oauth-sign-in.ts";

const later = cleanupsAfterEach();
const CLIENT_SECRET = "upstream-client-secret-4d2a";
const OTLP_KEY = "otlp-api-key-91c3";
const OTLP_BEARER = "otlp-bearer-6e0f";
const WRONG_TOKEN = "wrong-token-b58d";

/** Keeps the body of every export request, as sent. */
function rawReceiver(): { url: string; bodies: string[] } {
  const bodies: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      bodies.push(`${new URL(request.url).pathname}\n${await request.text()}`);
      return Response.json({});
    },
  });
  later(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, bodies };
}

test("no token, code, verifier, client secret or OTLP key in any exported byte or JSON log line", async () => {
  const otlp = rawReceiver();
  const { server, provider, code } = await signedInThroughOAuth(
    later,
    ["--log-format", "json", "--log-level", "debug"],
    {
      MCPKIT_UPSTREAM_CLIENT_SECRET: CLIENT_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${OTLP_KEY},authorization=Bearer%20${OTLP_BEARER}`,
      OTEL_BSP_SCHEDULE_DELAY: "3600000",
      OTEL_METRIC_EXPORT_INTERVAL: "3600000",
    },
  );
  const signedIn = { access: provider.saved?.access_token ?? "", refresh: provider.saved?.refresh_token ?? "" };
  const initialize = (token: string) =>
    fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    });
  expect((await initialize(signedIn.access)).status).toBe(200);
  expect((await initialize(WRONG_TOKEN)).status).toBe(401);
  const refreshed = await tokenRequest(server.base, {
    grant_type: "refresh_token",
    refresh_token: signedIn.refresh,
    client_id: String(provider.info?.client_id),
  });
  expect(refreshed.status).toBe(200);
  expect(await server.stop()).toBe(0);

  const secrets = {
    code,
    verifier: provider.verifier,
    ...signedIn,
    refreshedAccess: String(refreshed.body.access_token),
    refreshedRefresh: String(refreshed.body.refresh_token),
    CLIENT_SECRET,
    OTLP_KEY,
    OTLP_BEARER,
    WRONG_TOKEN,
  };
  for (const value of Object.values(secrets)) expect(value.length).toBeGreaterThan(8);
  const exported = otlp.bodies.join("\n");
  // Something of each kind was exported and logged: the checks below read real output.
  expect(exported).toContain("/v1/traces\n");
  expect(exported).toContain("/v1/metrics\n");
  expect(exported).toContain("mcpkit.authorization.sign_ins");
  const logged = server.stderr();
  expect(
    logged
      .split("\n")
      .filter(Boolean)
      .every((line) => line.startsWith("{")),
  ).toBe(true);
  expect(logged).toContain('"message":"tokens issued"');
  for (const [name, value] of Object.entries(secrets)) {
    expect({ name, exported: exported.includes(value), logged: logged.includes(value) }).toEqual({
      name,
      exported: false,
      logged: false,
    });
  }
});
