/**
 * The issuer's documents are read at most ISSUER_DOCUMENT_MAX_BYTES: an issuer (or whatever sits
 * at its address) that sends a larger metadata document or JWKS, or one that never ends, is a
 * failed key fetch (503, logged), not memory the server gives away. Before, both were read whole
 * (`response.json()`, `response.text()`), and an endless one until the 5 s fetch timeout.
 * The issuer is a loopback Bun.serve; what the verifier logged is read from a recording logger.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as jose from "jose";
import { createLogger } from "../../src/core/log.ts";
import { endlessAnswer } from "../support/endless-body.ts";
import {
  ISSUER_DOCUMENT_MAX_BYTES,
  TokenRejected,
  createTokenVerifier,
} from "../../src/mcp/http/auth/token-verifier.ts";

/** How much each endless route has sent, to show the reader stopped. */
const sent = new Map<string, () => number>();

/** A JSON-looking body that never ends, without a declared length. */
function endless(route: string): Response {
  const answer = endlessAnswer(`{"padding":"${"x".repeat(64 * 1024 - 16)}",`);
  sent.set(route, answer.sent);
  return answer.response;
}

/** A complete document one byte over the cap, with its length declared. */
const oversized = () =>
  new Response(`{"keys":[],"padding":"${"x".repeat(ISSUER_DOCUMENT_MAX_BYTES)}"}`, {
    headers: { "content-type": "application/json" },
  });

const issuer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/endless/.well-known/openid-configuration") return endless("metadata");
    if (path === "/declared/.well-known/openid-configuration") return oversized();
    if (path === "/endless-jwks") return endless("jwks");
    if (path === "/declared-jwks") return oversized();
    return new Response("not found", { status: 404 });
  },
});
afterAll(() => issuer.stop(true));
const base = `http://127.0.0.1:${issuer.port}`;

async function someToken(): Promise<string> {
  const { privateKey } = await jose.generateKeyPair("RS256");
  return new jose.SignJWT({ sub: "alice" })
    .setProtectedHeader({ alg: "RS256", kid: "k" })
    .setIssuer("https://issuer.test")
    .setAudience("http://127.0.0.1/mcp")
    .setExpirationTime("1h")
    .sign(privateKey);
}

/** Verifies one token against the issuer; what the verifier said, and logged. */
async function verifyAgainst(settings: {
  issuer: string;
  jwksUrl?: string;
}): Promise<{ error: unknown; logged: string }> {
  const lines: string[] = [];
  const log = createLogger("warn", (line) => lines.push(line));
  const verifier = createTokenVerifier({ ...settings, audience: ["http://127.0.0.1/mcp"], log });
  const error = await verifier.verify(await someToken()).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return { error, logged: lines.join("") };
}

function expectRefusedForSize(result: { error: unknown; logged: string }): void {
  expect(result.error).toBeInstanceOf(TokenRejected);
  expect((result.error as TokenRejected).unavailable).toBe(true);
  expect(result.logged).toContain(`larger than ${ISSUER_DOCUMENT_MAX_BYTES} bytes`);
}

describe("the issuer's metadata document", () => {
  test("one that never ends is cut at the cap", async () => {
    expectRefusedForSize(await verifyAgainst({ issuer: `${base}/endless` }));
    // Stopped near the cap, not at the 5 s timeout (what a loopback socket buffers aside).
    expect(sent.get("metadata")?.()).toBeLessThan(ISSUER_DOCUMENT_MAX_BYTES * 16);
  });

  test("one whose declared length is over the cap is refused", async () => {
    const result = await verifyAgainst({ issuer: `${base}/declared` });
    expectRefusedForSize(result);
    // The other places discovery looked keep their status through the log's scrubbing.
    expect(result.logged).toContain("/.well-known/oauth-authorization-server/declared answered HTTP 404");
  });
});

describe("the JWKS", () => {
  test("one that never ends is cut at the cap", async () => {
    expectRefusedForSize(await verifyAgainst({ issuer: "https://issuer.test", jwksUrl: `${base}/endless-jwks` }));
    expect(sent.get("jwks")?.()).toBeLessThan(ISSUER_DOCUMENT_MAX_BYTES * 16);
  });

  test("one whose declared length is over the cap is refused", async () => {
    expectRefusedForSize(await verifyAgainst({ issuer: "https://issuer.test", jwksUrl: `${base}/declared-jwks` }));
  });
});
