/**
 * The cookies that bind a sign-in to one browser: a signed random nonce (the browser's identity
 * for the consent form and the callback), and the user this browser last signed in as (only to
 * skip a consent already given).
 */
import { type Keyring, hashToken, randomToken } from "./crypto.ts";
import { type CookieSettings, cookieName, readCookie, setCookie } from "./http.ts";

const BROWSER_COOKIE_SECONDS = 86_400;
const USER_COOKIE_SECONDS = 30 * 86_400;

export interface BrowserCookies {
  /** The signed random nonce that identifies this browser, when it carries a valid one. */
  nonce(request: Request): string | undefined;
  /** A new nonce and the Set-Cookie that gives it to the browser. */
  issueNonce(): { nonce: string; cookie: string };
  /** The user this browser last signed in as (only to skip an already-given consent). */
  rememberedUser(request: Request): string | undefined;
  rememberUser(subject: string): string;
  forgetUser(): string;
  csrfFor(requestId: string, nonce: string): string;
}

export function createBrowserCookies(keyring: Keyring, settings: CookieSettings): BrowserCookies {
  const browserName = cookieName("mcpkit-browser", settings);
  const userName = cookieName("mcpkit-user", settings);
  const verified = (value: string | undefined, context: string): string | undefined => {
    if (!value) return undefined;
    const dot = value.lastIndexOf(".");
    if (dot <= 0) return undefined;
    const payload = value.slice(0, dot);
    return keyring.verify(payload, value.slice(dot + 1), context) ? payload : undefined;
  };
  return {
    nonce: (request) => verified(readCookie(request, browserName), "browser"),
    issueNonce() {
      const nonce = randomToken();
      return {
        nonce,
        cookie: setCookie(browserName, `${nonce}.${keyring.sign(nonce, "browser")}`, BROWSER_COOKIE_SECONDS, settings),
      };
    },
    rememberedUser(request) {
      const payload = verified(readCookie(request, userName), "user");
      if (!payload) return undefined;
      const [subject, expires] = payload.split("~");
      return Number(expires) > Date.now() / 1000 ? Buffer.from(subject, "base64url").toString("utf8") : undefined;
    },
    rememberUser(subject) {
      const payload = `${Buffer.from(subject).toString("base64url")}~${Math.floor(Date.now() / 1000) + USER_COOKIE_SECONDS}`;
      return setCookie(userName, `${payload}.${keyring.sign(payload, "user")}`, USER_COOKIE_SECONDS, settings);
    },
    forgetUser: () => setCookie(userName, "", 0, settings),
    csrfFor: (requestId, nonce) => keyring.sign(`${requestId}|${hashToken(nonce)}`, "csrf"),
  };
}
