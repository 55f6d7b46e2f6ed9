/**
 * The negative matrix of issue 12: each attack is one test, against the real routes, the real
 * IdP and the scripted browser.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Browser,
  type Harness,
  authorizeUrl,
  fullFlow,
  pkce,
  readConsent,
  registerClient,
  signIn,
  startHarness,
  submitConsent,
  tokenRequest,
} from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { refreshGraceSeconds: 0 } });
});
afterAll(async () => {
  await h?.stop();
});

const REDIRECT = "http://127.0.0.1:9/callback";

function authorizeWith(clientId: string, overrides: Record<string, string | undefined> = {}) {
  const { challenge } = pkce();
  return authorizeUrl(h.base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
    ...overrides,
  });
}

/**
 * Signs a user in for `clientId` with a fresh PKCE pair and redeems the code at /token, with
 * `change` replacing any of the usual redeem fields (client_id, code_verifier, redirect_uri, …).
 */
async function redeemFreshCode(clientId: string, change: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const { exit } = await signIn(h, authorizeWith(clientId, { code_challenge: challenge }));
  const response = await tokenRequest(h.base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: exit.searchParams.get("code") ?? "",
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    ...change,
  });
  return { verifier, response };
}

async function expectErrorPage(url: string, pattern: RegExp) {
  const response = await fetch(url, { redirect: "manual" });
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toStartWith("text/html");
  expect(await response.text()).toMatch(pattern);
}

async function expectClientError(url: string, error: string) {
  const response = await fetch(url, { redirect: "manual" });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location") ?? "");
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("state")).toBe("s");
  expect(location.searchParams.get("iss")).toBe(h.as.issuer);
}

describe("open redirects: errors before the redirect URI is verified are pages, never redirects", () => {
  test("unknown client_id", async () => {
    await expectErrorPage(
      authorizeWith("mcpkit-nonexistent", { redirect_uri: "https://evil.example/steal" }),
      /not registered here/,
    );
  });
  test("missing client_id", async () => {
    await expectErrorPage(authorizeUrl(h.base, { redirect_uri: "https://evil.example/steal" }), /names no client_id/);
  });
  test("unregistered redirect_uri", async () => {
    const client = await registerClient(h.base);
    await expectErrorPage(
      authorizeWith(client.client_id, { redirect_uri: "https://evil.example/steal", response_type: "token" }),
      /not one this application registered/,
    );
  });
});

