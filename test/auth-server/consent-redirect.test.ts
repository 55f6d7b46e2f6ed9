/**
 * A remembered consent covers the redirect URI the consent page named, port included. A loopback
 * redirect may use any port (RFC 8252 §7.3), so without this any web page could send a browser
 * that once approved a client to `/authorize` with another port and the attacker's PKCE
 * challenge, and get the code on a port it listens on, with no page shown (red-team F1).
 * `mcpkit --http --auth oauth` as a real process, a real OIDC provider (oauth2-mock-server),
 * a scripted browser; loopback only. The store an older release wrote (no redirect URI with its
 * consents) is upgraded in place, on SQLite through the process and on Postgres (when installed).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/mcp/auth-server/store.ts";
import type { HttpServerProcess } from "../http/support.ts";
import { hasPostgres, startPostgres } from "../support/postgres.ts";
import {
  Browser,
  type Harness,
  type Idp,
  authorizeUrl,
  pkce,
  registerClient,
  signIn,
  startIdp,
  startOauthProcess,
} from "./harness.ts";

setDefaultTimeout(30_000);

const APPROVED = "http://127.0.0.1:9/callback";
const OTHER_PORT = "http://127.0.0.1:31337/callback";
const ALICE = { sub: "alice-sub", email: "alice@example.com", email_verified: true };
const BOB = { sub: "bob-sub", email: "bob@example.com", email_verified: true };
/** The table as releases before this change created it: no redirect URI. */
const OLD_CONSENTS = `create table oauth_consents (client_id text not null, subject text not null, scopes text not null, updated_at bigint not null, primary key (client_id, subject))`;

let idp: Idp;
let dir: string;
let server: HttpServerProcess;

const start = () => startOauthProcess(idp, join(dir, "state"), "*@example.com=*", ["--toolsets", "boj"]);

beforeAll(async () => {
  idp = await startIdp();
  dir = mkdtempSync(join(tmpdir(), "mcpkit-consent-redirect-"));
  server = await start();
});
afterAll(async () => {
  await server?.stop();
  await idp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** An authorization request with a fresh PKCE challenge (whoever sends the link holds its verifier). */
function link(clientId: string, redirectUri: string): string {
  return authorizeUrl(server.base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    scope: "boj:read",
  });
}

const harness = () => ({ base: server.base, idp }) as Harness;

/** Where the browser ends when it follows `url`: a page (its status and "sent back to" host) or the client's URI. */
async function land(
  browser: Browser,
  url: string,
): Promise<{ page?: number; host?: string; exit?: URL; html?: string }> {
  const { response, exit } = await browser.follow(url, [server.base, idp.issuer]);
  if (exit) return { exit };
  const html = (await response?.text()) ?? "";
  return { page: response?.status, host: /id="redirect-host">([^<]*)</.exec(html)?.[1], html };
}

describe("a remembered consent covers the redirect URI it was given for", () => {
  test("another loopback port shows the consent page naming that port; the approved one stays silent", async () => {
    idp.user = ALICE;
    const client = await registerClient(server.base, { redirect_uris: [APPROVED] });
    const browser = new Browser();
    await signIn(harness(), link(client.client_id, APPROVED), browser);

    // The attack: a link to the same client with another port. No code may reach it unasked.
    const attacked = await land(browser, link(client.client_id, OTHER_PORT));
    expect(attacked.exit?.href).toBeUndefined();
    expect(attacked.page).toBe(200);
    expect(attacked.host).toBe("127.0.0.1:31337");

    // What was approved is remembered as before: no page.
    const again = await land(browser, link(client.client_id, APPROVED));
    expect(again.exit?.origin + (again.exit?.pathname ?? "")).toBe(APPROVED);
    expect(again.exit?.searchParams.get("code")).toBeTruthy();
  });

  test("another account signing in where the page was skipped needs consent for this redirect URI too", async () => {
    const client = await registerClient(server.base, { redirect_uris: [APPROVED] });
    // Bob approved the client for port 9 in his browser.
    idp.user = BOB;
    await signIn(harness(), link(client.client_id, APPROVED), new Browser());
    // Alice approved it for port 31337 in hers, which remembers her.
    idp.user = ALICE;
    const browser = new Browser();
    await signIn(harness(), link(client.client_id, OTHER_PORT), browser);
    // The page is skipped for Alice, but Bob signs in at the provider: his consent names port 9 only.
    idp.user = BOB;
    try {
      const ended = await land(browser, link(client.client_id, OTHER_PORT));
      expect(ended.exit?.href).toBeUndefined();
      expect(ended.page).toBe(200);
      expect(ended.host).toBe("127.0.0.1:31337");
    } finally {
      idp.user = ALICE;
    }
  });

  test("a consent an older release stored (no redirect URI) asks once more after the upgrade, then is remembered", async () => {
    idp.user = ALICE;
    const client = await registerClient(server.base, { redirect_uris: [APPROVED] });
    const browser = new Browser();
    await signIn(harness(), link(client.client_id, APPROVED), browser);
    await server.stop();
    // The consents table as an older release left it, with this consent in it.
    const db = new Database(join(dir, "state", "auth.db"));
    try {
      db.run("create table consents_before as select client_id, subject, scopes, updated_at from oauth_consents");
      db.run("drop table oauth_consents");
      db.run(OLD_CONSENTS);
      db.run("insert into oauth_consents select * from consents_before");
      db.run("drop table consents_before");
    } finally {
      db.close();
    }
    const oldPort = server.port;
    server = await start();
    // On loopback the cookie names carry the port; the restart got another one, so the browser's
    // cookies move with it, as they would stay put for a server restarted on its own port.
    for (const [name, value] of [...browser.cookies]) {
      browser.cookies.delete(name);
      browser.cookies.set(name.replace(`-${oldPort}`, `-${server.port}`), value);
    }

    const first = await land(browser, link(client.client_id, APPROVED));
    expect(first.page).toBe(200);
    expect(first.host).toBe("127.0.0.1:9");
    await signIn(harness(), link(client.client_id, APPROVED), browser);
    const later = await land(browser, link(client.client_id, APPROVED));
    expect(later.exit?.searchParams.get("code")).toBeTruthy();
  });
});

const postgresHere = hasPostgres("the consents table of an older release upgraded on Postgres");

describe.skipIf(!postgresHere)("Postgres", () => {
  test("an older release's consents table gains the redirect URI; its rows name none", async () => {
    const postgres = startPostgres();
    try {
      const before = new Bun.SQL(postgres.url);
      await before.unsafe(OLD_CONSENTS);
      await before`insert into oauth_consents values ('c1', 'alice-sub', '["boj:read"]', 1)`;
      await before.close();
      const store = await openStore(postgres.url);
      try {
        expect(await store.getConsent("c1", "alice-sub")).toEqual({ scopes: ["boj:read"], redirectUri: undefined });
        await store.putConsent("c1", "alice-sub", { scopes: ["boj:read"], redirectUri: APPROVED }, 2);
        expect(await store.getConsent("c1", "alice-sub")).toEqual({ scopes: ["boj:read"], redirectUri: APPROVED });
      } finally {
        await store.close();
      }
    } finally {
      postgres.stop();
    }
  });
});
