/**
 * Test harness for the authorization server: its routes on a real `Bun.serve` (with the real
 * resource server in front of a stand-in `/mcp`, as the HTTP pipeline will mount them), a real
 * OIDC IdP (oauth2-mock-server) upstream, and a scripted browser (cookie jar, manual redirects)
 * for the consent page. Loopback only.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Events, OAuth2Server } from "oauth2-mock-server";
import { createLogger } from "../../src/core/log.ts";
import { type AuthServer, type AuthServerConfig, createAuthorizationServer } from "../../src/mcp/auth-server/index.ts";
import type { Store } from "../../src/mcp/auth-server/store.ts";
import { createResourceServer } from "../../src/mcp/http/auth/resource-server.ts";
import { startHttpServer } from "../http/support.ts";

export const SCOPES = ["boj:read", "oj:read", "fs:read"];

export interface IdpUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
}

export interface Idp {
  issuer: string;
  server: OAuth2Server;
  /** Who the IdP signs in next (the mock has no login form). */
  user: IdpUser;
  /** Whether the IdP adds RFC 9207 `iss` to its redirect (and what value). */
  issParam: string | undefined;
  stop(): Promise<void>;
}

export async function startIdp(): Promise<Idp> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const issuer = `http://127.0.0.1:${server.address().port}`;
  server.issuer.url = issuer;
  const idp: Idp = {
    issuer,
    server,
    user: { sub: "alice-sub", email: "alice@example.com", email_verified: true },
    issParam: issuer,
    stop: () => server.stop(),
  };
  server.service.on(Events.BeforeAuthorizeRedirect, (redirect) => {
    if (idp.issParam !== undefined) redirect.url.searchParams.set("iss", idp.issParam);
  });
  server.service.on(Events.BeforeTokenSigning, (token) => {
    token.payload.sub = idp.user.sub;
    if (idp.user.email !== undefined) token.payload.email = idp.user.email;
    if (idp.user.email_verified !== undefined) token.payload.email_verified = idp.user.email_verified;
  });
  return idp;
}

