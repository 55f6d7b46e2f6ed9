/**
 * Two mcpkit instances on one Postgres behind a (test) load balancer: one user's flow crosses
 * them (start on A, callback on B, token on A, refresh on B), and a code redeemed on both at
 * once is honoured once. Debian's postgresql is started in a temp directory; without it the
 * file skips with one line.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { type AuthServer, createAuthorizationServer } from "../../src/mcp/auth-server/index.ts";
import {
  Browser,
  type Idp,
  SCOPES,
  authorizeUrl,
  pkce,
  readConsent,
  registerClient,
  startIdp,
  submitConsent,
  tokenRequest,
} from "./harness.ts";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.ts";

setDefaultTimeout(30_000);
const postgresHere = hasPostgres("two authorization-server instances on one Postgres");

let postgres: TestPostgres | undefined;
let idp: Idp;
let balancer: ReturnType<typeof Bun.serve>;
let base = "";
const instances: Record<"A" | "B", AuthServer | undefined> = { A: undefined, B: undefined };
let target: "A" | "B" = "A";
const logs: string[] = [];

beforeAll(async () => {
  if (!postgresHere) return;
  postgres = startPostgres();
  idp = await startIdp();
  balancer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => (await instances[target]?.handle(request)) ?? new Response("not found", { status: 404 }),
  });
  base = `http://127.0.0.1:${balancer.port}`;
  const config = {
    publicUrl: base,
    upstream: {
      kind: "oidc" as const,
      issuer: idp.issuer,
      clientId: "mcpkit-upstream",
      clientSecret: "upstream-secret",
    },
    allow: ["alice@example.com=*"],
    state: (postgres as TestPostgres).url,
    stateKey: "ab".repeat(32),
    scopesSupported: SCOPES,
    refreshGraceSeconds: 0,
  };
  const log = createLogger("debug", (line) => logs.push(line));
  // Started together: the schema creation must not race.
  [instances.A, instances.B] = await Promise.all([
    createAuthorizationServer(config, log),
    createAuthorizationServer(config, log),
  ]);
});

afterAll(async () => {
  await instances.A?.close();
  await instances.B?.close();
  balancer?.stop(true);
  await idp?.stop();
  postgres?.stop();
});

async function signInAcross() {
  target = "A";
  const client = await registerClient(base);
  const { verifier, challenge } = pkce();
  const browser = new Browser();
  const form = await readConsent(
    await browser.get(
      authorizeUrl(base, {
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0],
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "pg",
      }),
    ),
  );
  const approved = await submitConsent(browser, form, "approve", base);
  const atIdp = await browser.get(approved.headers.get("location") ?? "");
  target = "B";
  const callback = await browser.get(atIdp.headers.get("location") ?? "");
  expect(callback.status).toBe(302);
  const exit = new URL(callback.headers.get("location") ?? "");
  return { client, verifier, code: exit.searchParams.get("code") ?? "" };
}

describe.skipIf(!postgresHere)("two instances on one Postgres", () => {
  test("start on A, callback on B, token on A, refresh on B; tokens verify against either JWKS", async () => {
    const { client, verifier, code } = await signInAcross();
    target = "A";
    const tokens = await tokenRequest(base, {
      grant_type: "authorization_code",
      client_id: client.client_id,
      code,
      redirect_uri: client.redirect_uris[0],
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    target = "B";
    const refreshed = await tokenRequest(base, {
      grant_type: "refresh_token",
      client_id: client.client_id,
      refresh_token: String(tokens.body.refresh_token),
    });
    expect(refreshed.status).toBe(200);
    const kidsA = (await instances.A?.verifierKeys())?.keys.map((key) => key.kid).sort();
    const kidsB = (await instances.B?.verifierKeys())?.keys.map((key) => key.kid).sort();
    expect(kidsA).toEqual(kidsB as string[]);
    // Reuse of the rotated token on A revokes the family B continued.
    target = "A";
    expect(
      (
        await tokenRequest(base, {
          grant_type: "refresh_token",
          client_id: client.client_id,
          refresh_token: String(tokens.body.refresh_token),
        })
      ).body.error,
    ).toBe("invalid_grant");
    expect(
      (
        await tokenRequest(base, {
          grant_type: "refresh_token",
          client_id: client.client_id,
          refresh_token: String(refreshed.body.refresh_token),
        })
      ).body.error,
    ).toBe("invalid_grant");
  });

  test("one code redeemed on both instances at once yields no usable token", async () => {
    const { client, verifier, code } = await signInAcross();
    const redeem = (instance: AuthServer | undefined) =>
      instance?.handle(
        new Request(`${base}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            client_id: client.client_id,
            code,
            redirect_uri: client.redirect_uris[0],
            code_verifier: verifier,
          }).toString(),
        }),
      );
    const answers = await Promise.all([redeem(instances.A), redeem(instances.B)]);
    const bodies = (await Promise.all(answers.map((answer) => answer?.json()))) as Record<string, string>[];
    // A code presented twice is a replay (RFC 6749 §4.1.2): at most one redemption answers 200, and
    // whichever one issued tokens sees them revoked, however the two interleaved (the replay may
    // come between taking the code and storing its refresh token, which used to leave it usable).
    expect(answers.filter((answer) => answer?.status === 200).length).toBeLessThanOrEqual(1);
    expect(answers.some((answer) => answer?.status === 400)).toBe(true);
    for (const body of bodies.filter((candidate) => candidate.refresh_token)) {
      const refreshed = await instances.A?.handle(
        new Request(`${base}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            client_id: client.client_id,
            refresh_token: body.refresh_token,
          }).toString(),
        }),
      );
      expect(refreshed?.status).toBe(400);
      expect(((await refreshed?.json()) as Record<string, string> | undefined)?.error).toBe("invalid_grant");
    }
  });
});
