/**
 * Redirect URIs whose scheme hands a web address to a browser app (`microsoft-edge:https://…` on
 * Windows, `x-safari-https://…`, `googlechromes://…` on iOS, …) are refused: the code would land
 * on that site, and the consent page said "sent back to microsoft-edge:" instead of naming it
 * (red-team F6). `mcpkit --http --auth oauth` as a real process; loopback only.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostOf } from "../../src/mcp/auth-server/redirect-uri.ts";
import type { HttpServerProcess } from "../http/support.ts";
import { type Idp, authorizeUrl, pkce, registerClient, startIdp, startOauthProcess } from "./harness.ts";

let idp: Idp;
let dir: string;
let server: HttpServerProcess;

beforeAll(async () => {
  idp = await startIdp();
  dir = mkdtempSync(join(tmpdir(), "mcpkit-redirect-handoff-"));
  // Registrations are limited to 10 a minute per address: each one here comes from its own
  // address, which the trusted proxy (the test itself, on loopback) names.
  server = await startOauthProcess(idp, join(dir, "state"), "alice@example.com=*", [
    ...["--toolsets", "boj", "--trusted-proxies", "127.0.0.1"],
  ]);
});
afterAll(async () => {
  await server?.stop();
  await idp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let addresses = 0;

async function register(uri: string): Promise<{ status: number; body: Record<string, string> }> {
  addresses++;
  const response = await fetch(`${server.base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `192.0.2.${addresses}` },
    body: JSON.stringify({ client_name: "Handoff", redirect_uris: [uri] }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const EDGE = "microsoft-edge:https://evil.example/cb";

describe("browser hand-off schemes", () => {
  test("registration refuses microsoft-edge:, naming the field and the address to register instead", async () => {
    const { status, body } = await register(EDGE);
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description).toContain("redirect_uris");
    expect(body.error_description).toContain("microsoft-edge:");
    expect(body.error_description).toContain("register https://evil.example/cb itself");
  });

  for (const uri of [
    "microsoft-edge-holographic:https://evil.example/cb",
    "x-safari-https://evil.example/cb",
    "x-safari-http://evil.example/cb",
    "googlechrome://evil.example/cb",
    "googlechromes://evil.example/cb",
    "googlechrome-x-callback://x-callback-url/open/?url=https%3A%2F%2Fevil.example%2Fcb",
    "firefox://open-url?url=https%3A%2F%2Fevil.example%2Fcb",
    "firefox-focus://open-url?url=https%3A%2F%2Fevil.example%2Fcb",
    "opera-https://evil.example/cb",
    "opera-http://evil.example/cb",
    "brave://open-url?url=https%3A%2F%2Fevil.example%2Fcb",
    "microsoft-edge-https://evil.example/cb",
    "samsunginternet://open?url=https%3A%2F%2Fevil.example%2Fcb",
    // A browser not listed yet: the shape gives it away, a scheme and then a whole web address,
    // in each spelling a URL parser reads as one (second review).
    "newbrowser:https://evil.example/cb",
    "myapp:/https://evil.example/cb",
    "myapp:https:/evil.example/cb",
    "myapp:https:evil.example/cb",
    "myapp://https://evil.example/cb",
  ]) {
    test(`registration refuses ${uri}`, async () => {
      const { status, body } = await register(uri);
      expect(status).toBe(400);
      expect(body.error_description).toContain("hands a web address to a browser app");
    });
  }

  test("app schemes are still accepted", async () => {
    for (const uri of [
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "com.example.app:/oauth2redirect",
      // A host or path that merely starts with the letters http is no web address.
      "myapp://https/callback",
      "myapp://httpbin-client/cb",
    ]) {
      expect((await register(uri)).status).toBe(201);
    }
  });

  test("the consent page names an app scheme with its host and warns that an installed application gets the result", async () => {
    // Anyone may register: the name and the host part of an app scheme are the registrant's choice.
    const { status, body } = await register("evilapp://claude.ai/callback");
    expect(status).toBe(201);
    const response = await fetch(
      authorizeUrl(server.base, {
        response_type: "code",
        client_id: body.client_id,
        redirect_uri: "evilapp://claude.ai/callback",
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
      }),
      { redirect: "manual", headers: { "x-forwarded-for": "192.0.2.200" } },
    );
    const html = await response.text();
    expect(response.status).toBe(200);
    // It read "sent back to claude.ai", as if to that website.
    expect(/id="redirect-host">([^<]*)</.exec(html)?.[1]).toBe("evilapp://claude.ai");
    expect(html).toContain("goes to an application installed on this device that opens evilapp: links");
  });

  test("a client registered before the refusal gets an error page at /authorize, not the consent page", async () => {
    const client = await registerClient(server.base, { redirect_uris: ["http://127.0.0.1:9/callback"] });
    // Its row as an older release accepted it, with the hand-off URI.
    const db = new Database(join(dir, "state", "auth.db"));
    try {
      const row = db.query("select metadata from oauth_clients where client_id = ?").get(client.client_id) as {
        metadata: string;
      };
      const metadata = { ...JSON.parse(row.metadata), redirect_uris: [EDGE] };
      db.run("update oauth_clients set metadata = ? where client_id = ?", [JSON.stringify(metadata), client.client_id]);
    } finally {
      db.close();
    }
    const response = await fetch(
      authorizeUrl(server.base, {
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: EDGE,
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
      }),
      { redirect: "manual" },
    );
    const html = await response.text();
    expect(response.status).toBe(400);
    expect(html).toContain("Redirect URI not allowed");
    expect(html).not.toContain('name="csrf"');
  });

  test("the consent page's 'sent back to' names the site after a scheme, not the scheme", () => {
    expect(hostOf(EDGE)).toBe("evil.example (through microsoft-edge:)");
    expect(hostOf("https://app.example/cb")).toBe("app.example");
    // Another scheme than http(s) is named with its host: the host alone read as a website.
    expect(hostOf("cursor://anysphere.cursor-mcp/oauth/callback")).toBe("cursor://anysphere.cursor-mcp");
    expect(hostOf("evilapp://claude.ai/callback")).toBe("evilapp://claude.ai");
    expect(hostOf("com.example.app:/oauth2redirect")).toBe("com.example.app:");
    expect(hostOf("myapp://https://evil.example/cb")).toBe("evil.example (through myapp:)");
    expect(hostOf("myapp:https:evil.example/cb")).toBe("evil.example (through myapp:)");
  });
});
