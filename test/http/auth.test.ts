/**
 * `--auth jwt`: mcpkit as an OAuth 2.1 resource server in front of a real authorization server
 * (oauth2-mock-server on loopback, tokens from the authorization-code grant with PKCE).
 * Covers the metadata, every way a token can be wrong, scopes with wildcards, and sessions
 * bound to the token's subject.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import * as jose from "jose";
import {
  type AuthServer,
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  connectClient,
  initializeBody,
  messagesOf,
  startAuthServer,
  startHttpServer,
} from "./support.ts";
import { mcpkitCommand, testEnv } from "../support/mcp.ts";
import { JWKS_COOLDOWN_MS } from "../../src/mcp/http/auth/token-verifier.ts";

/** The listed (portable) name; the seed's name is accepted on call too. */
const FS_TOOL = "fs_search_by_time";
const FS_SEED_NAME = "fs.search_by_time";
const isBojTool = (name: string) => name.startsWith("boj_");

/** `mcpkit --http --toolsets boj --auth jwt` trusting the test issuer, plus `extra` flags. */
const startBojJwtServer = (...extra: string[]) =>
  startHttpServer(["--toolsets", "boj", "--auth", "jwt", "--issuer", auth.issuer, ...extra]);

let auth: AuthServer;
let server: HttpServerProcess;
let root: string;
const issuedTokens: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-http-auth-"));
  writeFileSync(join(root, "a.txt"), "a");
  auth = await startAuthServer();
  server = await startHttpServer([
    "--toolsets",
    "boj,fs",
    "--root",
    root,
    "--auth",
    "jwt",
    "--issuer",
    auth.issuer,
    "--log-level",
    "trace",
  ]);
});

afterAll(async () => {
  await server?.stop();
  await auth?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function token(
  scope: string,
  options: { resource?: string; mutate?: Parameters<AuthServer["token"]>[0]["mutate"] } = {},
) {
  const value = await auth.token({ scope, resource: options.resource ?? server.url, mutate: options.mutate });
  issuedTokens.push(value);
  return value;
}

function post(body: string, headers: Record<string, string> = {}) {
  return fetch(server.url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const now = () => Math.floor(Date.now() / 1000);

/** A WWW-Authenticate parameter value as RFC 6750 §3 allows it: no `"` and no `\\`. */
const VALUE = "[\\x20-\\x21\\x23-\\x5b\\x5d-\\x7e]*";
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A 401 with exactly `Bearer resource_metadata="…", scope="…"`, plus `error="invalid_token",
 * error_description="…"` when a token was sent, a -32001 body, and the token echoed nowhere.
 */
async function expectUnauthorized(response: Response, tokenSent: boolean | string): Promise<string> {
  expect(response.status).toBe(401);
  const challenge = response.headers.get("www-authenticate") ?? "";
  const start = `^Bearer resource_metadata="${escapeRegExp(`${server.base}/.well-known/oauth-protected-resource/mcp`)}", scope="[a-z*]+(:[a-z*]+)*( [a-z*]+(:[a-z*]+)*)*"`;
  expect(challenge).toMatch(
    new RegExp(tokenSent ? `${start}, error="invalid_token", error_description="${VALUE}"$` : `${start}$`),
  );
  const text = await response.text();
  if (typeof tokenSent === "string") {
    expect(challenge.includes(tokenSent)).toBe(false);
    expect(text.includes(tokenSent)).toBe(false);
  }
  const body = JSON.parse(text) as { error: { code: number; message: string } };
  expect(body.error.code).toBe(-32001);
  return body.error.message;
}

async function toolNames(accessToken: string): Promise<string[]> {
  const { client } = await connectClient(server.url, accessToken);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe("protected resource metadata (RFC 9728)", () => {
  test("is served at the root and the path-inserted well-known URI, without a token", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const response = await fetch(`${server.base}${path}`);
      expect(response.status).toBe(200);
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata.resource).toBe(server.url);
      expect(metadata.authorization_servers).toEqual([auth.issuer]);
      expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["boj:read", "fs:read"]));
      expect(metadata.bearer_methods_supported).toEqual(["header"]);
    }
  });

  test("/healthz needs no token", async () => {
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
  });
});

