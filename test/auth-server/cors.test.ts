/**
 * One CORS implementation (src/mcp/web/cors.ts): the authorization server's endpoints answer
 * browser clients on any origin by the same public policy, preflights and responses alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PUBLIC_CORS } from "../../src/mcp/web/cors.ts";
import { type Harness, startHarness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

describe("CORS of the authorization server", () => {
  test("every public endpoint answers a preflight by the public policy", async () => {
    for (const path of [
      "/token",
      "/register",
      "/revoke",
      "/.well-known/oauth-authorization-server",
      "/.well-known/jwks.json",
    ]) {
      const response = await fetch(`${h.base}${path}`, {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      });
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-methods")).toBe(PUBLIC_CORS.methods);
      expect(response.headers.get("access-control-allow-headers")).toBe(PUBLIC_CORS.headers);
      expect(response.headers.get("access-control-max-age")).toBe("600");
    }
  });

  test("answers (errors included) are readable from any origin", async () => {
    const metadata = await fetch(`${h.base}/.well-known/oauth-authorization-server`);
    expect(metadata.headers.get("access-control-allow-origin")).toBe("*");
    const refused = await fetch(`${h.base}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://app.example" },
      body: "grant_type=nonsense",
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  });
});
