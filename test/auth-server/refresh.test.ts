/**
 * The refresh-token grant over real HTTP (issue 18): rotation with a single retry that never forks
 * the family (G3), the sign-in's absolute lifetime and the identity re-checked at the IdP (G5).
 * Time moves through the authorization server's injected clock, never by waiting.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Events } from "oauth2-mock-server";
import { hashToken } from "../../src/mcp/auth-server/crypto.ts";
import { type Harness, fullFlow, startHarness, tokenRequest } from "./harness.ts";

const MINUTE = 60_000;
let h: Harness;
let offset = 0;
let idpRefreshes = 0;
let idpAnswer: { status: number; body: Record<string, unknown> } | undefined;
/** Upstream tokens without a refresh token and with this access-token lifetime (an IdP without offline access). */
let accessOnlyFor: number | undefined;
/** Upstream refresh tokens mcpkit sent to the IdP, and those the IdP issued back. */
const upstreamSent: unknown[] = [];
const upstreamIssued: unknown[] = [];

beforeAll(async () => {
  h = await startHarness({
    config: {
      clock: () => Date.now() + offset,
      signInLifetimeSeconds: 3 * 3600,
      identityRecheckSeconds: 15 * 60,
    },
  });
  h.idp.server.service.on(Events.BeforeResponse, (response, request) => {
    const body = (request as unknown as { body?: Record<string, unknown> }).body;
    if (body?.grant_type === "authorization_code" && accessOnlyFor !== undefined) {
      delete response.body.refresh_token;
      response.body.expires_in = accessOnlyFor;
    }
    if (body?.grant_type !== "refresh_token") return;
    idpRefreshes++;
    upstreamSent.push(body.refresh_token);
    upstreamIssued.push(response.body.refresh_token);
    if (idpAnswer) {
      response.statusCode = idpAnswer.status;
      response.body = idpAnswer.body;
    }
  });
});
afterAll(async () => {
  await h?.stop();
});

function refresh(clientId: string, token: unknown) {
  return tokenRequest(h.base, { grant_type: "refresh_token", client_id: clientId, refresh_token: String(token) });
}

/** The sign-in (`sid`) an access token belongs to. */
function signInOf(accessToken: unknown): string {
  const claims = JSON.parse(Buffer.from(String(accessToken).split(".")[1], "base64url").toString()) as {
    sid: string;
  };
  return claims.sid;
}

/** Runs `statements` against the authorization server's SQLite file (rows an older release wrote, …). */
function withDb<T>(statements: (db: Database) => T): T {
  const db = new Database(join(h.dir, "state", "auth.db"));
  try {
    return statements(db);
  } finally {
    db.close();
  }
}

function claimsOf(accessToken: unknown): { iat: number; exp: number; sid: string } {
  return JSON.parse(Buffer.from(String(accessToken).split(".")[1], "base64url").toString());
}