describe("tokens that are refused with 401", () => {
  test("no token: a challenge naming the metadata and scopes, no error code", async () => {
    const message = await expectUnauthorized(await post(initializeBody()), false);
    expect(message).toContain("Bearer");
    const challenge = (await post(initializeBody())).headers.get("www-authenticate") ?? "";
    expect(challenge).toContain("boj:read");
    expect(challenge).toContain("fs:read");
  });

  test("a malformed token or header", async () => {
    await expectUnauthorized(await post(initializeBody(), bearer("not-a-jwt")), "not-a-jwt");
    // A header that is not a bearer token still names the expected form, without quotes that break parsers.
    const basic = await post(initializeBody(), { authorization: "Basic dXNlcjpwYXNz" });
    expect(basic.headers.get("www-authenticate")).toContain(
      "error_description=\"the Authorization header must be 'Bearer <token>'",
    );
    await expectUnauthorized(await post(initializeBody(), { authorization: "Basic dXNlcjpwYXNz" }), true);
  });

  test("a bad signature (right kid, wrong key) and a key the issuer never published", async () => {
    const { privateKey } = await jose.generateKeyPair("RS256");
    const claims = { iss: auth.issuer, aud: server.url, sub: "mallory", scope: "*" };
    const forgedKnownKid = await new jose.SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "key-1" })
      .setExpirationTime("1h")
      .sign(privateKey);
    expect(await expectUnauthorized(await post(initializeBody(), bearer(forgedKnownKid)), forgedKnownKid)).toContain(
      "signature",
    );
    const forgedUnknownKid = await new jose.SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "key-evil" })
      .setExpirationTime("1h")
      .sign(privateKey);
    expect(await expectUnauthorized(await post(initializeBody(), bearer(forgedUnknownKid)), true)).toContain("key");
    // Tampering with a genuine token's payload breaks its signature too.
    const genuine = await token("boj:read");
    const [header, , signature] = genuine.split(".");
    const widened = Buffer.from(JSON.stringify({ ...jose.decodeJwt(genuine), scope: "*" })).toString("base64url");
    await expectUnauthorized(await post(initializeBody(), bearer(`${header}.${widened}.${signature}`)), true);
  });

  test("alg none, and HMAC keyed with the public key", async () => {
    const claims = { iss: auth.issuer, aud: server.url, sub: "mallory", scope: "*", exp: now() + 3600 };
    const unsecured = new jose.UnsecuredJWT(claims).encode();
    expect(await expectUnauthorized(await post(initializeBody(), bearer(unsecured)), true)).toContain("algorithm");
    const jwks = (await (await fetch(`${auth.issuer}/jwks`)).json()) as { keys: { n: string }[] };
    const secret = new TextEncoder().encode(jwks.keys[0].n);
    const hmac = await new jose.SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "key-1" }).sign(secret);
    expect(await expectUnauthorized(await post(initializeBody(), bearer(hmac)), true)).toContain("algorithm");
  });

  test("a critical header extension the server does not implement: refused, saying crit, not the algorithm", async () => {
    // Signed by the issuer's own published key, so crit is the only thing wrong with it.
    const [jwk] = (auth.server.issuer.keys.toJSON(true) as jose.JWK[]).filter((key) => key.alg === "RS256");
    const claims = { iss: auth.issuer, aud: server.url, sub: "alice", scope: "*", exp: now() + 3600 };
    const critical = await new jose.CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: "RS256", kid: jwk.kid, crit: ["x-unknown"], "x-unknown": 1 })
      .sign(await jose.importJWK(jwk, "RS256"), { crit: { "x-unknown": true } });
    const reason = await expectUnauthorized(await post(initializeBody(), bearer(critical)), critical);
    expect(reason).toContain("critical (crit)");
    expect(reason).not.toContain("algorithm");
    // The same token without crit is accepted: the key and the claims are good.
    const plain = await new jose.CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: "RS256", kid: jwk.kid })
      .sign(await jose.importJWK(jwk, "RS256"));
    const accepted = await post(initializeBody(), bearer(plain));
    expect(accepted.status).toBe(200);
    await accepted.body?.cancel();
  });

  test("wrong issuer, wrong audience", async () => {
    const wrongIssuer = await token("*", {
      mutate: (_h, payload) => void (payload.iss = "http://127.0.0.1:9/other-issuer"),
    });
    expect(await expectUnauthorized(await post(initializeBody(), bearer(wrongIssuer)), wrongIssuer)).toContain(
      "different authorization server",
    );
    const wrongAudience = await token("*", { resource: "http://127.0.0.1:9/mcp" });
    expect(await expectUnauthorized(await post(initializeBody(), bearer(wrongAudience)), wrongAudience)).toContain(
      "not issued for this server",
    );
  });

  test("expired, not yet valid, and no expiry at all; a few seconds of clock skew are tolerated", async () => {
    const expired = await token("*", { mutate: (_h, payload) => void (payload.exp = now() - 3600) });
    expect(await expectUnauthorized(await post(initializeBody(), bearer(expired)), expired)).toContain("expired");
    const early = await token("*", { mutate: (_h, payload) => void (payload.nbf = now() + 3600) });
    expect(await expectUnauthorized(await post(initializeBody(), bearer(early)), true)).toContain("not valid yet");
    const endless = await token("*", { mutate: (_h, payload) => void delete payload.exp });
    expect(await expectUnauthorized(await post(initializeBody(), bearer(endless)), true)).toContain("exp");
    for (const nearlyValid of [
      await token("*", { mutate: (_h, payload) => void (payload.exp = now() - 5) }),
      await token("*", { mutate: (_h, payload) => void (payload.nbf = now() + 5) }),
    ]) {
      const accepted = await post(initializeBody(), bearer(nearlyValid));
      expect(accepted.status).toBe(200);
      await accepted.text();
    }
  });
});