describe("redirect URI mismatch and normalisation tricks", () => {
  const tricks = [
    "http://127.0.0.1:9/callback/../evil",
    "http://127.0.0.1:9/Callback",
    "http://127.0.0.1:9/callback?x=1",
    "http://127.0.0.1:9/callback#frag",
    "http://localhost:9/callback",
    "http://127.0.0.1:9@evil.example/callback",
    "http://127.0.0.1:9/callback%2F..%2Fevil",
    "https://127.0.0.1:9/callback",
    "http://127.0.0.1:9/callback/",
  ];
  for (const trick of tricks) {
    test(`refuses ${trick}`, async () => {
      const client = await registerClient(h.base);
      await expectErrorPage(
        authorizeWith(client.client_id, { redirect_uri: trick }),
        /not one this application registered/,
      );
    });
  }
  test("a loopback redirect URI may differ only in its port (RFC 8252 §7.3)", async () => {
    const client = await registerClient(h.base);
    const response = await fetch(authorizeWith(client.client_id, { redirect_uri: "http://127.0.0.1:54321/callback" }), {
      redirect: "manual",
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("127.0.0.1:54321");
  });

  const refused: [string, RegExp][] = [
    ["javascript:alert(1)", /scheme javascript: is not allowed/],
    ["JavaScript:alert(1)", /lower case|not allowed/],
    [" javascript:alert(1)", /whitespace/],
    ["java\tscript:alert(1)", /whitespace|control/],
    ["data:text/html,hi", /not allowed/],
    ["file:///etc/passwd", /not allowed/],
    ["http://evil.example/cb", /only on loopback/],
    ["https://user:pass@app.example/cb", /credentials/],
    ["https://app.example/cb#x", /fragment/],
    ["vscode://callback", /^$/],
  ];
  for (const [uri, pattern] of refused) {
    const allowed = pattern.source === "^$";
    test(`registration ${allowed ? "accepts" : "refuses"} ${JSON.stringify(uri)}`, async () => {
      const response = await fetch(`${h.base}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [uri] }),
      });
      if (allowed) {
        expect(response.status).toBe(201);
        return;
      }
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe("invalid_redirect_uri");
      expect(body.error_description).toMatch(pattern);
    });
  }
  test("registration refuses mcpkit's own callback and anything on its origin", async () => {
    for (const uri of [
      `${h.base}/oauth/callback`,
      `${h.base}/authorize?x=1`,
      `${h.base.replace("127.0.0.1", "127.0.0.1")}/`,
      // Issue 18 G6: any loopback name on this server's port is this server too.
      `http://localhost:${new URL(h.base).port}/cb`,
      `http://[::1]:${new URL(h.base).port}/cb`,
    ]) {
      const response = await fetch(`${h.base}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [uri] }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error_description: string }).error_description).toContain(
        "this authorization server itself",
      );
    }
  });
});

describe("authorization request parameters (answered at the redirect URI of an approved client)", () => {
  /** A client a user has approved (its consent is stored), so its redirect URI is trusted. */
  const approvedClient = async () => (await fullFlow(h)).client;

  test("plain PKCE is refused", async () => {
    const client = await approvedClient();
    await expectClientError(
      authorizeWith(client.client_id, { code_challenge_method: "plain", code_challenge: "a".repeat(43) }),
      "invalid_request",
    );
  });
  test("a missing PKCE challenge is refused", async () => {
    const client = await approvedClient();
    await expectClientError(
      authorizeWith(client.client_id, { code_challenge: undefined, code_challenge_method: undefined }),
      "invalid_request",
    );
  });
  test("resource other than the MCP URL is invalid_target", async () => {
    const client = await approvedClient();
    await expectClientError(
      authorizeWith(client.client_id, { resource: "https://other.example/mcp" }),
      "invalid_target",
    );
  });
  test("a state longer than 1,024 characters is invalid_request, sent back without it; 1,024 are accepted", async () => {
    const client = await approvedClient();
    // Each pending sign-in stores its state: 15 KB ones at the server-wide limit held about a gigabyte.
    const long = await fetch(authorizeWith(client.client_id, { state: "s".repeat(1025) }), { redirect: "manual" });
    expect(long.status).toBe(302);
    const location = new URL(long.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("state is 1025 characters long; at most 1024");
    expect(location.searchParams.has("state")).toBe(false);
    const longest = await fetch(authorizeWith(client.client_id, { state: "s".repeat(1024) }), { redirect: "manual" });
    expect(longest.headers.get("location") ?? "").not.toContain("error=");
    await longest.arrayBuffer();
  });
  test("an unknown scope is invalid_scope; response_type token is unsupported", async () => {
    const client = await approvedClient();
    await expectClientError(authorizeWith(client.client_id, { scope: "boj:read admin" }), "invalid_scope");
    await expectClientError(authorizeWith(client.client_id, { response_type: "token" }), "unsupported_response_type");
  });
});

describe("G6 (issue 18): no redirect to a client nobody approved, nor back at this server", () => {
  test("a parameter error for a self-registered, never-approved client is a page, not a redirect", async () => {
    const client = await registerClient(h.base);
    await expectErrorPage(authorizeWith(client.client_id, { response_type: "token" }), /nobody has approved it yet/);
    await expectErrorPage(
      authorizeWith(client.client_id, { code_challenge_method: "plain", code_challenge: "a".repeat(43) }),
      /nobody has approved it yet/,
    );
  });

  test("a loopback redirect URI may vary its port (RFC 8252), but never to this server's own (registration: above)", async () => {
    const port = new URL(h.base).port;
    // Registered on another port; RFC 8252 lets the port vary, but never to this server's own.
    const client = await registerClient(h.base, { redirect_uris: ["http://127.0.0.1:9/callback"] });
    await expectErrorPage(
      authorizeWith(client.client_id, { redirect_uri: `http://127.0.0.1:${port}/callback` }),
      /points back at this server/,
    );
  });
});

describe("token endpoint", () => {
  test("a wrong PKCE verifier is invalid_grant", async () => {
    const flow = await fullFlow(h);
    const response = await tokenRequest(h.base, {
      grant_type: "authorization_code",
      client_id: flow.client.client_id,
      code: "x",
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
    });
    expect(response.body.error).toBe("invalid_grant");
    // The lifetime it names is the configured one (120 s by default), not a fixed figure.
    expect(String(response.body.error_description)).toContain("codes live 120 seconds here");
    const client = await registerClient(h.base);
    const { verifier, response: wrong } = await redeemFreshCode(client.client_id, { code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    expect(String(wrong.body.error_description)).toContain("code_verifier");
    expect(wrong.headers.get("cache-control")).toBe("no-store");
    expect(verifier).not.toBe("");
  });

  test("a replayed code is refused and revokes the tokens it issued", async () => {
    const flow = await fullFlow(h);
    expect(flow.tokens.status).toBe(200);
    const replay = await tokenRequest(h.base, {
      grant_type: "authorization_code",
      client_id: flow.client.client_id,
      code: flow.code,
      redirect_uri: REDIRECT,
      code_verifier: flow.verifier,
    });
    expect(replay.body.error).toBe("invalid_grant");
    expect(String(replay.body.error_description)).toContain("already used");
    const refresh = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      client_id: flow.client.client_id,
      refresh_token: String(flow.tokens.body.refresh_token),
    });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  test("a replay landing while the first redemption stores its refresh token leaves no token usable", async () => {
    // With several database connections (Postgres), a replay can run between the first redemption
    // taking the code and storing its refresh token: it then revoked a family with no row yet, and
    // the first redemption answered 200 with tokens nobody had revoked. Run it exactly there.
    let duringPut: (() => Promise<void>) | undefined;
    const raced = await startHarness({
      idp: h.idp,
      withStore: (store) => ({
        ...store,
        async putRefresh(hash, token) {
          const replay = duringPut;
          duringPut = undefined;
          if (replay) await replay();
          return store.putRefresh(hash, token);
        },
      }),
    });
    try {
      const client = await registerClient(raced.base);
      const { verifier, challenge } = pkce();
      const redirectUri = client.redirect_uris[0];
      const { exit } = await signIn(
        raced,
        authorizeUrl(raced.base, {
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          code_challenge_method: "S256",
          state: "race",
        }),
      );
      const redeem = () =>
        tokenRequest(raced.base, {
          grant_type: "authorization_code",
          client_id: client.client_id,
          code: exit.searchParams.get("code") ?? "",
          redirect_uri: redirectUri,
          code_verifier: verifier,
        });
      let replay: Awaited<ReturnType<typeof tokenRequest>> | undefined;
      duringPut = async () => {
        replay = await redeem();
      };
      const first = await redeem();
      expect(replay?.body.error).toBe("invalid_grant");
      expect(first.status).toBe(400);
      expect(first.body.error).toBe("invalid_grant");
      expect(String(first.body.error_description)).toContain("used twice at once");
    } finally {
      await raced.stop();
    }
  });

  test("a code issued to another client is refused", async () => {
    const client = await registerClient(h.base);
    const thief = await registerClient(h.base);
    const { response: stolen } = await redeemFreshCode(client.client_id, { client_id: thief.client_id });
    expect(stolen.body.error).toBe("invalid_grant");
    expect(String(stolen.body.error_description)).toContain("another client");
  });

  test("the redirect_uri at the token endpoint must be the one used to authorize", async () => {
    const client = await registerClient(h.base, { redirect_uris: [REDIRECT, "http://127.0.0.1:9/other"] });
    const { response } = await redeemFreshCode(client.client_id, { redirect_uri: "http://127.0.0.1:9/other" });
    expect(response.body.error).toBe("invalid_grant");
  });

  test("resource mismatch at the token endpoint is invalid_target", async () => {
    const client = await registerClient(h.base);
    const { response } = await redeemFreshCode(client.client_id, { resource: "https://other.example/mcp" });
    expect(response.body.error).toBe("invalid_target");
  });

  test("reuse of a rotated refresh token (past the grace window) revokes the whole family", async () => {
    const flow = await fullFlow(h);
    const clientId = flow.client.client_id;
    const first = String(flow.tokens.body.refresh_token);
    const rotated = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: first,
    });
    expect(rotated.status).toBe(200);
    const reuse = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: first,
    });
    expect(reuse.body.error).toBe("invalid_grant");
    expect(String(reuse.body.error_description)).toContain("already used");
    const successor = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: String(rotated.body.refresh_token),
    });
    expect(successor.body.error).toBe("invalid_grant");
  });

  test("a refresh token presented by another client is refused and not burnt", async () => {
    const flow = await fullFlow(h);
    const other = await registerClient(h.base);
    const stolen = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      client_id: other.client_id,
      refresh_token: String(flow.tokens.body.refresh_token),
    });
    expect(stolen.body.error).toBe("invalid_grant");
    const owner = await tokenRequest(h.base, {
      grant_type: "refresh_token",
      client_id: flow.client.client_id,
      refresh_token: String(flow.tokens.body.refresh_token),
    });
    expect(owner.status).toBe(200);
  });
});

