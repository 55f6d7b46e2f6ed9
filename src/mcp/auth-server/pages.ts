/**
 * The HTML the browser sees: the consent page, and the pages for errors that must not redirect
 * (an unverified client or redirect URI) or that concern the user (outside the access policy).
 *
 * No script; every value escaped; never framed (`frame-ancestors 'none'` and `X-Frame-Options`,
 * the clickjacking defence for a page with an "Allow" button); never cached.
 */
import { stripControl } from "../../core/text.ts";

const SECURITY_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  pragma: "no-cache",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Not `no-referrer`: browsers then send `Origin: null` on the consent form's POST, which the
  // same-origin check must refuse. `same-origin` still keeps the URL from the IdP and client.
  "referrer-policy": "same-origin",
};

/**
 * `stripControl` also drops Unicode format characters (bidi overrides, zero-width characters),
 * which could otherwise reorder what the page shows, e.g. reverse the consent heading (issue 18 G11).
 */
export function escapeHtml(text: string): string {
  return stripControl(text).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}ul{padding-left:1.2rem}
.box{border:1px solid #ddd;border-radius:8px;padding:1rem 1.25rem}.muted{color:#555;font-size:.9rem}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}
button.primary{background:#1f6feb;color:#fff;border-color:#1f6feb}.warn{color:#9a3b00}`;

function document(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** A page as a Response with the security headers; error pages reach here only through `renderFailure`. */
export function htmlResponse(html: string, status: number, headers: [string, string][] = []): Response {
  const response = new Response(html, { status, headers: SECURITY_HEADERS });
  for (const [key, value] of headers) response.headers.append(key, value);
  return response;
}

/** A failure shown to the user instead of redirecting anywhere. */
export function errorPageHtml(title: string, message: string): string {
  return document(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="muted">You can close this window and try again from your application.</p>`,
  );
}

export interface ConsentView {
  clientName: string;
  clientId: string;
  redirectHost: string;
  /** The host serving the client's metadata document (CIMD clients). */
  metadataHost?: string;
  scopes: string[];
  requestId: string;
  csrf: string;
  /** Absolute URL of the consent endpoint (the page is also rendered by the callback). */
  action: string;
  upstreamLabel: string;
  /** A loopback redirect from a client whose metadata lives elsewhere deserves a second look. */
  warning?: string;
}

export function consentPage(view: ConsentView, cookies: [string, string][]): Response {
  const scopes = view.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join("");
  const body = `<h1>Allow ${escapeHtml(view.clientName)} to use mcpkit?</h1>
<div class="box">
<p><strong>${escapeHtml(view.clientName)}</strong> wants access with these permissions:</p>
<ul id="scopes">${scopes}</ul>
<p class="muted">After you allow it, you sign in at <strong>${escapeHtml(view.upstreamLabel)}</strong>, and then you are sent back to <strong id="redirect-host">${escapeHtml(view.redirectHost)}</strong>.</p>
<p class="muted">Client ID <code id="client-id">${escapeHtml(view.clientId)}</code> (${view.metadataHost ? "a metadata document" : "registered automatically"}; the name is the application's own claim).</p>
${view.metadataHost ? `<p class="muted">This application describes itself at <strong id="metadata-host">${escapeHtml(view.metadataHost)}</strong>.</p>` : ""}
${view.warning ? `<p class="warn">${escapeHtml(view.warning)}</p>` : ""}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<div class="actions"><button class="primary" type="submit" name="decision" value="approve" id="approve">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button></div>
</form></div>
<p class="muted">Only allow applications you started yourself. If you did not just connect an application to mcpkit, choose Deny.</p>`;
  return htmlResponse(document("Allow access? — mcpkit", body), 200, cookies);
}

/** The page for a person the IdP signed in whom the access policy refuses. */
export function notAllowedHtml(displayName: string, reason: string): string {
  return document(
    "Not allowed — mcpkit",
    `<h1>You are signed in, but not allowed here</h1><p>You signed in as <strong>${escapeHtml(displayName)}</strong>. ${escapeHtml(reason)}</p><p class="muted">Ask the person who runs this mcpkit server to add you with <code>--allow</code>, or sign in with another account.</p>`,
  );
}