/** Refresh tokens of a sign-in that would still be accepted as a first use: the family's live branches. */
function liveTokens(signIn: string): number {
  const db = new Database(join(h.dir, "state", "auth.db"), { readonly: true });
  try {
    const row = db
      .query(
        "select count(*) as n from oauth_refresh_tokens where family_id = ? and rotated_at is null and revoked = 0 and expires_at > ?",
      )
      .get(signIn, Date.now() + offset) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

async function signedIn(upstream: { accessOnlyFor?: number } = {}) {
  offset = 0;
  idpAnswer = undefined;
  accessOnlyFor = upstream.accessOnlyFor;
  h.idp.user = { sub: "alice-sub", email: "alice@example.com", email_verified: true };
  const flow = await fullFlow(h);
  expect(flow.tokens.status).toBe(200);
  return {
    clientId: flow.client.client_id,
    first: flow.tokens.body.refresh_token,
    signIn: signInOf(flow.tokens.body.access_token),
  };
}

describe("G3: a rotated refresh token reused within the grace window", () => {
  test("a thief replaying the victim's rotated token within grace never holds a second live branch", async () => {
    const { clientId, first, signIn } = await signedIn();
    const victim = await refresh(clientId, first);
    expect(victim.status).toBe(200);
    const thief = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      offset += 1000;
      thief.push(await refresh(clientId, first));
    }
    // One retry is honoured (a client that lost the response looks exactly like this), the rest is reuse.
    expect(thief.map((answer) => answer.status)).toEqual([200, 400, 400, 400, 400]);
    expect(thief[1].body.error).toBe("invalid_grant");
    expect(liveTokens(signIn)).toBe(0);
    expect((await refresh(clientId, victim.body.refresh_token)).body.error).toBe("invalid_grant");
    expect((await refresh(clientId, thief[0].body.refresh_token)).body.error).toBe("invalid_grant");
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
  });

  test("a retry replaces the unused successor: exactly one live token, and the replaced one is reuse", async () => {
    const { clientId, first, signIn } = await signedIn();
    const lost = await refresh(clientId, first);
    offset += 5000;
    const retry = await refresh(clientId, first);
    expect(retry.status).toBe(200);
    expect(retry.body.refresh_token).not.toBe(lost.body.refresh_token);
    expect(liveTokens(signIn)).toBe(1);
    // The retried client carries on with its new token.
    const next = await refresh(clientId, retry.body.refresh_token);
    expect(next.status).toBe(200);
    expect(liveTokens(signIn)).toBe(1);
    // The token the retry replaced comes back (the thief's, or the victim's): the family ends.
    const replaced = await refresh(clientId, lost.body.refresh_token);
    expect(replaced.body.error).toBe("invalid_grant");
    expect(liveTokens(signIn)).toBe(0);
    expect((await refresh(clientId, next.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  test("a retry after the successor was used revokes the family", async () => {
    const { clientId, first, signIn } = await signedIn();
    const second = await refresh(clientId, first);
    const third = await refresh(clientId, second.body.refresh_token);
    expect(third.status).toBe(200);
    offset += 1000;
    const replay = await refresh(clientId, first);
    expect(replay.body.error).toBe("invalid_grant");
    expect(String(replay.body.error_description)).toContain("already used");
    expect(liveTokens(signIn)).toBe(0);
    expect((await refresh(clientId, third.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  test("a reuse after the grace window revokes the family even when the successor is unused", async () => {
    const { clientId, first, signIn } = await signedIn();
    const second = await refresh(clientId, first);
    offset += 31_000;
    expect((await refresh(clientId, first)).body.error).toBe("invalid_grant");
    expect((await refresh(clientId, second.body.refresh_token)).body.error).toBe("invalid_grant");
    expect(liveTokens(signIn)).toBe(0);
  });

  test("two concurrent uses of one token: both answered, still one live branch", async () => {
    const { clientId, first, signIn } = await signedIn();
    const answers = await Promise.all([refresh(clientId, first), refresh(clientId, first)]);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(liveTokens(signIn)).toBe(1);
  });
});

describe("G5: a sign-in ends, and an offboarded user loses access", () => {
  test("a refresh after the sign-in lifetime is invalid_grant, however recently the token was rotated", async () => {
    const { clientId, first } = await signedIn();
    let token = first;
    // Refreshed every 50 minutes: each rotation must not push the end of the sign-in forward.
    for (let step = 1; step <= 3; step++) {
      offset = step * 50 * MINUTE;
      const answer = await refresh(clientId, token);
      expect(answer.status).toBe(200);
      token = answer.body.refresh_token;
    }
    offset = 3 * 3600_000 + 1000;
    const late = await refresh(clientId, token);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe("invalid_grant");
  });

  test("the IdP is asked again only after the re-check interval, and a user no longer allowed is revoked", async () => {
    const { clientId, first, signIn } = await signedIn();
    idpRefreshes = 0;
    offset = 5 * MINUTE;
    const early = await refresh(clientId, first);
    expect(early.status).toBe(200);
    expect(idpRefreshes).toBe(0);
    offset = 16 * MINUTE;
    const confirmed = await refresh(clientId, early.body.refresh_token);
    expect(confirmed.status).toBe(200);
    expect(idpRefreshes).toBe(1);
    // Offboarded: the IdP now signs this subject in with an address --allow does not name.
    h.idp.user = { sub: "alice-sub", email: "alice@elsewhere.org", email_verified: true };
    offset = 32 * MINUTE;
    const refused = await refresh(clientId, confirmed.body.refresh_token);
    expect(refused.body.error).toBe("invalid_grant");
    expect(idpRefreshes).toBe(2);
    // The second re-check used the upstream refresh token the first one received (kept sealed, never logged).
    const [firstIssued, secondSent] = [upstreamIssued.at(-2), upstreamSent.at(-1)];
    expect(secondSent).toBe(firstIssued);
    expect(h.logs.join("\n")).not.toContain(String(firstIssued));
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    expect(liveTokens(signIn)).toBe(0);
  });

  test("an IdP that refuses the upstream refresh (account disabled) ends the sign-in", async () => {
    const { clientId, first, signIn } = await signedIn();
    idpAnswer = { status: 400, body: { error: "invalid_grant", error_description: "user disabled" } };
    offset = 16 * MINUTE;
    const refused = await refresh(clientId, first);
    expect(refused.body.error).toBe("invalid_grant");
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
  });

  test("an IdP that cannot answer gets 503 + Retry-After, and the refresh token stays usable", async () => {
    const { clientId, first } = await signedIn();
    idpAnswer = { status: 500, body: { error: "server_error" } };
    offset = 16 * MINUTE;
    const failed = await refresh(clientId, first);
    expect(failed.status).toBe(503);
    expect(failed.body.error).toBe("temporarily_unavailable");
    expect(failed.headers.get("retry-after")).toBe("60");
    idpAnswer = undefined;
    expect((await refresh(clientId, first)).status).toBe(200);
    expect(h.logs.join("\n")).not.toContain(String(first));
  });
});

describe("G5 second review: the re-check fails closed, and nothing outlives the sign-in", () => {
  test("an upstream access token expired with no upstream refresh token ends the sign-in at the re-check", async () => {
    // The IdP granted no offline access: a short access token and nothing to refresh it with, so by
    // the re-check nothing can ask the IdP about the user any more.
    const { clientId, first, signIn } = await signedIn({ accessOnlyFor: 1 });
    offset = 5 * MINUTE;
    const early = await refresh(clientId, first);
    expect(early.status).toBe(200);
    offset = 16 * MINUTE;
    const refused = await refresh(clientId, early.body.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_grant");
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    expect(liveTokens(signIn)).toBe(0);
    expect(h.logs.join("\n")).toContain("no upstream refresh token");
  });

  test("an access token issued by a refresh expires no later than the sign-in", async () => {
    const { clientId, first } = await signedIn();
    offset = 2.5 * 3600_000; // the sign-in (3 h) has 30 minutes left; access tokens live an hour
    const late = await refresh(clientId, first);
    expect(late.status).toBe(200);
    const claims = claimsOf(late.body.access_token);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(30 * 60);
    expect(claims.exp - claims.iat).toBeGreaterThan(29 * 60);
    expect(Number(late.body.expires_in)).toBe(claims.exp - claims.iat);
    // The refresh token it came with ends with the sign-in too.
    const row = withDb(
      (db) =>
        db
          .query("select expires_at from oauth_refresh_tokens where family_id = ? and rotated_at is null")
          .get(claims.sid) as { expires_at: number },
    );
    expect(row.expires_at).toBeLessThanOrEqual(Date.now() + offset + 30 * MINUTE);
  });

  test("two concurrent refreshes that both need a re-check ask the IdP once", async () => {
    const one = await signedIn();
    const two = await signedIn();
    idpRefreshes = 0;
    offset = 16 * MINUTE;
    const answers = await Promise.all([refresh(one.clientId, one.first), refresh(two.clientId, two.first)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    // One upstream refresh token, spent once: an IdP that rotates it would revoke a second spend.
    expect(idpRefreshes).toBe(1);
  });

  test("a sign-in written by an older release counts from its family's first token, not the latest", async () => {
    const { clientId, first, signIn } = await signedIn();
    const now = Date.now() + offset;
    // A family an older release wrote: no recorded sign-in time; its first token 2 h 30 old, rotated
    // into the current one 30 minutes ago. The sign-in (3 h) ends 30 minutes from now.
    withDb((db) => {
      const row = db.query("select data from oauth_refresh_tokens where family_id = ?").get(signIn) as {
        data: string;
      };
      const { signedInAt: _s, checkedAt: _c, ...legacy } = JSON.parse(row.data);
      const insert = db.query(
        "insert into oauth_refresh_tokens (hash, family_id, data, expires_at, rotated_at, successor) values (?, 'legacy-family', ?, ?, ?, ?)",
      );
      const ttl = 30 * 86_400_000;
      insert.run(
        hashToken("legacy-first"),
        JSON.stringify(legacy),
        now - 150 * MINUTE + ttl,
        now - 30 * MINUTE,
        hashToken("legacy-now"),
      );
      insert.run(hashToken("legacy-now"), JSON.stringify(legacy), now - 30 * MINUTE + ttl, null, null);
    });
    expect(first).toBeDefined();
    offset += 31 * MINUTE;
    const late = await refresh(clientId, "legacy-now");
    expect(late.status).toBe(400);
    expect(String(late.body.error_description)).toContain("maximum lifetime");
  });
});

describe("second review (ce927d9): the fixes already in main keep their tests", () => {
  test("a 401 invalid_client from the IdP during the re-check is a 503 to retry, not a sign-out", async () => {
    const { clientId, first, signIn } = await signedIn();
    idpAnswer = { status: 401, body: { error: "invalid_client", error_description: "client secret expired" } };
    offset = 16 * MINUTE;
    const failed = await refresh(clientId, first);
    expect(failed.status).toBe(503);
    expect(failed.body.error).toBe("temporarily_unavailable");
    expect(await h.as.isSignInRevoked(signIn)).toBe(false);
    idpAnswer = undefined;
    expect((await refresh(clientId, first)).status).toBe(200);
  });

  test("a rotated token without a recorded successor (an older release) gets no retry: its family is revoked", async () => {
    const { clientId, first, signIn } = await signedIn();
    const second = await refresh(clientId, first);
    expect(second.status).toBe(200);
    withDb((db) =>
      db.run("update oauth_refresh_tokens set successor = null where family_id = ? and rotated_at is not null", [
        signIn,
      ]),
    );
    offset += 1000;
    const retry = await refresh(clientId, first);
    expect(retry.body.error).toBe("invalid_grant");
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    expect((await refresh(clientId, second.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  test("a revoked sign-in stays revoked after purge for a day past its refresh tokens' expiry", async () => {
    const { clientId, first, signIn } = await signedIn();
    const revoked = await fetch(`${h.base}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: String(first), client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    // The sign-in lifetime (3 h) caps the refresh token: one hour after it, an access token issued
    // just before could still be presented, and only the revoked row says it must be refused.
    offset = 4 * 3600_000;
    await h.as.purge();
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    offset = 3 * 3600_000 + 86_400_000 + MINUTE;
    await h.as.purge();
    expect(await h.as.isSignInRevoked(signIn)).toBe(false);
  });
});