export interface Harness {
  base: string;
  mcpUrl: string;
  as: AuthServer;
  idp: Idp;
  logs: string[];
  dir: string;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  allow?: string[];
  config?: Partial<AuthServerConfig>;
  /** Reuse an IdP (several instances, one IdP). */
  idp?: Idp;
  state?: string;
  stateKey?: string;
  /** Wraps the server's store (createAuthorizationServer's `withStore`). */
  withStore?: (store: Store) => Store;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const idp = options.idp ?? (await startIdp());
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-as-"));
  const logs: string[] = [];
  const log = createLogger("debug", (line) => logs.push(line));
  let handler: (request: Request, server: Bun.Server<undefined>) => Promise<Response> = async () =>
    new Response("starting", { status: 503 });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request, srv) => handler(request, srv) });
  const base = `http://127.0.0.1:${server.port}`;
  const as = await createAuthorizationServer(
    {
      publicUrl: base,
      upstream: { kind: "oidc", issuer: idp.issuer, clientId: "mcpkit-upstream", clientSecret: "upstream-secret" },
      allow: options.allow ?? ["alice@example.com=*", "*@example.com=boj:read"],
      state: options.state ?? `sqlite:${join(dir, "state", "auth.db")}`,
      stateKey: options.stateKey,
      scopesSupported: SCOPES,
      registrationsPerMinute: 200,
      authorizationsPerMinute: 2000,
      ...options.config,
    },
    log,
    options.withStore,
  );
  const resourceServer = createResourceServer({
    resource: as.resource,
    issuer: as.issuer,
    audience: [as.resource],
    jwksUrl: as.jwksUrl,
    requiredScopes: [],
    scopesSupported: SCOPES,
    log,
  });
  handler = async (request, srv) => {
    const path = new URL(request.url).pathname;
    if (resourceServer.metadataPaths.includes(path)) return resourceServer.metadataResponse();
    if (path === "/mcp") {
      // Stands in for tools/call: who the verified token says is calling.
      const result = await resourceServer.authenticate(request);
      if (result instanceof Response) return result;
      return Response.json({
        subject: result.subject,
        scopes: result.authInfo.scopes,
        clientId: result.authInfo.clientId,
      });
    }
    const response = await as.handle(request, { clientAddress: srv.requestIP(request)?.address });
    return response ?? new Response("not found", { status: 404 });
  };
  return {
    base,
    mcpUrl: as.resource,
    as,
    idp,
    logs,
    dir,
    async stop() {
      await server.stop(true);
      await as.close();
      if (!options.idp) await idp.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function registerClient(
  base: string,
  body: Record<string, unknown> = {},
): Promise<{ client_id: string; redirect_uris: string[] }> {
  const response = await fetch(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Test client", redirect_uris: ["http://127.0.0.1:9/callback"], ...body }),
  });
  if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
  return (await response.json()) as { client_id: string; redirect_uris: string[] };
}

export function authorizeUrl(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${base}/authorize`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

/** A scripted browser: a cookie jar and redirects followed one by one. */
export class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(url, { headers });
  }

  async request(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([key, value]) => `${key}=${value}`).join("; ");
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers ?? {}), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [key, ...rest] = pair.split("=");
      if (attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute))) this.cookies.delete(key.trim());
      else this.cookies.set(key.trim(), rest.join("="));
    }
    return response;
  }

  /** Follows redirects until one leaves `stopOrigin`s (returned unfetched) or a page answers. */
  async follow(url: string, within: string[]): Promise<{ response?: Response; exit?: URL }> {
    let next = url;
    for (let hop = 0; hop < 10; hop++) {
      if (!within.some((origin) => next.startsWith(origin))) return { exit: new URL(next) };
      const response = await this.get(next);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return { response };
      next = new URL(location, next).href;
    }
    throw new Error("too many redirects");
  }
}

export interface ConsentForm {
  request: string;
  csrf: string;
  action: string;
  html: string;
}

export async function readConsent(response: Response): Promise<ConsentForm> {
  const html = await response.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const request = field("request");
  const csrf = field("csrf");
  if (!request || !csrf || !action) throw new Error(`not a consent page (${response.status}): ${html.slice(0, 300)}`);
  return { request, csrf, action, html };
}

export async function submitConsent(
  browser: Browser,
  form: ConsentForm,
  decision: "approve" | "deny",
  origin: string,
  csrf = form.csrf,
): Promise<Response> {
  return browser.request(form.action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ request: form.request, csrf, decision }).toString(),
  });
}

export interface SignInResult {
  exit: URL;
  browser: Browser;
}

/**
 * A whole browser sign-in: /authorize → consent (approve) → IdP → callback → the client's
 * redirect URI (returned, not fetched).
 */
export async function signIn(h: Harness, authorize: string, browser = new Browser()): Promise<SignInResult> {
  const within = [h.base, h.idp.issuer];
  let { response, exit } = await browser.follow(authorize, within);
  if (response) {
    const form = await readConsent(response);
    const approved = await submitConsent(browser, form, "approve", h.base);
    const location = approved.headers.get("location");
    if (approved.status !== 302 || !location) throw new Error(`consent: ${approved.status} ${await approved.text()}`);
    ({ response, exit } = await browser.follow(location, within));
  }
  if (!exit)
    throw new Error(`sign-in ended on a page (${response?.status}): ${(await response?.text())?.slice(0, 4000)}`);
  return { exit, browser };
}

export async function tokenRequest(
  base: string,
  params: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${base}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** Register, sign in, redeem: the tokens and what was used to get them. */
export async function fullFlow(h: Harness, scope = "boj:read fs:read") {
  const client = await registerClient(h.base);
  const { verifier, challenge } = pkce();
  const redirectUri = client.redirect_uris[0];
  const { exit, browser } = await signIn(
    h,
    authorizeUrl(h.base, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st-1",
      scope,
      resource: h.mcpUrl,
    }),
  );
  const code = exit.searchParams.get("code") ?? "";
  const tokens = await tokenRequest(h.base, {
    grant_type: "authorization_code",
    client_id: client.client_id,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    resource: h.mcpUrl,
  });
  return { client, verifier, challenge, redirectUri, exit, code, tokens, browser };
}

/**
 * `mcpkit --http 127.0.0.1:0 --auth oauth` as a real process, signing users in at `idp`, with its
 * state in `stateDir`, the policy `allow` and the toolset flags `serve` (e.g. `--toolsets boj`).
 */
export function startOauthProcess(idp: Idp, stateDir: string, allow: string, serve: string[]) {
  return startHttpServer(
    [
      ...["--auth", "oauth", "--upstream-issuer", idp.issuer, "--upstream-client-id", "mcpkit-upstream"],
      ...["--allow", allow, "--state", `sqlite:${join(stateDir, "auth.db")}`],
      ...serve,
    ],
    { env: { MCPKIT_UPSTREAM_CLIENT_SECRET: "upstream-secret" } },
  );
}
