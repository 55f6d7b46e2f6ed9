/**
 * Unit checks of the resource server that are not visible from outside the process.
 */
import { expect, test } from "bun:test";
import * as jose from "jose";
import { createLogger } from "../../src/core/log.ts";
import { createResourceServer } from "../../src/mcp/http/auth/resource-server.ts";

test("authenticating many distinct tokens registers none of them with the logger (its redaction list would grow without bound)", async () => {
  const lines: string[] = [];
  const log = createLogger("trace", (line) => lines.push(line));
  let registered = 0;
  const redact = log.redact;
  log.redact = (secret) => {
    registered++;
    redact(secret);
  };
  const server = createResourceServer({
    resource: "http://127.0.0.1:1/mcp",
    issuer: "http://127.0.0.1:9",
    audience: ["http://127.0.0.1:1/mcp"],
    requiredScopes: [],
    scopesSupported: ["boj:read"],
    log,
  });
  const tokens = Array.from({ length: 200 }, (_, i) => `eyJhbGciOiJub25lIn0.eyJzdWIiOiJ${i}In0.sig${i}`);
  for (const token of tokens) {
    const result = await server.authenticate(
      new Request("http://127.0.0.1:1/mcp", { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    );
    expect(result).toBeInstanceOf(Response);
    const response = result as Response;
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain(token);
    expect(response.headers.get("www-authenticate")).not.toContain(token);
  }
  expect(registered).toBe(0);
  expect(lines.some((line) => tokens.some((token) => line.includes(token)))).toBe(false);
});

test("a state store that fails the revocation check is a 503, and its words reach the log scrubbed", async () => {
  const { privateKey, publicKey } = await jose.generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const jwks = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ keys: [jwk] }) });
  try {
    const lines: string[] = [];
    const longToken = "A".repeat(24) + "b".repeat(24);
    const server = createResourceServer({
      resource: "http://127.0.0.1:1/mcp",
      issuer: "https://issuer.test",
      audience: ["http://127.0.0.1:1/mcp"],
      jwksUrl: `http://127.0.0.1:${jwks.port}/jwks`,
      requiredScopes: [],
      scopesSupported: ["boj:read"],
      log: createLogger("warn", (line) => lines.push(line)),
      // What a Postgres driver may say: its connection URL, and anything else it quotes.
      isSignInRevoked: () =>
        Promise.reject(new Error(`connect to postgres://mcpkit:Store-Pa55word@db:5432/x failed for ${longToken}`)),
    });
    const token = await new jose.SignJWT({ sub: "alice", sid: "sign-in-1", scope: "boj:read" })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer("https://issuer.test")
      .setAudience("http://127.0.0.1:1/mcp")
      .setExpirationTime("1h")
      .sign(privateKey);
    const result = await server.authenticate(
      new Request("http://127.0.0.1:1/mcp", { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    );
    expect((result as Response).status).toBe(503);
    const logged = lines.join("");
    expect(logged).toContain("cannot check whether a sign-in was revoked");
    expect(logged).toContain("postgres://[redacted]@db:5432/x");
    expect(logged).not.toContain("Store-Pa55word");
    expect(logged).not.toContain(longToken);
  } finally {
    jwks.stop(true);
  }
});