describe("consent and browser binding", () => {
  async function consentPage(browser: Browser) {
    const client = await registerClient(h.base);
    return readConsent(await browser.get(authorizeWith(client.client_id)));
  }

  test("a wrong CSRF token is refused", async () => {
    const browser = new Browser();
    const form = await consentPage(browser);
    const response = await submitConsent(browser, form, "approve", h.base, "forged-token");
    expect(response.status).toBe(403);
    expect(response.headers.get("location")).toBeNull();
  });

  test("a consent posted from another browser (no binding cookie) is refused", async () => {
    const form = await consentPage(new Browser());
    const response = await submitConsent(new Browser(), form, "approve", h.base);
    expect(response.status).toBe(403);
  });

  test("a consent posted from another origin is refused", async () => {
    const browser = new Browser();
    const form = await consentPage(browser);
    const response = await submitConsent(browser, form, "approve", "https://evil.example");
    expect(response.status).toBe(403);
  });

  test("deny answers the client with access_denied", async () => {
    const browser = new Browser();
    const form = await consentPage(browser);
    const response = await submitConsent(browser, form, "deny", h.base);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("iss")).toBe(h.as.issuer);
  });

  test("the upstream state from another browser is refused (GHSA-rww4-4w9c-7733)", async () => {
    const attacker = new Browser();
    const form = await consentPage(attacker);
    const approved = await submitConsent(attacker, form, "approve", h.base);
    const idpUrl = approved.headers.get("location") ?? "";
    expect(idpUrl).toStartWith(h.idp.issuer);
    // The victim's browser opens the attacker's IdP link and lands on the callback.
    const victim = new Browser();
    const { response } = await victim.follow(idpUrl, [h.base, h.idp.issuer]);
    expect(response?.status).toBe(403);
    expect(await response?.text()).toContain("approved in another browser");
  });

  test("an upstream state is single use", async () => {
    const browser = new Browser();
    const form = await consentPage(browser);
    const approved = await submitConsent(browser, form, "approve", h.base);
    const toCallback = await browser.get(approved.headers.get("location") ?? "");
    const callback = toCallback.headers.get("location") ?? "";
    expect((await browser.get(callback)).status).toBe(302);
    const again = await browser.get(callback);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("already used");
  });

  test("an iss from the IdP that is not its issuer is refused (RFC 9207 mix-up defence)", async () => {
    h.idp.issParam = "https://evil.example";
    try {
      const client = await registerClient(h.base);
      await expect(signIn(h, authorizeWith(client.client_id))).rejects.toThrow(/\(502\)/);
    } finally {
      h.idp.issParam = h.idp.issuer;
    }
  });
});