describe("scopes", () => {
  test("a full token sees and calls every tool", async () => {
    const names = await toolNames(await token("boj:read fs:read"));
    expect(names).toContain(FS_TOOL);
    expect(names.some(isBojTool)).toBe(true);
  });

  test("tools/list shows only the tools the token may call", async () => {
    const bojOnly = await toolNames(await token("boj:read"));
    expect(bojOnly.length).toBeGreaterThan(0);
    expect(bojOnly.every(isBojTool)).toBe(true);
    const fsOnly = await toolNames(await token("fs:read"));
    expect(fsOnly).toEqual([FS_TOOL]);
  });

  test("resources and prompts follow the same scopes: an fs-only token sees none of boj's and cannot read them", async () => {
    const full = await connectClient(server.url, await token("boj:read fs:read"));
    const fsOnly = await connectClient(server.url, await token("fs:read"));
    try {
      expect((await full.client.listResources()).resources.length).toBeGreaterThan(0);
      expect((await full.client.listPrompts()).prompts.length).toBeGreaterThan(0);
      const uri = "boj://catalog/databases";
      expect((await full.client.readResource({ uri })).contents.length).toBeGreaterThan(0);
      expect((await fsOnly.client.listResources()).resources).toEqual([]);
      expect((await fsOnly.client.listResourceTemplates()).resourceTemplates).toEqual([]);
      expect((await fsOnly.client.listPrompts()).prompts).toEqual([]);
      const refused = await fsOnly.client.readResource({ uri }).catch((error) => error);
      expect(refused.code).toBe(-32002);
    } finally {
      await full.client.close();
      await fsOnly.client.close();
    }
  });

  test("calling a tool outside the token's scopes gets 403 insufficient_scope naming the scope, with a -32001 body", async () => {
    const accessToken = await token("boj:read");
    const init = await post(initializeBody(), bearer(accessToken));
    const sessionId = init.headers.get("mcp-session-id") as string;
    await init.text();
    const headers = { ...bearer(accessToken), "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION };
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: FS_TOOL, arguments: { root } },
    });
    const refused = await post(call, headers);
    expect(refused.status).toBe(403);
    const challenge = refused.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(
      new RegExp(
        `^Bearer resource_metadata="${escapeRegExp(`${server.base}/.well-known/oauth-protected-resource/mcp`)}", error="insufficient_scope", scope="fs:read", error_description="${VALUE}"$`,
      ),
    );
    expect(challenge.includes(accessToken)).toBe(false);
    const body = (await refused.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(5);
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toContain("fs:read");
    // The seed's name for the same tool needs the same scope.
    const bySeedName = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: FS_SEED_NAME, arguments: { root } },
      }),
      headers,
    );
    expect(bySeedName.status).toBe(403);
    expect(bySeedName.headers.get("www-authenticate")).toContain('scope="fs:read"');
    await bySeedName.text();
  });

  test("a permitted call goes through to the tool", async () => {
    const accessToken = await token("fs:read");
    const { client } = await connectClient(server.url, accessToken);
    const result = await client.callTool({ name: FS_TOOL, arguments: { timeField: "modified" } });
    expect(result.isError ?? false).toBe(false);
    expect(JSON.stringify(result.content)).toContain("a.txt");
    await client.close();
  });

  const wildcardCases: [string, boolean, boolean][] = [
    // granted scope, sees boj tools, sees the fs tool
    ["*", true, true],
    ["*:read", true, true],
    ["boj:*", true, false],
    ["fs:*", false, true],
    ["*:write", false, false],
    ["fs:re*", false, false],
    ["boj", false, false],
    ["boj:read:extra", false, false],
    ["*:*", true, true],
  ];
  for (const [granted, boj, fs] of wildcardCases) {
    test(`wildcard rule: "${granted}" ${boj ? "grants" : "does not grant"} boj:read and ${fs ? "grants" : "does not grant"} fs:read`, async () => {
      const names = await toolNames(await token(granted));
      expect(names.some(isBojTool)).toBe(boj);
      expect(names.includes(FS_TOOL)).toBe(fs);
    });
  }
});

