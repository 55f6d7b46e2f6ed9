/**
 * GitHub as the upstream (OAuth 2.0, not OIDC): a small GitHub-shaped fake on loopback with
 * its real endpoint shapes (`/login/oauth/authorize`, `/login/oauth/access_token`, `/user`,
 * `/user/emails`, `/user/orgs`), PKCE checked, and `github-org:` policy rules.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { type AuthServer, createAuthorizationServer } from "../../src/mcp/auth-server/index.ts";
import { endlessAnswer } from "../support/endless-body.ts";
import { Browser, authorizeUrl, pkce, readConsent, registerClient, submitConsent, tokenRequest } from "./harness.ts";

const GITHUB_TOKEN = "gho_fakeGithubAccessToken0123456789";
/** A GitHub App's user tokens: they expire after 8 hours and come with a refresh token. */
const APP_TOKEN = "ghu_fakeGithubAppUserToken0123456789";
const APP_REFRESH = "ghr_fakeGithubAppRefreshToken0123456789";
let githubApp = false;
let appRefreshes = 0;
let github: ReturnType<typeof Bun.serve>;
let server: ReturnType<typeof Bun.serve>;
let as: AuthServer;
let base = "";
let dir = "";
const logs: string[] = [];
const grants = new Map<string, { challenge: string; redirectUri: string }>();
let orgs = [{ login: "Acme" }];
let tokenRequests: URLSearchParams[] = [];
let apiCalls: string[] = [];
/** The user (or an org admin) revoked mcpkit's GitHub token. */
let tokenRevoked = false;
let offset = 0;
/** Which answer of the fake GitHub never ends (the token endpoint's, read by oauth4webapi, or /user's). */
let endlessRoute: "token" | "user" | undefined;
/** Bytes the endless answer has sent, to show the reader stopped. */
let endlessSent = () => 0;

function endless(): Response {
  const answer = endlessAnswer(`{"padding":"${"x".repeat(64 * 1024)}",`);
  endlessSent = answer.sent;
  return answer.response;
}

