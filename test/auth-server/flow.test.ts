/**
 * The whole sign-in with the MCP SDK client's own OAuth code (`auth()`: discovery through the
 * protected-resource metadata, dynamic registration, PKCE, RFC 8707 resource), a real OIDC IdP
 * upstream, the consent page, and the issued token accepted by the unchanged resource server.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import * as jose from "jose";
import {
  Browser,
  type Harness,
  authorizeUrl,
  fullFlow,
  pkce,
  registerClient,
  signIn,
  startHarness,
  tokenRequest,
} from "./harness.ts";
import { MemoryProvider } from "./sdk-client.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const callMcp = (token: string) => fetch(h.mcpUrl, { method: "POST", headers: { authorization: `Bearer ${token}` } });

/** A new client's sign-in (PKCE, no scope), as far as it gets. */
async function signInAsNewClient() {
  const client = await registerClient(h.base);
  const { challenge } = pkce();
  return signIn(
    h,
    authorizeUrl(h.base, {
      response_type: "code",
      client_id: client.client_id,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
  );
}

describe("SDK client auth()", () => {
  test("registers, signs in through consent and the IdP, calls /mcp, refreshes, revokes", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:9/sdk-callback");
    expect(await auth(provider, { serverUrl: h.mcpUrl })).toBe("REDIRECT");
    expect(provider.info?.client_id).toStartWith("mcpkit-");
    const authorization = provider.authorizationUrl as URL;
    expect(authorization.searchParams.get("resource")).toBe(h.mcpUrl);
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");

    const { exit } = await signIn(h, authorization.href);
    expect(exit.origin + exit.pathname).toBe("http://127.0.0.1:9/sdk-callback");
    expect(exit.searchParams.get("state")).toBe("sdk-state");
    expect(exit.searchParams.get("iss")).toBe(h.as.issuer);
    expect(await auth(provider, { serverUrl: h.mcpUrl, authorizationCode: exit.searchParams.get("code") ?? "" })).toBe(
      "AUTHORIZED",
    );

    const first = provider.saved;
    expect(first?.refresh_token).toBeString();
    const called = await callMcp(first?.access_token ?? "");
    expect(called.status).toBe(200);
    expect(await called.json()).toEqual({
      subject: "oidc:alice-sub",
      scopes: ["boj:read", "oj:read", "fs:read"],
      clientId: provider.info?.client_id as string,
    });

    // auth() with a refresh token refreshes; the new access token works, the old refresh token is rotated.
    expect(await auth(provider, { serverUrl: h.mcpUrl })).toBe("AUTHORIZED");
    const second = provider.saved;
    expect(second?.refresh_token).not.toBe(first?.refresh_token);
    expect((await callMcp(second?.access_token ?? "")).status).toBe(200);

    const revoked = await fetch(`${h.base}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: second?.refresh_token ?? "",
        client_id: provider.info?.client_id ?? "",
      }).toString(),
    });
    expect(revoked.status).toBe(200);
    const after = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      refresh_token: second?.refresh_token ?? "",
      client_id: provider.info?.client_id ?? "",
    });
    expect(after.status).toBe(400);
    expect(after.body.error).toBe("invalid_grant");
  });
});

describe("metadata and keys", () => {
  test("RFC 8414 metadata names the issuer byte-identically to the protected-resource metadata", async () => {
    const prm = (await (await fetch(`${h.base}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      authorization_servers: string[];
    };
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const metadata = (await (await fetch(h.base + path)).json()) as Record<string, unknown>;
      expect(metadata.issuer).toBe(prm.authorization_servers[0]);
      expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(["none"]);
      expect(metadata.client_id_metadata_document_supported).toBe(true);
      expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    }
  });

  test("tokens are ES256 JWTs for the MCP URL, verifiable with the published JWKS", async () => {
    const { tokens } = await fullFlow(h);
    expect(tokens.headers.get("cache-control")).toBe("no-store");
    const jwks = jose.createLocalJWKSet(await h.as.verifierKeys());
    const { payload, protectedHeader } = await jose.jwtVerify(String(tokens.body.access_token), jwks, {
      issuer: h.as.issuer,
      audience: h.mcpUrl,
    });
    expect(protectedHeader.alg).toBe("ES256");
    expect(payload.scope).toBe("boj:read fs:read");
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
  });

  test("after a key rotation the old key stays published and its tokens still verify; new tokens use the new key", async () => {
    const before = await fullFlow(h);
    const oldKid = jose.decodeProtectedHeader(String(before.tokens.body.access_token)).kid;
    const newKid = await h.as.rotateSigningKey();
    const kids = (
      (await (await fetch(`${h.base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
    ).keys.map((key) => key.kid);
    expect(kids).toContain(oldKid as string);
    expect(kids).toContain(newKid);
    expect((await callMcp(String(before.tokens.body.access_token))).status).toBe(200);
    // Both keys are younger than the publish lead here, so the newest signs; the verifier (in this
    // process) refetches the JWKS for an unknown kid at most once a second, timed by jose with
    // Date.now: the clock moves past that cooldown instead of the test waiting it out.
    setSystemTime(new Date(Date.now() + 1_100));
    try {
      const refreshed = await tokenRequest(h.base, {
        grant_type: "refresh_token",
        refresh_token: String(before.tokens.body.refresh_token),
        client_id: before.client.client_id,
      });
      expect(refreshed.status).toBe(200);
      expect(jose.decodeProtectedHeader(String(refreshed.body.access_token)).kid).toBe(newKid);
      expect((await callMcp(String(refreshed.body.access_token))).status).toBe(200);
    } finally {
      setSystemTime();
    }
  });
});

describe("consent, policy, state", () => {
  test("consent is remembered per client and user: the second sign-in skips the page", async () => {
    const client = await registerClient(h.base);
    const browser = new Browser();
    const start = () => {
      const { challenge } = pkce();
      return authorizeUrl(h.base, {
        response_type: "code",
        client_id: client.client_id,
        code_challenge: challenge,
        code_challenge_method: "S256",
        scope: "boj:read",
      });
    };
    await signIn(h, start(), browser);
    const second = await browser.get(start());
    expect(second.status).toBe(302);
    expect(second.headers.get("location")).toStartWith(h.idp.issuer);
    // Another client still asks.
    const other = await registerClient(h.base);
    const { challenge } = pkce();
    const page = await browser.get(
      authorizeUrl(h.base, {
        response_type: "code",
        client_id: other.client_id,
        code_challenge: challenge,
        code_challenge_method: "S256",
      }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Allow Test client to use mcpkit?");
  });

  test("a user outside the policy sees a page saying so, and gets no code", async () => {
    h.idp.user = { sub: "mallory-sub", email: "mallory@evil.example", email_verified: true };
    try {
      await expect(signInAsNewClient()).rejects.toThrow(
        /sign-in ended on a page \(403\).*not allowed here.*mallory@evil\.example/s,
      );
    } finally {
      h.idp.user = { sub: "alice-sub", email: "alice@example.com", email_verified: true };
    }
  });

  test("an unverified email does not match the policy", async () => {
    h.idp.user = { sub: "bob-sub", email: "bob@example.com", email_verified: false };
    try {
      await expect(signInAsNewClient()).rejects.toThrow(/\(403\)/);
    } finally {
      h.idp.user = { sub: "alice-sub", email: "alice@example.com", email_verified: true };
    }
  });

  test("scopes are the requested ones the policy grants (*@example.com gets boj:read only)", async () => {
    h.idp.user = { sub: "carol-sub", email: "carol@example.com", email_verified: true };
    try {
      const { tokens } = await fullFlow(h, "boj:read fs:read");
      expect(tokens.body.scope).toBe("boj:read");
    } finally {
      h.idp.user = { sub: "alice-sub", email: "alice@example.com", email_verified: true };
    }
  });

  test("the SQLite file is created 0600 and its key file too; codes and refresh tokens are stored hashed", async () => {
    const { tokens, code } = await fullFlow(h);
    const path = join(h.dir, "state", "auth.db");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}.key`).mode & 0o777).toBe(0o600);
    const bytes = await Bun.file(path).text();
    expect(bytes).not.toContain(String(tokens.body.refresh_token));
    expect(bytes).not.toContain(code);
    expect(bytes).not.toContain("upstream-secret");
  });

  test("purge removes expired rows", async () => {
    expect(await h.as.purge()).toBeGreaterThanOrEqual(0);
    const { code } = await fullFlow(h);
    expect(code).toBeString();
  });

  test("no token, code or secret ever reaches the log", async () => {
    const { tokens, code, verifier } = await fullFlow(h);
    const log = h.logs.join("");
    for (const secret of [
      String(tokens.body.access_token),
      String(tokens.body.refresh_token),
      code,
      verifier,
      "upstream-secret",
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
