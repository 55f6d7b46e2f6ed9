/**
 * The refresh-token grant over real HTTP (issue 18): rotation with a single retry that never forks
 * the family (G3), the sign-in's absolute lifetime and the identity re-checked at the IdP (G5).
 * Time moves through the authorization server's injected clock, never by waiting.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Events } from "oauth2-mock-server";
import { type Harness, fullFlow, startHarness, tokenRequest } from "./harness.ts";

const MINUTE = 60_000;
let h: Harness;
let offset = 0;
let idpRefreshes = 0;
let idpAnswer: { status: number; body: Record<string, unknown> } | undefined;
/** Set: the IdP's sign-in answer carries no refresh token and an access token that expires at once. */
let noWayToRecheck = false;
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
    if (body?.grant_type === "authorization_code" && noWayToRecheck) {
      delete response.body.refresh_token;
      response.body.expires_in = 1;
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

async function signedIn() {
  offset = 0;
  idpAnswer = undefined;
  noWayToRecheck = false;
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

describe("the second review's fixes (issue 18)", () => {
  test("an IdP answering 401 invalid_client (mcpkit's own credentials) is a 503 to retry, not the user signed out", async () => {
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

  test("a token rotated by an older release (no successor recorded) gets no retry: reusing it revokes the family", async () => {
    const { clientId, first, signIn } = await signedIn();
    const second = await refresh(clientId, first);
    expect(second.status).toBe(200);
    const db = new Database(join(h.dir, "state", "auth.db"));
    try {
      db.query("update oauth_refresh_tokens set successor = null where family_id = ? and rotated_at is not null").run(
        signIn,
      );
    } finally {
      db.close();
    }
    offset += 1000;
    const retried = await refresh(clientId, first);
    expect(retried.body.error).toBe("invalid_grant");
    expect(liveTokens(signIn)).toBe(0);
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
  });

  test("a revoked sign-in stays revoked for a day after its tokens expire, so its access tokens stay refused after a purge", async () => {
    const { clientId, first, signIn } = await signedIn();
    await refresh(clientId, first);
    offset += 60_000;
    expect((await refresh(clientId, first)).body.error).toBe("invalid_grant");
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    // Past the 3 h sign-in (every token of it expired), the purge keeps the revoked rows.
    offset = 3 * 60 * MINUTE + MINUTE;
    await h.as.purge();
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    // A day later they go.
    offset = 3 * 60 * MINUTE + 25 * 60 * MINUTE;
    await h.as.purge();
    expect(await h.as.isSignInRevoked(signIn)).toBe(false);
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

  test("a sign-in recorded by an older release (no sign-in time) ends counted from its first token, not its latest", async () => {
    const { clientId, first, signIn } = await signedIn();
    offset = 10 * MINUTE;
    const second = await refresh(clientId, first);
    expect(second.status).toBe(200);
    // As an older release wrote them: no sign-in time, each token living 30 days from its minting
    // (no cap at the sign-in's end), and the first one minted 4 h ago (the lifetime is 3 h).
    const expiryIfMintedNow = Date.now() + offset + 30 * 24 * 60 * MINUTE;
    const db = new Database(join(h.dir, "state", "auth.db"));
    try {
      const rows = db
        .query("select hash, data, expires_at from oauth_refresh_tokens where family_id = ? order by expires_at")
        .all(signIn) as { hash: string; data: string; expires_at: number }[];
      expect(rows.length).toBe(2);
      for (const [index, row] of rows.entries()) {
        const { signedInAt: _signedIn, checkedAt: _checked, ...data } = JSON.parse(row.data);
        const expiresAt = index === 0 ? expiryIfMintedNow - 4 * 60 * MINUTE : expiryIfMintedNow;
        db.query("update oauth_refresh_tokens set data = ?, expires_at = ? where hash = ?").run(
          JSON.stringify(data),
          expiresAt,
          row.hash,
        );
      }
    } finally {
      db.close();
    }
    const late = await refresh(clientId, second.body.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe("invalid_grant");
    expect(late.body.error_description).toContain("maximum lifetime");
  });

  test("an access token never outlives the sign-in: near its end, a refresh gets one that expires with it", async () => {
    const { clientId, first } = await signedIn();
    // 3 h sign-in (this harness); refreshed at 2 h 50 min, a full-length access token would outlive it.
    offset = 170 * MINUTE;
    const late = await refresh(clientId, first);
    expect(late.status).toBe(200);
    expect(late.body.expires_in).toBeLessThanOrEqual(10 * 60);
    expect(late.body.expires_in).toBeGreaterThan(9 * 60);
    const claims = JSON.parse(Buffer.from(String(late.body.access_token).split(".")[1], "base64url").toString()) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBe(Number(late.body.expires_in));
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

  test("two sign-ins of one user refreshed at once share one re-check: the upstream refresh token is spent once", async () => {
    const one = await signedIn();
    const two = await signedIn();
    idpRefreshes = 0;
    offset = 16 * MINUTE;
    const answers = await Promise.all([refresh(one.clientId, one.first), refresh(two.clientId, two.first)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(idpRefreshes).toBe(1);
    expect(await h.as.isSignInRevoked(one.signIn)).toBe(false);
    expect(await h.as.isSignInRevoked(two.signIn)).toBe(false);
  });

  test("an IdP that refuses the upstream refresh (account disabled) ends the sign-in", async () => {
    const { clientId, first, signIn } = await signedIn();
    idpAnswer = { status: 400, body: { error: "invalid_grant", error_description: "user disabled" } };
    offset = 16 * MINUTE;
    const refused = await refresh(clientId, first);
    expect(refused.body.error).toBe("invalid_grant");
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
  });

  test("a sign-in the IdP can no longer be asked about (no upstream refresh token, access token expired) ends at the re-check: fail closed", async () => {
    offset = 0;
    idpAnswer = undefined;
    noWayToRecheck = true;
    h.idp.user = { sub: "alice-sub", email: "alice@example.com", email_verified: true };
    const flow = await fullFlow(h);
    noWayToRecheck = false;
    expect(flow.tokens.status).toBe(200);
    const clientId = flow.client.client_id;
    const signIn = signInOf(flow.tokens.body.access_token);
    // Before the re-check is due the sign-in lives on.
    offset = 5 * MINUTE;
    const early = await refresh(clientId, flow.tokens.body.refresh_token);
    expect(early.status).toBe(200);
    idpRefreshes = 0;
    offset = 16 * MINUTE;
    const refused = await refresh(clientId, early.body.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_grant");
    expect(refused.body.error_description).toContain("sign in again");
    expect(idpRefreshes).toBe(0);
    expect(await h.as.isSignInRevoked(signIn)).toBe(true);
    expect(liveTokens(signIn)).toBe(0);
    expect(h.logs.join("\n")).toContain("identity cannot be re-checked");
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
