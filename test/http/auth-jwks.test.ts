/**
 * The token verifier's JWKS refetches on a fake clock: jose times its refetch cooldown with
 * Date.now, and so does the verifier's backoff after a failed fetch, so `setSystemTime` moves
 * both past their windows without waiting. The keys are served by a local Bun.serve that counts
 * its fetches and can be made to fail. test/http/auth.test.ts checks the same verifier through
 * the real process, for what needs no clock.
 */
import { afterAll, afterEach, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import * as jose from "jose";
import { silentLogger } from "../../src/core/log.ts";
import {
  FETCH_FAILURE_BACKOFF_MS,
  JWKS_COOLDOWN_MS,
  TokenRejected,
  type TokenVerifier,
  createTokenVerifier,
} from "../../src/mcp/http/auth/token-verifier.ts";

const ISSUER = "https://issuer.test";
const AUDIENCE = "http://127.0.0.1/mcp";
/** Far from the real time, so nothing here can pass by accident on the real clock. */
const START = new Date("2031-03-04T05:06:07.000Z").getTime();

type Key = { kid: string; privateKey: CryptoKey; jwk: jose.JWK };
async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await jose.generateKeyPair("RS256", { extractable: true });
  return { kid, privateKey, jwk: { ...(await jose.exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

const published: Key[] = [];
let fetches = 0;
let failing = false;
const jwks = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch() {
    fetches++;
    if (failing) return new Response("down for maintenance", { status: 500 });
    return Response.json({ keys: published.map((key) => key.jwk) });
  },
});
afterAll(() => jwks.stop(true));

let now = START;
/** Moves the fake clock forward. */
function advance(ms: number): void {
  now += ms;
  setSystemTime(new Date(now));
}

beforeEach(async () => {
  now = START;
  setSystemTime(new Date(now));
  published.length = 0;
  published.push(await newKey("key-1"));
  fetches = 0;
  failing = false;
});
afterEach(() => setSystemTime());

function sign(key: Pick<Key, "kid" | "privateKey">, sub = "alice"): Promise<string> {
  return new jose.SignJWT({ sub, scope: "*" })
    .setProtectedHeader({ alg: "RS256", kid: key.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key.privateKey);
}

function verifier(): TokenVerifier {
  return createTokenVerifier({
    issuer: ISSUER,
    audience: [AUDIENCE],
    jwksUrl: `http://127.0.0.1:${jwks.port}/jwks`,
    log: silentLogger,
  });
}

/** What verify made of a token: "ok", "refused" (401) or "unavailable" (503). */
async function outcome(check: TokenVerifier, token: string): Promise<"ok" | "refused" | "unavailable"> {
  try {
    await check.verify(token);
    return "ok";
  } catch (error) {
    if (!(error instanceof TokenRejected)) throw error;
    return error.unavailable ? "unavailable" : "refused";
  }
}

describe("key rotation", () => {
  test("a token signed with a newly published key is refused within the cooldown, and accepted after one refetch", async () => {
    const check = verifier();
    expect(await outcome(check, await sign(published[0]))).toBe("ok");
    expect(fetches).toBe(1);
    const rotated = await newKey("key-2");
    published.push(rotated);
    const token = await sign(rotated);
    advance(JWKS_COOLDOWN_MS - 1);
    expect(await outcome(check, token)).toBe("refused"); // the cached keys do not know key-2 yet
    expect(fetches).toBe(1);
    advance(1);
    expect(await outcome(check, token)).toBe("ok");
    expect(fetches).toBe(2);
    expect(await outcome(check, await sign(published[0]))).toBe("ok"); // the old key is still published
    expect(fetches).toBe(2);
  });
});

describe("JWKS refetches that callers cannot drive", () => {
  test("unknown kids cause at most one refetch per cooldown", async () => {
    const check = verifier();
    expect(await outcome(check, await sign(published[0]))).toBe("ok");
    const { privateKey } = await jose.generateKeyPair("RS256");
    const forged = await Promise.all(Array.from({ length: 20 }, (_, i) => sign({ kid: `random-${i}`, privateKey })));
    for (const token of forged) expect(await outcome(check, token)).toBe("refused");
    expect(fetches).toBe(1); // within the cooldown of the first fetch: none
    advance(JWKS_COOLDOWN_MS);
    for (const token of forged) expect(await outcome(check, token)).toBe("refused");
    expect(fetches).toBe(2); // past it: one for all twenty
  });

  test("a failing JWKS is asked once, not on every request; known keys keep working; it is asked again after the backoff", async () => {
    const check = verifier();
    const genuine = await sign(published[0]);
    expect(await outcome(check, genuine)).toBe("ok");
    const { privateKey } = await jose.generateKeyPair("RS256");
    const forged = await Promise.all(Array.from({ length: 20 }, (_, i) => sign({ kid: `random-${i}`, privateKey })));
    failing = true;
    advance(JWKS_COOLDOWN_MS);
    // The keys could not be refreshed: "try again later" (503), and only one request reached the issuer.
    for (const token of forged) expect(await outcome(check, token)).toBe("unavailable");
    expect(fetches).toBe(2);
    expect(await outcome(check, genuine)).toBe("ok");
    advance(FETCH_FAILURE_BACKOFF_MS - JWKS_COOLDOWN_MS);
    for (const token of forged.slice(0, 5)) expect(await outcome(check, token)).toBe("unavailable");
    expect(fetches).toBe(2); // still inside the backoff
    advance(JWKS_COOLDOWN_MS);
    failing = false;
    expect(await outcome(check, forged[0])).toBe("refused"); // asked again: the issuer answers, the kid is unknown
    expect(fetches).toBe(3);
  });
});
