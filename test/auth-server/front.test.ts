/**
 * Issue 18, the authorization server's front door: junk from many addresses cannot lock valid
 * requests out (G4), a consent form is answered once (G7), and invisible or bidi characters in a
 * client's name never reach the consent page (G11). Requests "from other addresses" are real
 * connections from other loopback addresses (127.0.0.x) to the server.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import {
  Browser,
  type Harness,
  authorizeUrl,
  pkce,
  readConsent,
  registerClient,
  startHarness,
  submitConsent,
} from "./harness.ts";

let h: Harness;
/** 2 requests per address per minute; 20 registrations and 100 pending sign-ins per minute in all. */
let limited: Harness;
beforeAll(async () => {
  h = await startHarness();
  limited = await startHarness({ idp: h.idp, config: { registrationsPerMinute: 2, authorizationsPerMinute: 2 } });
});
afterAll(async () => {
  await limited?.stop();
  await h?.stop();
});

/** One HTTP/1.1 request over a connection made from `localAddress` (any 127.0.0.x on Linux). */
function requestFrom(
  base: string,
  localAddress: string,
  method: string,
  path: string,
  body = "",
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => {
      const lines = [
        `${method} ${path} HTTP/1.1`,
        `host: ${hostname}:${port}`,
        "connection: close",
        `content-length: ${Buffer.byteLength(body)}`,
        ...Object.entries(headers).map(([key, value]) => `${key}: ${value}`),
      ];
      socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
    });
    let raw = "";
    socket.on("data", (chunk) => {
      raw += chunk.toString();
    });
    socket.on("end", () => resolve({ status: Number(raw.split(" ")[1]), text: raw }));
    socket.on("error", reject);
  });
}

const JSON_HEADERS = { "content-type": "application/json" };
const validRegistration = JSON.stringify({ client_name: "Valid", redirect_uris: ["http://127.0.0.1:9/cb"] });

describe("G4: junk does not use up the budget of valid requests", () => {
  test("a junk registration flood from 15 addresses leaves a fresh address able to register", async () => {
    // 2 per address per minute, 20 rows per minute server-wide: 30 junk requests would have filled it.
    for (let address = 10; address < 25; address++) {
      for (let i = 0; i < 3; i++) {
        const junk = await requestFrom(
          limited.base,
          `127.0.0.${address}`,
          "POST",
          "/register",
          '{"redirect_uris":"nope"}',
          JSON_HEADERS,
        );
        expect([400, 429]).toContain(junk.status);
      }
    }
    const fresh = await requestFrom(limited.base, "127.0.0.40", "POST", "/register", validRegistration, JSON_HEADERS);
    expect(fresh.status).toBe(201);
  });

  test("junk /authorize requests from many addresses leave a fresh address able to start a sign-in", async () => {
    const client = await registerClient(limited.base);
    const { challenge } = pkce();
    // 2 per address per minute, 100 pending sign-ins per minute server-wide.
    for (let address = 50; address < 110; address++) {
      for (let i = 0; i < 2; i++) {
        const junk = await requestFrom(
          limited.base,
          `127.0.0.${address}`,
          "GET",
          `/authorize?client_id=nobody-${i}&response_type=code`,
        );
        expect(junk.status).toBe(400);
      }
    }
    const url = new URL(
      authorizeUrl(limited.base, {
        response_type: "code",
        client_id: client.client_id,
        code_challenge: challenge,
        code_challenge_method: "S256",
      }),
    );
    const fresh = await requestFrom(limited.base, "127.0.0.120", "GET", `${url.pathname}${url.search}`);
    expect(fresh.status).toBe(200);
    expect(fresh.text).toContain("to use mcpkit?");
  });
});

/** Opens the consent page for a new client in a new browser. */
async function consentFor(body: Record<string, unknown> = {}) {
  const client = await registerClient(h.base, body);
  const { challenge } = pkce();
  const browser = new Browser();
  const page = await browser.get(
    authorizeUrl(h.base, {
      response_type: "code",
      client_id: client.client_id,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
  );
  return { client, browser, form: await readConsent(page) };
}

describe("G7: a consent form is answered once", () => {
  test("replaying an approval writes no further state and shows a page saying it was already answered", async () => {
    const { browser, form } = await consentFor();
    const db = new Database(join(h.dir, "state", "auth.db"), { readonly: true });
    const upstreamRows = () =>
      (db.query("select count(*) as n from oauth_ephemeral where kind = 'upstream'").get() as { n: number }).n;
    try {
      const before = upstreamRows();
      const first = await submitConsent(browser, form, "approve", h.base);
      expect(first.status).toBe(302);
      expect(first.headers.get("location")).toStartWith(h.idp.issuer);
      const replays = await Promise.all(
        Array.from({ length: 8 }, () => submitConsent(browser, form, "approve", h.base)),
      );
      for (const replay of replays) {
        expect(replay.status).toBe(400);
        expect(await replay.text()).toContain("already answered");
      }
      expect(upstreamRows() - before).toBe(1);
    } finally {
      db.close();
    }
  });
});

describe("G11: invisible and bidi characters never reach the consent page", () => {
  test("a client_name with overrides, isolates and zero-width characters is shown without them, beside the raw client id", async () => {
    const sneaky = "\u202EtxeN\u202C Ed\u2066i\u2069tor\u200B\u200F\uFEFF\u061C";
    const { client, form } = await consentFor({ client_name: sneaky });
    const html = form.html;
    expect(html).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF\u061C]/);
    expect(html).toContain("Allow txeN Editor to use mcpkit?");
    expect(html).toContain(`<code id="client-id">${client.client_id}</code>`);
  });
});