describe("sessions bound to the token's subject", () => {
  test("the same session id with another subject's token gets 404; the owner keeps using it", async () => {
    const owner = await token("*");
    const init = await post(initializeBody(), bearer(owner));
    const sessionId = init.headers.get("mcp-session-id") as string;
    await init.text();
    const other = await token("*", { mutate: (_h, payload) => void (payload.sub = "someone-else") });
    const ping = (accessToken: string) =>
      post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
        ...bearer(accessToken),
        "mcp-session-id": sessionId,
        "mcp-protocol-version": PROTOCOL_VERSION,
      });
    const hijack = await ping(other);
    expect(hijack.status).toBe(404);
    await hijack.text();
    // Nor can the other subject open the session's stream or end it.
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(server.url, {
        method,
        headers: {
          ...bearer(other),
          accept: "text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": PROTOCOL_VERSION,
        },
      });
      expect(response.status).toBe(404);
      await response.text();
    }
    const stillMine = await ping(await token("boj:read"));
    expect(stillMine.status).toBe(200);
    expect(messagesOf(await stillMine.text(), stillMine.headers.get("content-type"))[0]).toMatchObject({
      id: 1,
      result: {},
    });
  });
});

describe("sessions are owned by issuer + sub, never by client_id or azp (issue 10 F6)", () => {
  test("a token without sub is refused with 401 invalid_token saying why, even when its client_id equals a user's sub", async () => {
    const owner = await token("*");
    const ownerSub = jose.decodeJwt(owner).sub as string;
    expect(ownerSub).toBeTruthy();
    const init = await post(initializeBody(), bearer(owner));
    const sessionId = init.headers.get("mcp-session-id") as string;
    await init.text();
    for (const claim of ["client_id", "azp"]) {
      const impostor = await token("*", {
        mutate: (_h, payload) => {
          delete payload.sub;
          payload[claim] = ownerSub;
        },
      });
      const hijack = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
        ...bearer(impostor),
        "mcp-session-id": sessionId,
        "mcp-protocol-version": PROTOCOL_VERSION,
      });
      const challenge = hijack.headers.get("www-authenticate") ?? "";
      const message = await expectUnauthorized(hijack, impostor);
      expect(message).toContain("no subject (sub)");
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain("no subject (sub)");
      // Nor can it open a session of its own.
      const opened = await post(initializeBody(), bearer(impostor));
      expect(opened.status).toBe(401);
      await opened.text();
    }
  });
});

