/**
 * Which redirect URIs a client may register, and when a requested one matches (OAuth 2.1 §2.3.1,
 * RFC 8252 §7.1/§7.3, RFC 6749 §10.15).
 *
 * Allowed: https with a host, http on a loopback host (any port), and private-use schemes of
 * native apps (`cursor://…`, `vscode://…`). Refused: schemes that run or read something in the
 * browser, credentials, fragments, and anything on mcpkit's own origin (an open redirect through
 * its callback or `/authorize`). Checks run on the WHATWG-normalised URL, so `JavaScript:`,
 * ` javascript:` or a tab inside the scheme cannot slip past a string comparison.
 */
import { isLoopbackName } from "./config.ts";

const REFUSED_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "ws:",
  "wss:",
  "ftp:",
  "chrome:",
  "chrome-extension:",
  "moz-extension:",
  "intent:",
  "mailto:",
  "tel:",
  "sms:",
]);

/** Undefined when acceptable; otherwise why not, as a sentence for `error_description`. */
export function redirectUriProblem(raw: string, ownOrigin: string): string | undefined {
  if (raw.length > 2000) return "a redirect URI is longer than 2000 characters.";
  // The raw text must already be what the parser would produce at its edges: no whitespace or
  // control characters a browser would silently drop.
  if (/[\s\x00-\x1f\x7f]/.test(raw))
    return `the redirect URI ${JSON.stringify(raw)} contains whitespace or control characters.`;
  if (!URL.canParse(raw)) return `the redirect URI ${JSON.stringify(raw)} is not an absolute URL.`;
  const url = new URL(raw);
  if (url.protocol !== raw.slice(0, url.protocol.length))
    return `the redirect URI ${JSON.stringify(raw)} must spell its scheme in lower case.`;
  if (REFUSED_SCHEMES.has(url.protocol))
    return `the redirect URI scheme ${url.protocol} is not allowed; use https://, http://127.0.0.1 (loopback) or an app scheme such as myapp://.`;
  if (url.hash || raw.includes("#")) return "a redirect URI must not contain a fragment (#).";
  if (url.username || url.password) return "a redirect URI must not contain user credentials (user:pass@).";
  if (url.protocol === "https:" || url.protocol === "http:") {
    if (!url.hostname) return "an https redirect URI needs a host.";
    if (url.protocol === "http:" && !isLoopbackName(url.hostname)) {
      return `plain http redirect URIs are allowed only on loopback (127.0.0.1, [::1], localhost); use https for ${url.hostname}.`;
    }
    if (pointsAtThisServer(url, ownOrigin)) return "a redirect URI must not point at this authorization server itself.";
    return undefined;
  }
  // A private-use scheme (RFC 8252 §7.1): a plain scheme name, nothing a browser handles itself.
  if (!/^[a-z][a-z0-9+.-]*:$/.test(url.protocol))
    return `the redirect URI scheme ${url.protocol} is not a valid scheme name.`;
  return undefined;
}

/**
 * Whether a redirect would land on this server: its own origin, or any loopback name on its port
 * when it listens on loopback (`localhost:8080` is `127.0.0.1:8080`), so a redirect can never be
 * turned back into a request to mcpkit itself (issue 18 G6).
 */
export function pointsAtThisServer(url: URL, ownOrigin: string): boolean {
  if (url.origin === ownOrigin) return true;
  const own = new URL(ownOrigin);
  const port = (target: URL) => target.port || (target.protocol === "https:" ? "443" : "80");
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    isLoopbackName(url.hostname) &&
    isLoopbackName(own.hostname) &&
    port(url) === port(own)
  );
}

/**
 * Exact string match, except that for a registered http loopback URI only the port may differ
 * (RFC 8252 §7.3: native apps listen on an ephemeral port).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested) || /[\s\x00-\x1f\x7f#]/.test(requested)) return false;
  const want = new URL(requested);
  if (want.protocol !== "http:" || !isLoopbackName(want.hostname) || want.username || want.password) return false;
  return registered.some((candidate) => {
    if (!URL.canParse(candidate)) return false;
    const have = new URL(candidate);
    return (
      have.protocol === "http:" &&
      isLoopbackName(have.hostname) &&
      // The host itself must be the same loopback name: `localhost` may resolve elsewhere.
      have.hostname === want.hostname &&
      have.pathname === want.pathname &&
      have.search === want.search &&
      // The port-less form of the request must be literally what was registered, port-less.
      withoutPort(candidate) === withoutPort(requested)
    );
  });
}

function withoutPort(raw: string): string {
  const url = new URL(raw);
  url.port = "";
  return url.href;
}

export function hostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || url.protocol;
  } catch {
    return uri;
  }
}
