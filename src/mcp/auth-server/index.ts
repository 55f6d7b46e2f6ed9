/**
 * `--auth oauth`: mcpkit as the OAuth 2.1 authorization server its MCP clients see, brokering
 * sign-in at an upstream IdP (OIDC or GitHub). Two hops, never token passthrough.
 *
 * The HTTP pipeline mounts `routes` (one file each under `routes/`), and the resource server
 * verifies the tokens with the existing `--auth jwt` verifier: issuer = `issuer`, audience =
 * `resource`, keys at `jwksUrl` (or `verifierKeys()` in-process).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import type * as jose from "jose";
import type { Logger } from "../../core/log.ts";
import { ConfigError } from "../../core/options.ts";
import { createCimdFetcher } from "./cimd.ts";
import { type AuthServerConfig, resolveConfig } from "./config.ts";
import { createBrowserCookies } from "./browser-cookies.ts";
import type { Deps } from "./context.ts";
import { createKeyring, parseStateKey } from "./crypto.ts";
import { OAuthFailure, createOnError, renderFailure } from "./errors.ts";
import type { Route, RouteContext } from "./http.ts";
import { createKeyManager } from "./keys.ts";
import { needsGithubOrgs } from "./policy.ts";
import { createRateLimiter } from "./rate-limit.ts";
import { createIdentityChecks } from "./recheck.ts";
import { authorizeRoutes } from "./routes/authorize.ts";
import { callbackRoutes } from "./routes/callback.ts";
import { consentRoutes } from "./routes/consent.ts";
import { JWKS_PATH, authorizationServerMetadata, metadataRoutes } from "./routes/metadata.ts";
import { registerRoutes } from "./routes/register.ts";
import { revokeRoutes } from "./routes/revoke.ts";
import { tokenRoutes } from "./routes/token.ts";
import { PING_TIMEOUT_MS, type Store, openStore, storeReachable } from "./store.ts";
import { createUpstream } from "./upstream/index.ts";

export type { AuthServerConfig, UpstreamConfig } from "./config.ts";
export type { Route, RouteContext } from "./http.ts";

/** Expired rows are deleted this often: every minute, so pending sign-ins (10 min) are held at most 11. */
const PURGE_INTERVAL_MS = 60 * 1000;
/** A person answers a consent page a few times a minute at most. */
const CONSENTS_PER_BROWSER_PER_MINUTE = 10;

export interface AuthServer {
  routes: Route[];
  /** Byte-identical to what the protected-resource metadata must list in `authorization_servers`. */
  issuer: string;
  /** The MCP URL: the only accepted `resource`, and the tokens' `aud`. */
  resource: string;
  jwksUrl: string;
  metadata: Record<string, unknown>;
  /** The public signing keys, for verifying in-process without an HTTP round trip. */
  verifierKeys(): Promise<{ keys: jose.JWK[] }>;
  /** Whether the sign-in an access token belongs to (its `sid`) was revoked since the token was issued. */
  isSignInRevoked(signInId: string): Promise<boolean>;
  /** Whether the state store answers (for `/healthz`, so a load balancer can take the instance out). */
  storeReachable(): Promise<boolean>;
  /** Dispatches a request to its route; `undefined` when no route has this path. */
  handle(request: Request, ctx?: RouteContext): Promise<Response | undefined>;
  /** Whether `handle` answers this path (so the pipeline can check its Host first). */
  serves(path: string): boolean;
  /** The 403 for a request the pipeline refuses before any route runs (a foreign Host), in the routes' error style. */
  forbidden(reason: string): Response;
  rotateSigningKey(): Promise<string>;
  purge(): Promise<number>;
  close(): Promise<void>;
}

/**
 * `withStore` wraps the opened store (tests: to run a request at an exact point inside another,
 * such as a code's replay between taking it and storing its refresh token). Default: the store itself.
 */