describe("--max-sessions-per-subject (issue 10 F4)", () => {
  test("one subject at its cap gets 429 with Retry-After; another subject is unaffected; ending a session makes room", async () => {
    const capped = await startBojJwtServer("--max-sessions-per-subject", "2");
    try {
      const tokenOf = (sub: string, scope = "*") =>
        auth.token({ scope, resource: capped.url, mutate: (_h, payload) => void (payload.sub = sub) });
      const alice = await tokenOf("alice");
      const bob = await tokenOf("bob");
      issuedTokens.push(alice, bob);
      const open = async (accessToken: string) => {
        const response = await fetch(capped.url, {
          method: "POST",
          headers: { ...MCP_HEADERS, ...bearer(accessToken) },
          body: initializeBody(),
        });
        return { response, text: await response.text(), id: response.headers.get("mcp-session-id") };
      };
      const first = await open(alice);
      const second = await open(alice);
      expect([first.response.status, second.response.status]).toEqual([200, 200]);
      const third = await open(alice);
      expect(third.response.status).toBe(429);
      expect(Number(third.response.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(third.text).toContain("--max-sessions-per-subject");
      // A second token for the same user counts against the same cap.
      const aliceAgain = await tokenOf("alice", "boj:read");
      expect((await open(aliceAgain)).response.status).toBe(429);
      const bobs = [await open(bob), await open(bob)];
      expect(bobs.map((opened) => opened.response.status)).toEqual([200, 200]);
      const ended = await fetch(capped.url, {
        method: "DELETE",
        headers: { ...bearer(alice), "mcp-session-id": first.id as string, "mcp-protocol-version": PROTOCOL_VERSION },
      });
      expect(ended.status).toBe(200);
      await ended.text();
      expect((await open(alice)).response.status).toBe(200);
    } finally {
      await capped.stop();
    }
    // Refusals are logged at debug only: one user could otherwise fill the log (README, Over HTTP).
    expect(await capped.stderrEnded).not.toContain("refusing initialize");
  });
});

describe("--max-sessions-per-subject at small --max-sessions (issue 18, F4 regression)", () => {
  test("with --max-sessions 20 and no per-subject flag, one subject gets 5 sessions and another still gets in", async () => {
    const small = await startBojJwtServer("--max-sessions", "20");
    try {
      const tokenOf = (sub: string) =>
        auth.token({ scope: "*", resource: small.url, mutate: (_h, payload) => void (payload.sub = sub) });
      const mallory = await tokenOf("mallory");
      const carol = await tokenOf("carol");
      issuedTokens.push(mallory, carol);
      const open = async (accessToken: string) => {
        const response = await fetch(small.url, {
          method: "POST",
          headers: { ...MCP_HEADERS, ...bearer(accessToken) },
          body: initializeBody(),
        });
        await response.text();
        return response.status;
      };
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push(await open(mallory));
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
      expect(await open(carol)).toBe(200);
    } finally {
      await small.stop();
    }
  });

  test("a per-subject value at or above --max-sessions is refused at start-up with one line", () => {
    const run = Bun.spawnSync(
      [...mcpkitCommand(), "--http", "127.0.0.1:0", "--auth", "jwt", "--issuer", auth.issuer].concat([
        "--max-sessions",
        "20",
        "--max-sessions-per-subject",
        "20",
      ]),
      { stdout: "pipe", stderr: "pipe", env: testEnv() },
    );
    expect(run.exitCode).toBe(2);
    expect(run.stdout.toString()).toBe("");
    const lines = run.stderr.toString().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("--max-sessions-per-subject 20 must be below --max-sessions 20");
  });
});

describe("--required-scopes", () => {
  test("a token without a required scope gets 403 naming it; with it, the server answers", async () => {
    const strict = await startBojJwtServer("--required-scopes", "mcp:use");
    try {
      const missing = await auth.token({ scope: "boj:read", resource: strict.url });
      const refused = await fetch(strict.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...bearer(missing) },
        body: initializeBody(),
      });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("www-authenticate")).toContain('scope="mcp:use"');
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32001);
      const unauthenticated = await fetch(strict.url, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
      expect(unauthenticated.headers.get("www-authenticate")).toContain("mcp:use");
      await unauthenticated.text();
      const granted = await auth.token({ scope: "boj:read mcp:use", resource: strict.url });
      const accepted = await fetch(strict.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...bearer(granted) },
        body: initializeBody(),
      });
      expect(accepted.status).toBe(200);
      await accepted.text();
    } finally {
      await strict.stop();
    }
  });
});

