/**
 * Which redirect URIs a client may register, and when a requested one matches (OAuth 2.1 §2.3.1,
 * RFC 8252 §7.1/§7.3, RFC 6749 §10.15).
 *
 * Allowed: https with a host, http on a loopback host (any port), and private-use schemes of
 * native apps (`cursor://…`, `vscode://…`). Refused: schemes that run or read something in the
 * browser, schemes that hand a web address to a browser app, credentials, fragments, and anything
 * on mcpkit's own origin (an open redirect through its callback or `/authorize`). Checks run on the WHATWG-normalised URL, so `JavaScript:`,
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

/**
 * Schemes the operating system hands to a browser app, which opens the web address in the rest of
 * the URI: `microsoft-edge:https://site/…` on Windows, Safari's, Chrome's, Firefox's, Opera's and
 * Brave's on iOS. The code then lands on that site, which is no application of the user's, and
 * the consent page could not name it (it showed `microsoft-edge:`).
 */
const BROWSER_HANDOFF_SCHEMES = new Set([
  "microsoft-edge:",
  "microsoft-edge-holographic:",
  "microsoft-edge-http:",
  "microsoft-edge-https:",
  "x-safari-http:",
  "x-safari-https:",
  "googlechrome:",
  "googlechromes:",
  "googlechrome-x-callback:",
  "firefox:",
  "firefox-focus:",
  "opera-http:",
  "opera-https:",
  "brave:",
  "samsunginternet:",
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
  return handoffProblem(url, raw);
}

/**
 * A known browser's hand-off scheme, or any scheme followed by a whole web address (the same
 * shape for a browser this list does not know yet): no app redirect looks like that.
 */
function handoffProblem(url: URL, raw: string): string | undefined {
  const inner = webAddressAfterScheme(url, raw);
  if (!BROWSER_HANDOFF_SCHEMES.has(url.protocol) && !inner) return undefined;
  const instead = `register ${inner ? inner.href : "the https:// address"} itself`;
  return `redirect_uris: the scheme ${url.protocol} hands a web address to a browser app, which would send the code to that site, not to an application; ${instead}, an http://127.0.0.1 (loopback) address, or your app's own scheme such as myapp://.`;
}

/**
 * The http(s) URL that follows a scheme (`microsoft-edge:https://site/cb`), in any of the spellings
 * a URL parser reads as one: slashes before it (`myapp://https://site/cb`, where `https` parses as
 * a host), or none or one after its colon (`myapp:https:site/cb`).
 */
function webAddressAfterScheme(url: URL, raw: string): URL | undefined {
  const rest = raw.slice(url.protocol.length).replace(/^\/+/, "");
  if (!/^https?:/i.test(rest)) return undefined;
  const inner = URL.parse(rest);
  return inner && (inner.protocol === "https:" || inner.protocol === "http:") && inner.host ? inner : undefined;
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

/**
 * The host the consent page says the user is sent back to. A scheme with no host that is followed
 * by a web address (registered before such URIs were refused) names that address's host, which is
 * where the browser ends up, not the scheme. Any other scheme than http(s) is named with its host
 * (`evilapp://claude.ai`): the scheme decides which installed application gets the result, and a
 * host alone would read as that website.
 */
export function hostOf(uri: string): string {
  const url = URL.parse(uri);
  if (!url) return uri;
  const inner = webAddressAfterScheme(url, uri);
  if (inner) return `${inner.host} (through ${url.protocol})`;
  if (!isWebScheme(url)) return url.host ? `${url.protocol}//${url.host}` : url.protocol;
  return url.host;
}

/** Whether a redirect URI goes to a web page (http or https) rather than to an installed application. */
export function isWebScheme(url: URL): boolean {
  return url.protocol === "https:" || url.protocol === "http:";
}
