/**
 * Client ID Metadata Documents: a real document server on loopback (allowed only through the
 * test switch), and the refusals: private addresses, redirects, oversize documents, a document
 * that names another client, a redirect URI it does not list. Then the bounds on the work a caller
 * starts: the lookup's deadline, one fetch per client_id, the server-wide cap (injected lookups and
 * deadlines, documents held on loopback; no clock, no DNS).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CIMD_MAX_IN_FLIGHT, createCimdFetcher, isForbiddenAddress } from "../../src/mcp/auth-server/cimd.ts";
import { type Harness, authorizeUrl, pkce, signIn, startHarness, tokenRequest } from "./harness.ts";

let h: Harness;
let strict: Harness;
/** Allows private documents like `h`, with room for the many sign-ins the cap test starts from one address. */
let roomy: Harness;
let documents: ReturnType<typeof Bun.serve>;
let docBase = "";
const hits = new Map<string, number>();
const REDIRECT = "http://127.0.0.1:9/cimd-callback";

/** Documents under /held/ are answered once released: fetches that stay in flight as long as a test needs. */
class Hold {
  private readonly opened = Promise.withResolvers<void>();
  private count = 0;
  private readonly waiting: { count: number; resolve: () => void }[] = [];

  arrive(): Promise<void> {
    this.count++;
    for (const waiter of this.waiting) if (waiter.count <= this.count) waiter.resolve();
    return this.opened.promise;
  }

  /** Settles once `count` requests are being held. */
  arrived(count: number): Promise<void> {
    if (this.count >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ count, resolve }));
  }

  release(): void {
    this.opened.resolve();
  }
}
let hold = new Hold();

beforeAll(async () => {
  documents = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const self = `${docBase}${path}`;
      const doc = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        Response.json(body, { headers });
      if (path.startsWith("/held/"))
        return hold.arrive().then(() => doc({ client_id: self, client_name: "Held", redirect_uris: [REDIRECT] }));
      switch (path) {
        case "/client.json":
          return doc(
            { client_id: self, client_name: "CIMD Client", redirect_uris: [REDIRECT] },
            { "cache-control": "max-age=60" },
          );
        case "/impostor.json":
          return doc({ client_id: `${docBase}/client.json`, client_name: "Impostor", redirect_uris: [REDIRECT] });
        case "/redirects.json":
          return Response.redirect(`${docBase}/client.json`, 302);
        case "/huge.json":
          return doc({ client_id: self, client_name: "Huge", redirect_uris: [REDIRECT], padding: "x".repeat(6000) });
        case "/evil-uri.json":
          return doc({ client_id: self, redirect_uris: ["javascript:alert(1)"] });
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  docBase = `http://127.0.0.1:${documents.port}`;
  h = await startHarness({ config: { testing: { allowPrivateCimd: true } } });
  strict = await startHarness({ idp: h.idp });
  roomy = await startHarness({
    idp: h.idp,
    config: { testing: { allowPrivateCimd: true }, authorizationsPerMinute: 1000 },
  });
});
afterAll(async () => {
  hold.release();
  await roomy?.stop();
  await strict?.stop();
  await h?.stop();
  documents?.stop(true);
});

function authorizeAs(harness: Harness, clientId: string, redirectUri = REDIRECT, challenge = pkce().challenge) {
  return authorizeUrl(harness.base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "c",
  });
}

async function pageText(url: string): Promise<{ status: number; text: string; location: string | null }> {
  const response = await fetch(url, { redirect: "manual" });
  return { status: response.status, text: await response.text(), location: response.headers.get("location") };
}

