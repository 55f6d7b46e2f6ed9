/**
 * mcpkit's authorization server (`--auth oauth`) against MCP 2026-07-28's authorization changes:
 * dynamic client registration takes `application_type` (SEP-837) and is still served though
 * deprecated in favour of Client ID Metadata Documents, which the metadata keeps advertising;
 * authorization responses carry `iss` (RFC 9207, SEP-2468), advertised in the metadata.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../auth-server/harness.ts";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const register = (body: Record<string, unknown>) =>
  fetch(`${h.base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "2026 client", redirect_uris: ["http://127.0.0.1:9/callback"], ...body }),
  });

describe("dynamic client registration (deprecated, still served)", () => {
  for (const type of ["native", "web"]) {
    test(`application_type ${type} is accepted and registered`, async () => {
      const response = await register({ application_type: type });
      expect(response.status).toBe(201);
      expect(((await response.json()) as Record<string, unknown>).application_type).toBe(type);
    });
  }

  test("without application_type a registration is still accepted (2025-era clients)", async () => {
    const response = await register({});
    expect(response.status).toBe(201);
    expect(((await response.json()) as Record<string, unknown>).application_type).toBeUndefined();
  });

  test("any other application_type is invalid_client_metadata naming the field", async () => {
    for (const value of ["desktop", 7, ["web"]]) {
      const response = await register({ application_type: value });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe("invalid_client_metadata");
      expect(body.error_description).toContain("application_type");
    }
  });
});

describe("the metadata", () => {
  test("advertises Client ID Metadata Documents (the preferred registration) and iss in authorization responses", async () => {
    const metadata = (await (await fetch(`${h.base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata.registration_endpoint).toBe(`${h.base}/register`);
  });
});
