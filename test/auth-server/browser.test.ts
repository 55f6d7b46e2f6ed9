/**
 * The consent page in a real browser (Debian's chromium, headless, through puppeteer-core):
 * approve, deny, a forged CSRF token, and framing refused. Saves a screenshot of the page to
 * consent.png in a new temporary directory (named in the test output). Skips with one line when chromium is not installed.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { hasChromium, launchChromium } from "../support/chromium.ts";
import { type Harness, authorizeUrl, pkce, registerClient, startHarness } from "./harness.ts";

setDefaultTimeout(60_000);
const available = hasChromium("the consent page in a real browser");

let h: Harness;
let browser: Browser;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let app: ReturnType<typeof Bun.serve>;
let appBase = "";
const received: URLSearchParams[] = [];

beforeAll(async () => {
  if (!available) return;
  h = await startHarness();
  // The MCP client's redirect target, and a foreign page that tries to frame the consent page.
  app = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/cb") {
        received.push(url.searchParams);
        return new Response("<!doctype html><title>client</title><p id=done>done</p>", {
          headers: { "content-type": "text/html" },
        });
      }
      if (url.pathname === "/frame") {
        const src = url.searchParams.get("src") ?? "";
        return new Response(
          `<!doctype html><title>evil</title><iframe id=victim src="${src.replaceAll('"', "&quot;")}" width=600 height=400></iframe>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      return new Response("not found", { status: 404 });
    },
  });
  appBase = `http://127.0.0.1:${app.port}`;
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
  app?.stop(true);
  await h?.stop();
});

async function openConsent(page: Page): Promise<string> {
  const client = await registerClient(h.base, { client_name: "Claude Code (test)", redirect_uris: [`${appBase}/cb`] });
  const url = authorizeUrl(h.base, {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: `${appBase}/cb`,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "b",
    scope: "boj:read fs:read",
  });
  await page.goto(url, { waitUntil: "load" });
  return url;
}

describe.skipIf(!available)("consent page in chromium", () => {
  test("shows client, redirect host and scopes; Allow signs in at the IdP and returns a code", async () => {
    const page = await browser.newPage();
    await openConsent(page);
    expect(await page.title()).toBe("Allow access? — mcpkit");
    expect(await page.$eval("h1", (node) => node.textContent)).toBe("Allow Claude Code (test) to use mcpkit?");
    expect(await page.$eval("#redirect-host", (node) => node.textContent)).toBe(`127.0.0.1:${app.port}`);
    expect(await page.$$eval("#scopes code", (nodes) => nodes.map((node) => node.textContent))).toEqual([
      "boj:read",
      "fs:read",
    ]);
    const screenshot = join(mkdtempSync(join(tmpdir(), "mcpkit-consent-")), "consent.png");
    await page.screenshot({ path: screenshot });
    console.error(`consent page screenshot: ${screenshot}`);
    received.length = 0;
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#approve")]);
    await page.waitForSelector("#done", { timeout: 30_000 }).catch(async (error) => {
      throw new Error(
        `${error}: at ${page.url()}: ${(await page.content()).slice(0, 600)}\n${h.logs.slice(-5).join("")}`,
      );
    });
    expect(received[0]?.get("code")).toBeString();
    expect(received[0]?.get("state")).toBe("b");
    expect(received[0]?.get("iss")).toBe(h.as.issuer);
    await page.close();
  });

  test("Deny returns access_denied to the client", async () => {
    const page = await browser.newPage();
    await openConsent(page);
    received.length = 0;
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#deny")]);
    expect(received[0]?.get("error")).toBe("access_denied");
    await page.close();
  });

  test("a tampered CSRF token is refused with a 403 page", async () => {
    const page = await browser.newPage();
    await openConsent(page);
    await page.$eval('input[name="csrf"]', (input) => {
      (input as unknown as { value: string }).value = "forged";
    });
    received.length = 0;
    const [response] = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#approve")]);
    expect(response?.status()).toBe(403);
    expect(await page.$eval("h1", (node) => node.textContent)).toBe("Request not accepted");
    expect(received).toHaveLength(0);
    await page.close();
  });

  test("framing the consent page from another origin is refused", async () => {
    const page = await browser.newPage();
    const client = await registerClient(h.base, { redirect_uris: [`${appBase}/cb`] });
    const target = authorizeUrl(h.base, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: `${appBase}/cb`,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    const blocked = new Promise<boolean>((resolve) => {
      page.on("console", (message) => {
        if (/frame-ancestors|Refused to (display|frame)/i.test(message.text())) resolve(true);
      });
      setTimeout(() => resolve(false), 30_000);
    });
    await page.goto(`${appBase}/frame?src=${encodeURIComponent(target)}`, { waitUntil: "load" });
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    const approve = await frame?.$("#approve").catch(() => null);
    expect(approve ?? null).toBeNull();
    expect(await blocked).toBe(true);
    await page.close();
  });
});