describe("dynamic registration", () => {
  test("a registration body over 4 KB is refused: it would be stored for a day, and anyone may register", async () => {
    const register = (body: object) =>
      fetch(`${h.base}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const big = await register({ redirect_uris: [REDIRECT], client_name: "x".repeat(4200) });
    expect(big.status).toBe(400);
    expect(await big.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("larger than 4096 bytes"),
    });
    const usual = await register({ redirect_uris: [REDIRECT], client_name: "x".repeat(3000) });
    expect(usual.status).toBe(201);
  });

  test("a registration flood is rate-limited", async () => {
    const limited = await startHarness({ idp: h.idp, config: { registrationsPerMinute: 3 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${limited.base}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: [REDIRECT] }),
        });
        statuses.push(response.status);
        if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
    } finally {
      await limited.stop();
    }
  });

  test("authorization flood from one address: 429 page after the per-minute limit, other addresses unaffected", async () => {
    const limited = await startHarness({ idp: h.idp, config: { authorizationsPerMinute: 3 } });
    try {
      const client = await registerClient(limited.base);
      const url = authorizeUrl(limited.base, {
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0],
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
        state: "s",
      });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(url, { redirect: "manual" })).status);
      expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
      expect(statuses.slice(3)).toEqual([429, 429]);
      const other = await limited.as.handle(new Request(url), { clientAddress: "192.0.2.7" });
      expect(other?.status).not.toBe(429);
    } finally {
      await limited.stop();
    }
  });

  test("an unused registration expires", async () => {
    let shift = 0;
    const short = await startHarness({
      idp: h.idp,
      config: { unusedClientTtlSeconds: 60, clock: () => Date.now() + shift },
    });
    try {
      const client = await registerClient(short.base);
      expect(
        (await fetch(authorizeWith(client.client_id).replace(h.base, short.base), { redirect: "manual" })).status,
      ).toBe(200);
      // The authorization server's clock 61 s on.
      shift = 61_000;
      expect(await short.as.purge()).toBeGreaterThan(0);
      const response = await fetch(authorizeWith(client.client_id).replace(h.base, short.base), { redirect: "manual" });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("registration expired");
    } finally {
      await short.stop();
    }
  });
});