beforeAll(async () => {
  github = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/login/oauth/authorize") {
        const code = crypto.randomUUID();
        grants.set(code, {
          challenge: url.searchParams.get("code_challenge") ?? "",
          redirectUri: url.searchParams.get("redirect_uri") ?? "",
        });
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        return Response.redirect(back.href, 302);
      }
      if (url.pathname === "/login/oauth/access_token" && request.method === "POST") {
        const form = new URLSearchParams(await request.text());
        tokenRequests.push(form);
        if (endlessRoute === "token") return endless();
        if (form.get("grant_type") === "refresh_token") {
          appRefreshes++;
          if (form.get("refresh_token") !== APP_REFRESH || tokenRevoked)
            return Response.json({ error: "bad_refresh_token" });
          return Response.json({
            access_token: APP_TOKEN,
            expires_in: 28_800,
            refresh_token: APP_REFRESH,
            token_type: "bearer",
          });
        }
        const grant = grants.get(form.get("code") ?? "");
        const verified =
          grant &&
          createHash("sha256")
            .update(form.get("code_verifier") ?? "")
            .digest("base64url") === grant.challenge;
        // GitHub answers errors with HTTP 200 and an `error` field.
        if (!verified || form.get("client_secret") !== "gh-secret")
          return Response.json({ error: "bad_verification_code" });
        if (githubApp)
          return Response.json({
            access_token: APP_TOKEN,
            expires_in: 28_800,
            refresh_token: APP_REFRESH,
            token_type: "bearer",
          });
        return Response.json({
          access_token: GITHUB_TOKEN,
          token_type: "bearer",
          scope: "read:user,user:email,read:org",
        });
      }
      apiCalls.push(url.pathname);
      const bearer = request.headers.get("authorization");
      if (tokenRevoked || (bearer !== `Bearer ${GITHUB_TOKEN}` && bearer !== `Bearer ${APP_TOKEN}`))
        return Response.json({ message: "Bad credentials" }, { status: 401 });
      if (url.pathname === "/user")
        return endlessRoute === "user" ? endless() : Response.json({ id: 4242, login: "Octo" });
      if (url.pathname === "/user/emails")
        return Response.json([{ email: "octo@example.org", verified: true, primary: true }]);
      if (url.pathname === "/user/orgs") return Response.json(orgs);
      return new Response("not found", { status: 404 });
    },
  });
  const githubBase = `http://127.0.0.1:${github.port}`;
  dir = mkdtempSync(join(tmpdir(), "mcpkit-as-gh-"));
  let handler: (request: Request) => Promise<Response> = async () => new Response("starting", { status: 503 });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => handler(request) });
  base = `http://127.0.0.1:${server.port}`;
  as = await createAuthorizationServer(
    {
      publicUrl: base,
      upstream: {
        kind: "github",
        clientId: "gh-client",
        clientSecret: "gh-secret",
        apiBase: githubBase,
        authorizeBase: githubBase,
      },
      allow: ["github-org:acme=*:read"],
      state: `sqlite:${join(dir, "auth.db")}`,
      scopesSupported: ["boj:read", "fs:read", "fs:write"],
      clock: () => Date.now() + offset,
    },
    createLogger("debug", (line) => logs.push(line)),
  );
  handler = async (request) => (await as.handle(request)) ?? new Response("not found", { status: 404 });
});
afterAll(async () => {
  server?.stop(true);
  github?.stop(true);
  await as?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function signInWithGithub(scope: string) {
  const client = await registerClient(base);
  const { verifier, challenge } = pkce();
  const browser = new Browser();
  const start = authorizeUrl(base, {
    response_type: "code",
    client_id: client.client_id,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
    state: "g",
  });
  const form = await readConsent(await browser.get(start));
  const approved = await submitConsent(browser, form, "approve", base);
  const upstream = new URL(approved.headers.get("location") ?? "");
  expect(upstream.pathname).toBe("/login/oauth/authorize");
  expect(upstream.searchParams.get("redirect_uri")).toBe(`${base}/oauth/callback`);
  expect(upstream.searchParams.get("scope")).toBe("read:user user:email read:org");
  const { response, exit } = await browser.follow(upstream.href, [base, `http://127.0.0.1:${github.port}`]);
  return { client, verifier, response, exit };
}

test("a member of an allowed GitHub organisation signs in and gets the *:read scopes", async () => {
  tokenRequests = [];
  const { client, verifier, exit } = await signInWithGithub("boj:read fs:read fs:write");
  expect(tokenRequests[0]?.get("code_verifier")).toBeString();
  const tokens = await tokenRequest(base, {
    grant_type: "authorization_code",
    client_id: client.client_id,
    code: exit?.searchParams.get("code") ?? "",
    redirect_uri: client.redirect_uris[0],
    code_verifier: verifier,
  });
  expect(tokens.status).toBe(200);
  expect(tokens.body.scope).toBe("boj:read fs:read");
  const claims = JSON.parse(
    Buffer.from(String(tokens.body.access_token).split(".")[1], "base64url").toString(),
  ) as Record<string, unknown>;
  expect(claims.sub).toBe("github:4242");
  // The GitHub token never leaves mcpkit: not in our token, not in the log.
  expect(String(tokens.body.access_token)).not.toContain(GITHUB_TOKEN);
  expect(logs.join("")).not.toContain(GITHUB_TOKEN);
  expect(logs.join("")).not.toContain("gh-secret");
});

test("a GitHub user outside the organisation sees the not-allowed page", async () => {
  orgs = [{ login: "other" }];
  try {
    const { response, exit } = await signInWithGithub("boj:read");
    expect(exit).toBeUndefined();
    expect(response?.status).toBe(403);
    expect(await response?.text()).toContain("You signed in as <strong>Octo</strong>");
  } finally {
    orgs = [{ login: "Acme" }];
  }
});

// An answer of the IdP is read at most 1 MiB (upstream/client.ts IDP_ANSWER_MAX_BYTES): one that
// never ends fails the sign-in at once with a message saying so. Before, oauth4webapi and the API
// reader read it whole, until the 10 s timeout, holding what had come in memory.
test.each(["token", "user"] as const)(
  "an endless %s answer of GitHub is cut at 1 MiB and fails the sign-in",
  async (which) => {
    endlessRoute = which;
    const logged = logs.length;
    try {
      const { response, exit } = await signInWithGithub("boj:read");
      expect(exit).toBeUndefined();
      expect(response?.status).toBe(502);
      expect(logs.slice(logged).join("")).toContain("is larger than 1048576 bytes");
      expect(endlessSent()).toBeLessThan(16 * 1024 * 1024);
    } finally {
      endlessRoute = undefined;
    }
  },
);

/** Signs in as Octo (member of Acme) and redeems the code: the client and its first refresh token. */
async function signedInOcto() {
  offset = 0;
  const { client, verifier, exit } = await signInWithGithub("boj:read");
  const tokens = await tokenRequest(base, {
    grant_type: "authorization_code",
    client_id: client.client_id,
    code: exit?.searchParams.get("code") ?? "",
    redirect_uri: client.redirect_uris[0],
    code_verifier: verifier,
  });
  expect(tokens.status).toBe(200);
  return { clientId: client.client_id, refreshToken: String(tokens.body.refresh_token) };
}

const refreshAs = (clientId: string, token: string) =>
  tokenRequest(base, { grant_type: "refresh_token", client_id: clientId, refresh_token: token });

test("G5: a member who left the organisation loses access at the first refresh after the re-check interval", async () => {
  const { clientId, refreshToken } = await signedInOcto();
  try {
    apiCalls = [];
    offset = 5 * 60_000;
    const early = await refreshAs(clientId, refreshToken);
    expect(early.status).toBe(200);
    expect(apiCalls).toEqual([]);
    orgs = [{ login: "other" }];
    offset = 16 * 60_000;
    const refused = await refreshAs(clientId, String(early.body.refresh_token));
    expect(refused.body.error).toBe("invalid_grant");
    expect(apiCalls).toContain("/user/orgs");
    // Revoked, not merely refused once: back in the organisation, the sign-in stays ended.
    orgs = [{ login: "Acme" }];
    expect((await refreshAs(clientId, String(early.body.refresh_token))).body.error).toBe("invalid_grant");
  } finally {
    orgs = [{ login: "Acme" }];
    offset = 0;
  }
});

test("G5: a GitHub token revoked by the user ends the sign-in at the next re-check; still a member meanwhile refreshes", async () => {
  const { clientId, refreshToken } = await signedInOcto();
  try {
    offset = 16 * 60_000;
    const confirmed = await refreshAs(clientId, refreshToken);
    expect(confirmed.status).toBe(200);
    tokenRevoked = true;
    offset = 32 * 60_000;
    const refused = await refreshAs(clientId, String(confirmed.body.refresh_token));
    expect(refused.body.error).toBe("invalid_grant");
    expect(logs.join("")).not.toContain(GITHUB_TOKEN);
  } finally {
    tokenRevoked = false;
    offset = 0;
  }
});

test("G5: a GitHub App's expired user token is refreshed for the re-check; a refused refresh ends the sign-in", async () => {
  githubApp = true;
  appRefreshes = 0;
  try {
    const { clientId, refreshToken } = await signedInOcto();
    offset = 9 * 3600_000; // past the 8-hour user token
    const confirmed = await refreshAs(clientId, refreshToken);
    expect(confirmed.status).toBe(200);
    expect(appRefreshes).toBe(1);
    tokenRevoked = true;
    offset = 18 * 3600_000;
    const refused = await refreshAs(clientId, String(confirmed.body.refresh_token));
    expect(refused.body.error).toBe("invalid_grant");
    expect(logs.join("")).not.toContain(APP_REFRESH);
  } finally {
    githubApp = false;
    tokenRevoked = false;
    offset = 0;
  }
});