describe("an MCP client discovering authorization on its own", () => {
  test("the SDK client follows the 401 challenge to the metadata and the issuer, runs the code flow with PKCE, and connects", async () => {
    let tokens: OAuthTokens | undefined;
    let verifier = "";
    let code = "";
    let authorizationUrl: URL | undefined;
    const provider: OAuthClientProvider = {
      redirectUrl: "http://127.0.0.1:9/callback",
      clientMetadata: {
        client_name: "mcpkit-tests",
        redirect_uris: ["http://127.0.0.1:9/callback"],
        token_endpoint_auth_method: "none",
      },
      clientInformation: () => ({ client_id: "mcpkit-tests" }),
      tokens: () => tokens,
      saveTokens: (saved) => {
        tokens = saved;
        issuedTokens.push(saved.access_token);
      },
      // The "browser": follow the authorization URL to the redirect and keep the code.
      redirectToAuthorization: async (url) => {
        authorizationUrl = url;
        const response = await fetch(url, { redirect: "manual" });
        code = new URL(response.headers.get("location") ?? "").searchParams.get("code") ?? "";
      },
      saveCodeVerifier: (value) => {
        verifier = value;
      },
      codeVerifier: () => verifier,
    };

    const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await expect(new Client({ name: "oauth-client", version: "1" }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(authorizationUrl?.origin).toBe(auth.issuer);
    expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl?.searchParams.get("resource")).toBe(server.url);
    expect(authorizationUrl?.searchParams.get("scope")).toContain("boj:read");
    expect(code).not.toBe("");
    await first.finishAuth(code);
    expect(jose.decodeJwt(tokens?.access_token ?? "").aud).toBe(server.url);

    const client = new Client({ name: "oauth-client", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain(FS_TOOL);
    await client.close();
  });
});

describe("an unreachable authorization server", () => {
  test("a well-formed token gets 503 with Retry-After (not 401: the token may be fine); a malformed one still gets 401", async () => {
    const lonely = await startHttpServer(["--toolsets", "boj", "--auth", "jwt", "--issuer", "http://127.0.0.1:9"]);
    try {
      const { privateKey } = await jose.generateKeyPair("RS256");
      const wellFormed = await new jose.SignJWT({ sub: "x", scope: "*" })
        .setProtectedHeader({ alg: "RS256", kid: "k" })
        .setExpirationTime("1h")
        .sign(privateKey);
      const unavailable = await fetch(lonely.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...bearer(wellFormed) },
        body: initializeBody(),
      });
      expect(unavailable.status).toBe(503);
      expect(Number(unavailable.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await unavailable.text()).toContain("signing keys could not be loaded");
      const malformed = await fetch(lonely.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...bearer("garbage") },
        body: initializeBody(),
      });
      expect(malformed.status).toBe(401);
      await malformed.text();
    } finally {
      await lonely.stop();
    }
  });
});