describe("CIMD", () => {
  test("a client identified by its metadata URL signs in and redeems its code; the document is cached per max-age", async () => {
    const clientId = `${docBase}/client.json`;
    const consent = await pageText(authorizeAs(h, clientId));
    expect(consent.status).toBe(200);
    expect(consent.text).toContain("CIMD Client");
    expect(consent.text).toContain(`id="metadata-host">127.0.0.1:${documents.port}<`);
    expect(consent.text).toContain("receives the result on this computer");
    const { verifier, challenge } = pkce();
    const { exit } = await signIn(h, authorizeAs(h, clientId, REDIRECT, challenge));
    const tokens = await tokenRequest(h.base, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: exit.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    expect(hits.get("/client.json")).toBe(1);
  });

  test("a redirect URI the document does not list is refused with a page", async () => {
    const result = await pageText(authorizeAs(h, `${docBase}/client.json`, "http://127.0.0.1:9/elsewhere"));
    expect(result.status).toBe(400);
    expect(result.location).toBeNull();
  });

  test("a document naming another client_id is refused", async () => {
    const result = await pageText(authorizeAs(h, `${docBase}/impostor.json`));
    expect(result.status).toBe(400);
    expect(result.text).toContain("not the URL it was fetched from");
  });

  test("a redirecting document URL is refused (redirects are not followed)", async () => {
    const result = await pageText(authorizeAs(h, `${docBase}/redirects.json`));
    expect(result.text).toContain("redirects are not followed");
    expect(hits.get("/client.json")).toBe(1);
  });

  test("an oversize document is refused", async () => {
    const result = await pageText(authorizeAs(h, `${docBase}/huge.json`));
    expect(result.text).toContain("larger than 5120 bytes");
  });

  test("a document listing a javascript: redirect URI is refused", async () => {
    const result = await pageText(authorizeAs(h, `${docBase}/evil-uri.json`));
    expect(result.text).toContain("redirect URI this server refuses");
  });

  test("without the test switch, loopback and private addresses are refused before connecting", async () => {
    const before = hits.get("/client.json");
    for (const clientId of [
      `${docBase}/client.json`,
      `https://127.0.0.1:${documents.port}/client.json`,
      "https://localhost/client.json",
      "https://[::1]/client.json",
    ]) {
      const result = await pageText(authorizeAs(strict, clientId));
      expect(result.status).toBe(400);
      expect(result.text).toMatch(/must use https|private, loopback or reserved/);
    }
    expect(hits.get("/client.json")).toBe(before);
  });
});

describe("CIMD: the work one caller starts is bounded", () => {
  const OWN = "https://as.test";
  /** Every microtask and pending callback run: what a release sets going has happened (no clock involved). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  test("a lookup that never answers ends at the deadline with the timeout refusal", async () => {
    const deadline = new AbortController();
    const fetcher = createCimdFetcher({
      allowPrivate: false,
      ownOrigin: OWN,
      lookupHost: () => new Promise<string[]>(() => {}),
      deadline: () => deadline.signal,
    });
    let outcome: unknown = "pending";
    fetcher.resolve("https://localhost/never-answers.json").then(
      (client) => (outcome = client),
      (error: unknown) => (outcome = error),
    );
    await settle();
    expect(outcome).toBe("pending");
    deadline.abort();
    await settle();
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toBe("the client_id host localhost did not resolve within 10 s.");
  });

  test("a lookup the deadline gave up on keeps its slot until it ends (it still holds a resolver thread)", async () => {
    const answers: ((addresses: string[]) => void)[] = [];
    const deadlines: AbortController[] = [];
    const fetcher = createCimdFetcher({
      allowPrivate: false,
      ownOrigin: OWN,
      lookupHost: () => new Promise<string[]>((resolve) => answers.push(resolve)),
      deadline: () => {
        deadlines.push(new AbortController());
        return deadlines[deadlines.length - 1].signal;
      },
    });
    const slow = Array.from({ length: CIMD_MAX_IN_FLIGHT }, (_, i) =>
      fetcher.resolve(`https://localhost/slow-${i}.json`),
    );
    const ended = Promise.allSettled(slow);
    for (const deadline of deadlines) deadline.abort();
    for (const outcome of await ended) {
      expect(outcome.status === "rejected" && (outcome.reason as Error).message).toContain(
        "did not resolve within 10 s",
      );
    }
    await expect(fetcher.resolve("https://localhost/next.json")).rejects.toThrow("too many applications' metadata");
    for (const answer of answers) answer(["127.0.0.1"]);
    await settle();
    // A slot was free: this one's lookup ran and was answered.
    const next = fetcher.resolve("https://localhost/next.json");
    await settle();
    answers[answers.length - 1](["127.0.0.1"]);
    await expect(next).rejects.toThrow("private, loopback or reserved");
  });

  test("concurrent resolutions of one client_id share one fetch; the next one after it fetches again", async () => {
    hold = new Hold();
    const clientId = `${docBase}/held/shared.json`;
    const fetcher = createCimdFetcher({ allowPrivate: true, ownOrigin: OWN });
    const resolutions = Array.from({ length: 8 }, () => fetcher.resolve(clientId));
    await hold.arrived(1);
    hold.release();
    const clients = await Promise.all(resolutions);
    expect(new Set(clients).size).toBe(1);
    expect(clients[0].client_name).toBe("Held");
    expect(hits.get("/held/shared.json")).toBe(1);
    // The document has no max-age: once the shared fetch is over, nothing is kept.
    await fetcher.resolve(clientId);
    expect(hits.get("/held/shared.json")).toBe(2);
  });

  test(`beyond ${CIMD_MAX_IN_FLIGHT} documents in flight a sign-in gets 503 + Retry-After at once; the slots free up after`, async () => {
    hold = new Hold();
    const busyOnes = Array.from({ length: CIMD_MAX_IN_FLIGHT }, (_, i) =>
      pageText(authorizeAs(roomy, `${docBase}/held/cap-${i}.json`)),
    );
    await hold.arrived(CIMD_MAX_IN_FLIGHT);
    const extra = authorizeAs(roomy, `${docBase}/client.json`);
    const refusedAtOnce = await fetch(extra, { redirect: "manual" });
    expect(refusedAtOnce.status).toBe(503);
    expect(refusedAtOnce.headers.get("retry-after")).toBe("5");
    const page = await refusedAtOnce.text();
    expect(page).toContain("Temporarily unavailable");
    expect(page).toContain("wait 5 seconds and try again");
    hold.release();
    for (const answered of await Promise.all(busyOnes)) expect(answered.status).toBe(200);
    await settle();
    const later = await pageText(extra);
    expect(later.status).toBe(200);
    expect(later.text).toContain("CIMD Client");
  });
});

describe("address classification (no connections)", () => {
  test.each([
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "127.0.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fc00::1",
    "fd12::1",
    "fe80::1",
    "::ffff:10.0.0.1",
    "::ffff:127.0.0.1",
    "224.0.0.1",
    "not-an-ip",
  ])("%s is refused", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });
  // Issue 18 G10: the IANA special-purpose ranges of both families, embedded IPv4 decoded.
  test.each([
    "64:ff9b:1::a00:1",
    "64:ff9b::8.8.8.8",
    "::10.0.0.1",
    "::ffff:0:10.0.0.1",
    "::ffff:0:a00:1",
    "::ffff:7f00:1",
    "::FFFF:192.168.1.1",
    "fec0::1",
    "2001::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2002:c0a8:101::1",
    "3fff::1",
    "5f00::1",
    "100::1",
    "2001:db8::1",
    "ff02::1",
    "192.88.99.1",
    "198.18.0.1",
    "240.0.0.1",
    "255.255.255.255",
    // A zone id scopes an address to one of this host's links, whatever the address.
    "::ffff:0:7f00:1%eth0",
    "2606:4700::1111%eth0",
  ])("%s is refused (special-purpose)", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });
  test.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "::ffff:0:8.8.8.8",
    "2001:4860:4860::8888",
  ])("%s is allowed", (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});
