/**
 * The authorization server's configuration: one object the CLI fills from flags (see
 * `options.ts`) and embedders or tests may build directly. Validated once, up front, so every
 * mistake is reported with the field that carries it and how to fix it.
 */
import * as v from "valibot";
import { ConfigError } from "../../core/options.ts";
import { type PolicyRule, parsePolicyRule } from "./policy.ts";
import { type AuthServerFlags, DEFAULT_STATE_TIMEOUT_MS, type UpstreamConfig } from "./flags.ts";
import { isLoopbackHost } from "../web/addresses.ts";

export type { UpstreamConfig };

/** What the flags set (`AuthServerFlags`), and what only the running server or an embedder knows. */
export interface AuthServerConfig extends Omit<AuthServerFlags, "state"> {
  /** The URL clients use to reach mcpkit, e.g. `https://mcp.example.com` (no trailing slash needed). */
  publicUrl: string;
  /** `sqlite:PATH` or `postgres://…`. */
  state: string;
  /** The scopes of the tools mcpkit serves (`boj:read`, …). */
  scopesSupported: string[];
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  codeTtlSeconds?: number;
  /** How long a rotated refresh token still works, for a client that retries a lost response. */
  refreshGraceSeconds?: number;
  /** Milliseconds since the epoch for grant lifetimes and rechecks; tests move it forward. */
  clock?: () => number;
  /** How long a signing key signs before a new one takes over. */
  keyRotationSeconds?: number;
  /** An unused dynamic registration is deleted after this long. */
  unusedClientTtlSeconds?: number;
  /** Registrations per client address per minute. */
  registrationsPerMinute?: number;
  /** GET /authorize requests per client address and minute (default 60). */
  authorizationsPerMinute?: number;
  /** Test-only switches; never set them in production. */
  testing?: {
    /** Fetch client ID metadata documents from loopback/private addresses and over plain http. */
    allowPrivateCimd?: boolean;
  };
}

export interface ResolvedConfig {
  publicUrl: URL;
  /** `https://mcp.example.com` or `https://host/prefix`: the `iss` of our tokens, byte for byte. */
  issuer: string;
  /** The MCP endpoint, the only accepted `resource` and the tokens' `aud`. */
  resource: string;
  /** Where the upstream IdP sends the browser back. */
  callbackUrl: string;
  upstream: UpstreamConfig;
  policy: PolicyRule[];
  state: string;
  stateKey?: string;
  scopesSupported: string[];
  accessTokenTtl: number;
  refreshTokenTtl: number;
  codeTtl: number;
  refreshGrace: number;
  signInLifetime: number;
  identityRecheck: number;
  now: () => number;
  storeTimeoutMs: number;
  keyRotation: number;
  unusedClientTtl: number;
  registrationsPerMinute: number;
  authorizationsPerMinute: number;
  allowPrivateCimd: boolean;
  /** Plain http is accepted only on loopback, for development; cookies then drop `Secure`. */
  secure: boolean;
}

const httpUrl = (field: string, example: string) =>
  v.pipe(
    v.string(),
    v.check(
      (text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol),
      `${field} must be an absolute http:// or https:// URL, e.g. ${example}`,
    ),
  );

const seconds = (field: string, min: number, max: number) =>
  v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(min, `${field} must be at least ${min} seconds`),
      v.maxValue(max, `${field} must be at most ${max} seconds`),
    ),
  );

const schema = v.object({
  publicUrl: httpUrl("publicUrl (--public-url)", "https://mcp.example.com"),
  upstream: v.variant("kind", [
    v.object({
      kind: v.literal("oidc"),
      issuer: httpUrl("upstream.issuer (--upstream-issuer)", "https://login.example.com/realms/team"),
      clientId: v.pipe(v.string(), v.minLength(1, "upstream.clientId (--upstream-client-id) must not be empty")),
      clientSecret: v.optional(v.string()),
      scopes: v.optional(v.array(v.string())),
    }),
    v.object({
      kind: v.literal("github"),
      clientId: v.pipe(v.string(), v.minLength(1, "upstream.clientId (--github-client-id) must not be empty")),
      clientSecret: v.pipe(
        v.string(),
        v.minLength(1, "upstream.clientSecret (--github-client-secret) is required: GitHub OAuth apps always have one"),
      ),
      apiBase: v.optional(httpUrl("upstream.apiBase", "https://api.github.com")),
      authorizeBase: v.optional(httpUrl("upstream.authorizeBase", "https://github.com")),
    }),
  ]),
  allow: v.array(v.string()),
  state: v.pipe(
    v.string(),
    v.check(
      (text) => /^sqlite:.+/.test(text) || /^postgres(ql)?:\/\//.test(text),
      "state (--state) must be sqlite:PATH or a postgres:// URL",
    ),
  ),
  stateKey: v.optional(v.string()),
  scopesSupported: v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.regex(
          /^[\x21\x23-\x5b\x5d-\x7e]+$/,
          "each scope must be printable ASCII without spaces, quotes or backslashes",
        ),
      ),
    ),
    v.minLength(1, "scopesSupported must name at least one scope"),
  ),
  accessTokenTtlSeconds: seconds("accessTokenTtlSeconds", 60, 86_400),
  refreshTokenTtlSeconds: seconds("refreshTokenTtlSeconds", 300, 31_536_000),
  codeTtlSeconds: seconds("codeTtlSeconds (authorization codes live at most 5 minutes)", 10, 300),
  refreshGraceSeconds: seconds("refreshGraceSeconds", 0, 300),
  signInLifetimeSeconds: seconds("signInLifetimeSeconds (--sign-in-lifetime)", 300, 31_536_000),
  identityRecheckSeconds: seconds("identityRecheckSeconds (--identity-recheck)", 0, 31_536_000),
  clock: v.optional(v.function()),
  storeTimeoutMs: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(50, "storeTimeoutMs must be 50–60000"), v.maxValue(60_000)),
  ),
  keyRotationSeconds: seconds("keyRotationSeconds", 3600, 31_536_000),
  unusedClientTtlSeconds: seconds("unusedClientTtlSeconds", 60, 31_536_000),
  registrationsPerMinute: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000))),
  authorizationsPerMinute: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000))),
  testing: v.optional(v.object({ allowPrivateCimd: v.optional(v.boolean()) })),
});