export async function createAuthorizationServer(
  input: AuthServerConfig,
  log: Logger,
  withStore: (store: Store) => Store = (store) => store,
): Promise<AuthServer> {
  const config = resolveConfig(input);
  const store = withStore(await openStore(config.state, config.storeTimeoutMs));
  let keyring: ReturnType<typeof createKeyring>;
  try {
    keyring = createKeyring(parseStateKey(input.stateKey ?? stateKeyFromFile(config.state)));
  } catch (error) {
    await store.close();
    throw error instanceof ConfigError ? error : new ConfigError((error as Error).message);
  }
  const keys = createKeyManager(store, keyring, config.keyRotation, config.accessTokenTtl);
  const deps: Deps = {
    config,
    store,
    keyring,
    keys,
    upstream: createUpstream(config.upstream, config.callbackUrl, needsGithubOrgs(config.policy), config.now),
    identityChecks: createIdentityChecks(),
    cimd: createCimdFetcher({ allowPrivate: config.allowPrivateCimd, ownOrigin: config.publicUrl.origin }),
    registrations: createRateLimiter(config.registrationsPerMinute, config.registrationsPerMinute * 10),
    authorizations: createRateLimiter(config.authorizationsPerMinute, config.authorizationsPerMinute * 50),
    consents: createRateLimiter(CONSENTS_PER_BROWSER_PER_MINUTE, config.authorizationsPerMinute * 50),
    log,
    browser: createBrowserCookies(keyring, {
      secure: config.secure,
      port: config.publicUrl.port || (config.secure ? "443" : "80"),
    }),
  };
  if (config.allowPrivateCimd)
    log.warn("test switch on: client metadata documents may be fetched from private and loopback addresses");
  if (config.policy.length === 0) log.warn("--allow names nobody: every sign-in will be refused (default deny)");
  await keys.signingKey(); // fail at start-up, not at the first sign-in, when the store or key is wrong

  const routes = [
    ...metadataRoutes(deps),
    ...registerRoutes(deps),
    ...authorizeRoutes(deps),
    ...consentRoutes(deps),
    ...callbackRoutes(deps),
    ...tokenRoutes(deps),
    ...revokeRoutes(deps),
  ];
  const purge = async () => {
    const removed = await store.purge(config.now());
    if (removed > 0) log.debug("purged expired authorization rows", { removed });
    return removed;
  };
  const timer = setInterval(
    () => void purge().catch((error: unknown) => log.warn("purge failed", { error: String(error) })),
    PURGE_INTERVAL_MS,
  );
  timer.unref();

  return {
    routes,
    issuer: config.issuer,
    resource: config.resource,
    jwksUrl: `${config.issuer}${JWKS_PATH}`,
    metadata: authorizationServerMetadata(deps),
    verifierKeys: () => keys.jwks(),
    isSignInRevoked: (signInId) => store.isFamilyRevoked(signInId),
    storeReachable: () => storeReachable(store, Math.min(PING_TIMEOUT_MS, config.storeTimeoutMs)),
    handle: dispatcher(routes, log),
    serves: (path) => routes.some((route) => route.path === path),
    forbidden: (reason) => renderFailure(new OAuthFailure("invalid_request", reason, { status: 403 }), false),
    rotateSigningKey: () => keys.rotate(),
    purge,
    async close() {
      clearInterval(timer);
      await store.close();
    },
  };
}

/**
 * Finds the route for a request (`undefined` for a path it does not serve, 405 for a wrong
 * method) and hands whatever it throws to the one `onError`.
 */
function dispatcher(routes: Route[], log: Logger): AuthServer["handle"] {
  const onError = createOnError(log);
  return async (request, ctx = {}) => {
    const path = new URL(request.url).pathname;
    const candidates = routes.filter((route) => route.path === path);
    if (candidates.length === 0) return undefined;
    const method = request.method === "HEAD" ? "GET" : request.method;
    const route = candidates.find((candidate) => candidate.method === method) ?? methodNotAllowed(candidates);
    // Async, so that a handler throwing before its first await reaches onError too.
    const answer = async () => route.handle(request, ctx);
    return answer().catch((error: unknown) => onError(error, { path, browser: route.browser === true }));
  };
}

/** The route a wrong method meets: 405 naming the methods the path has. */
function methodNotAllowed(candidates: Route[]): Route {
  const allow = candidates.map((candidate) => candidate.method).join(", ");
  return {
    ...candidates[0],
    browser: false,
    handle: async () => {
      throw new OAuthFailure("invalid_request", `this path answers ${allow}.`, {
        status: 405,
        headers: { allow },
        bodyless: true,
      });
    },
  };
}

/** With SQLite and no --state-key: a key file next to the database, created once, 0600. */
function stateKeyFromFile(state: string): string {
  const path = state.replace(/^sqlite:(\/\/)?/, "");
  if (path === ":memory:") return crypto.getRandomValues(Buffer.alloc(32)).toString("hex");
  const keyPath = `${path}.key`;
  if (!existsSync(keyPath)) {
    writeFileSync(keyPath, `${crypto.getRandomValues(Buffer.alloc(32)).toString("hex")}\n`, {
      mode: 0o600,
      flag: "wx",
    });
  }
  try {
    chmodSync(keyPath, 0o600);
  } catch {
    // Someone else's file on a shared volume; reading it is what matters.
  }
  const text = readFileSync(keyPath, "utf8");
  if (!text.trim())
    throw new ConfigError(
      `the state key file ${keyPath} is empty; delete it (tokens at rest become unreadable) or fill it with \`openssl rand -hex 32\`.`,
    );
  return text;
}