describe("--stateless with --auth jwt", () => {
  test("every request is authorized and scoped on its own", async () => {
    const stateless = await startHttpServer([
      "--toolsets",
      "boj,fs",
      "--root",
      root,
      "--stateless",
      "--auth",
      "jwt",
      "--issuer",
      auth.issuer,
    ]);
    try {
      const send = (body: object, accessToken?: string) =>
        fetch(stateless.url, {
          method: "POST",
          headers: {
            ...MCP_HEADERS,
            "mcp-protocol-version": PROTOCOL_VERSION,
            ...(accessToken ? bearer(accessToken) : {}),
          },
          body: JSON.stringify(body),
        });
      const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
      const anonymous = await send(list);
      expect(anonymous.status).toBe(401);
      await anonymous.text();
      const bojToken = await auth.token({ scope: "boj:*", resource: stateless.url });
      issuedTokens.push(bojToken);
      const listed = await send(list, bojToken);
      const names = ((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map(
        (tool) => tool.name,
      );
      expect(names.length).toBeGreaterThan(0);
      expect(names.every(isBojTool)).toBe(true);
      const refused = await send(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: FS_TOOL, arguments: {} } },
        bojToken,
      );
      expect(refused.status).toBe(403);
      expect(refused.headers.get("www-authenticate")).toContain('scope="fs:read"');
      await refused.text();
    } finally {
      await stateless.stop();
    }
  });
});

describe("JWKS refetches that callers cannot drive", () => {
  // Past the cooldown and through a failing JWKS, on a fake clock: auth-jwks.test.ts. Here, through
  // the process and with no clock to move: a burst of unknown kids reaches the issuer at most once
  // per cooldown, not once per request. Counted by the gaps between fetches, not by a total: a
  // loaded machine's burst of 20 requests outlasted the 1 s cooldown and rightly fetched twice.
  test("a burst of tokens with unknown kids is refused without a JWKS fetch per request", async () => {
    const fetchedAt: number[] = [];
    const jwks = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        fetchedAt.push(performance.now());
        return fetch(`${auth.issuer}/jwks`);
      },
    });
    const guarded = await startBojJwtServer("--jwks-url", `http://127.0.0.1:${jwks.port}/jwks`);
    try {
      const send = async (accessToken: string) => {
        const response = await fetch(guarded.url, {
          method: "POST",
          headers: { ...MCP_HEADERS, ...bearer(accessToken) },
          body: initializeBody(),
        });
        await response.text();
        return response.status;
      };
      const genuine = await auth.token({ scope: "*", resource: guarded.url });
      issuedTokens.push(genuine);
      expect(await send(genuine)).toBe(200);
      const { privateKey } = await jose.generateKeyPair("RS256");
      const forged = (kid: string) =>
        new jose.SignJWT({ iss: auth.issuer, aud: guarded.url, sub: "mallory", scope: "*" })
          .setProtectedHeader({ alg: "RS256", kid })
          .setExpirationTime("1h")
          .sign(privateKey);
      const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => forged(`random-${i}`)));
      const refused = [];
      for (const value of tokens) refused.push(await send(value));
      expect(refused.every((status) => status === 401)).toBe(true);
      // The cooldown starts when a fetch has ended, so the next one arrives a full cooldown after
      // the previous one arrived (20 ms: the two processes' clocks round differently).
      const gaps = fetchedAt.slice(1).map((at, i) => at - fetchedAt[i]);
      expect(gaps.filter((gap) => gap < JWKS_COOLDOWN_MS - 20)).toEqual([]);
      expect(await send(genuine)).toBe(200);
    } finally {
      await guarded.stop();
      await jwks.stop(true);
    }
  });
});

// Last, so it sees every token the tests above obtained.
describe("secrecy", () => {
  test("no token ever appears in the server's log, even at trace level", async () => {
    expect(issuedTokens.length).toBeGreaterThan(10);
    const log = server.stderr();
    expect(log).toContain("token refused");
    for (const value of issuedTokens) {
      expect(log.includes(value)).toBe(false);
      expect(log.includes(value.split(".")[2])).toBe(false);
    }
  });
});