export function resolveConfig(config: AuthServerConfig): ResolvedConfig {
  const parsed = v.safeParse(schema, config);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((item) => String(item.key)).join(".") ?? "configuration";
    throw new ConfigError(`invalid authorization server setting ${path}: ${issue.message}`);
  }
  const options = parsed.output;
  const publicUrl = new URL(options.publicUrl);
  const loopback = isLoopbackName(publicUrl.hostname);
  if (publicUrl.protocol !== "https:" && !loopback) {
    throw new ConfigError(
      `--public-url ${publicUrl.origin} must be https:// for --auth oauth (OAuth 2.1 requires TLS for the authorization server); plain http is accepted only on loopback for development.`,
    );
  }
  if (publicUrl.search || publicUrl.hash)
    throw new ConfigError(
      "--public-url must not carry a query or fragment; give the bare URL clients use, e.g. https://mcp.example.com.",
    );
  if (
    options.upstream.kind === "oidc" &&
    options.upstream.issuer.startsWith("http:") &&
    !isLoopbackName(new URL(options.upstream.issuer).hostname)
  ) {
    throw new ConfigError("--upstream-issuer must be https:// (plain http is accepted only for a loopback test IdP).");
  }
  if (options.state.startsWith("postgres") && !options.stateKey) {
    throw new ConfigError(
      "--state postgres://… needs --state-key (MCPKIT_STATE_KEY): every instance must share the key that encrypts tokens and signs cookies; generate one with `openssl rand -hex 32`.",
    );
  }
  const policy = options.allow.map((rule, index) => {
    try {
      return parsePolicyRule(rule);
    } catch (error) {
      throw new ConfigError(`invalid --allow rule #${index + 1} ${JSON.stringify(rule)}: ${(error as Error).message}`);
    }
  });
  // A revoked sign-in is remembered on its refresh rows, which are purged when they expire: they must
  // outlive every access token of the sign-in, or a revocation would be forgotten while one is valid.
  if ((options.refreshTokenTtlSeconds ?? 30 * 86_400) < (options.accessTokenTtlSeconds ?? 3600)) {
    throw new ConfigError(
      "refresh tokens must live at least as long as access tokens (refreshTokenTtlSeconds ≥ accessTokenTtlSeconds).",
    );
  }
  const prefix = publicUrl.pathname.replace(/\/+$/, "");
  const issuer = `${publicUrl.origin}${prefix}`;
  return {
    publicUrl,
    issuer,
    resource: `${issuer}/mcp`,
    callbackUrl: `${issuer}/oauth/callback`,
    upstream: options.upstream,
    policy,
    state: options.state,
    stateKey: options.stateKey,
    scopesSupported: [...new Set(options.scopesSupported)],
    accessTokenTtl: options.accessTokenTtlSeconds ?? 3600,
    refreshTokenTtl: options.refreshTokenTtlSeconds ?? 30 * 86_400,
    codeTtl: options.codeTtlSeconds ?? 120,
    refreshGrace: options.refreshGraceSeconds ?? 30,
    signInLifetime: options.signInLifetimeSeconds ?? 30 * 86_400,
    identityRecheck: options.identityRecheckSeconds ?? 900,
    // Read through at each call, so a clock replaced at run time (tests) is the one in effect.
    now: (options.clock as (() => number) | undefined) ?? (() => Date.now()),
    storeTimeoutMs: options.storeTimeoutMs ?? DEFAULT_STATE_TIMEOUT_MS,
    keyRotation: options.keyRotationSeconds ?? 30 * 86_400,
    unusedClientTtl: options.unusedClientTtlSeconds ?? 86_400,
    registrationsPerMinute: options.registrationsPerMinute ?? 10,
    authorizationsPerMinute: options.authorizationsPerMinute ?? 60,
    allowPrivateCimd: options.testing?.allowPrivateCimd ?? false,
    secure: publicUrl.protocol === "https:",
  };
}

/** One strict notion of loopback for the whole server (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopbackName(host: string): boolean {
  return isLoopbackHost(host);
}
