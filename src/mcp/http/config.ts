/**
 * The options of `mcpkit --http` (declared as data for the CLI) and how they are read.
 *
 * `readHttpConfig` returns `undefined` when `--http` is absent, so the CLI can tell the
 * transports apart with one call; every rule that can be checked before binding a socket
 * (for example "no authorization on a public address") is checked here, at start-up.
 */
import * as v from "valibot";
import { type AuthServerFlags, authServerOptions, readAuthServerFlags } from "../auth-server/flags.ts";
import {
  ConfigError,
  type OptionSpec,
  type OptionValues,
  httpUrlOption,
  integerOption,
  readDeclared,
  switchOption,
} from "../../core/options.ts";
import { isLoopbackHost, isWildcardHost, parseAddressRange, parseListenAddress } from "../web/addresses.ts";
import { SUBSCRIPTIONS_PER_CLIENT } from "../modern/subscriptions.ts";
import { DEFAULT_IDLE_TIMEOUT_S } from "./sse.ts";

/** Seconds from SIGTERM to exit by default: what `docker stop` waits before SIGKILL. */
const DEFAULT_SHUTDOWN_GRACE_S = 10;

const splitCommaList = (text: string): string[] =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

const commaList = v.optional(v.pipe(v.string(), v.transform(splitCommaList)));

/** A comma list of IP addresses and CIDR ranges; a bad entry is reported alone, not the whole list. */
const addressRangeList = v.optional(
  v.pipe(
    v.string(),
    v.transform(splitCommaList),
    v.rawCheck<string[]>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const bad = dataset.value.find((entry) => parseAddressRange(entry) === undefined);
      if (bad === undefined) return;
      addIssue({
        input: bad,
        message:
          "expected IP addresses or CIDR ranges separated by commas (prefix up to /32 for IPv4, /128 for IPv6), e.g. 127.0.0.1,10.0.0.0/8,::1",
      });
    }),
  ),
);

export const httpOptions = [
  {
    name: "http",
    env: "MCPKIT_HTTP",
    kind: "string",
    valueName: "[HOST:]PORT",
    help: "serve MCP over Streamable HTTP at /mcp instead of stdio (HOST defaults to 127.0.0.1; PORT 0 picks a free port)",
    schema: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.check(
          (text) => parseListenAddress(text) !== undefined,
          "expected [HOST:]PORT with PORT from 0 to 65535, e.g. 8080 or 127.0.0.1:8080",
        ),
      ),
    ),
  },
  {
    name: "public-url",
    env: "MCPKIT_PUBLIC_URL",
    kind: "string",
    valueName: "URL",
    help: "the URL clients use to reach this server (behind a proxy); the OAuth resource is URL/mcp",
    defaultText: "http://HOST:PORT",
    schema: httpUrlOption(),
  },
  {
    name: "allowed-origins",
    env: "MCPKIT_ALLOWED_ORIGINS",
    kind: "string",
    valueName: "LIST",
    help: "comma list of browser origins allowed to call /mcp, or * for any",
    defaultText: "loopback origins when bound to loopback, else the public URL's origin",
    schema: commaList,
  },
  {
    name: "allowed-hosts",
    env: "MCPKIT_ALLOWED_HOSTS",
    kind: "string",
    valueName: "LIST",
    help: "comma list of Host header values (name or name:port) accepted on /mcp, or * for any",
    defaultText: "loopback names when bound to loopback, else the public URL's and the bound host",
    schema: commaList,
  },
  {
    name: "trusted-proxies",
    env: "MCPKIT_TRUSTED_PROXIES",
    kind: "string",
    valueName: "LIST",
    help: "comma list of IP addresses or CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8,::1) of the reverse proxies in front whose X-Forwarded-For is believed: the authorization server's per-address rate limits then count the client it names, not the proxy; list only proxies you run, as any client can forge the header",
    defaultText: "none: X-Forwarded-For is ignored and every client is the socket's peer",
    schema: addressRangeList,
  },
  {
    name: "max-sessions",
    env: "MCPKIT_MAX_SESSIONS",
    kind: "string",
    valueName: "N",
    help: "most sessions open at once; beyond it initialize gets 503 with Retry-After",
    schema: integerOption(1, 1_000_000, 1000, "sessions"),
  },
  {
    name: "max-sessions-per-subject",
    env: "MCPKIT_MAX_SESSIONS_PER_SUBJECT",
    kind: "string",
    valueName: "N",
    help: "with --auth: most sessions one user (token issuer + sub) may hold; beyond it that user's initialize gets 429 with Retry-After; must be below --max-sessions",
    defaultText: "32, or a quarter of --max-sessions when that is smaller (at least 1)",
    // No fallback here: the default depends on --max-sessions (`perSubjectCap`).
    schema: v.optional(integerOption(1, 1_000_000, 0, "sessions").wrapped),
  },
  {
    name: "session-idle-ms",
    env: "MCPKIT_SESSION_IDLE_MS",
    kind: "string",
    valueName: "MS",
    help: "a session with no request for this long is ended (its id then gets 404)",
    schema: integerOption(1000, 604_800_000, 1_800_000, "milliseconds"),
  },
  {
    name: "max-body-bytes",
    env: "MCPKIT_MAX_BODY_BYTES",
    kind: "string",
    valueName: "BYTES",
    help: "largest accepted request body; larger bodies get 413",
    schema: integerOption(1024, 1_073_741_824, 1_048_576, "bytes"),
  },
  {
    name: "idle-timeout-s",
    env: "MCPKIT_IDLE_TIMEOUT_S",
    kind: "string",
    valueName: "S",
    help: "seconds a silent connection stays open (set it below a proxy's idle timeout); streams send a keep-alive comment every half of it, and a call silent that long answers as a stream",
    schema: integerOption(2, 255, DEFAULT_IDLE_TIMEOUT_S, "seconds"),
  },
  {
    name: "shutdown-grace-s",
    env: "MCPKIT_SHUTDOWN_GRACE_S",
    kind: "string",
    valueName: "S",
    help: "seconds from SIGTERM to exit: calls in flight may finish, then the last telemetry is sent in what is left; keep it below the time your orchestrator waits before SIGKILL (docker stop: 10)",
    schema: integerOption(1, 3600, DEFAULT_SHUTDOWN_GRACE_S, "seconds"),
  },
  {
    name: "stateless",
    env: "MCPKIT_STATELESS",
    kind: "boolean",
    help: "no 2025-era sessions either (2026-07-28 requests never have one): every request is served on its own, so instances can sit behind any load balancer",
    schema: switchOption(),
  },
  {
    name: "gateway-auth",
    env: "MCPKIT_GATEWAY_AUTH",
    kind: "boolean",
    help: "a gateway in front of mcpkit authorizes every request (an authenticating proxy, an API gateway): lets --http listen beyond loopback without --auth; never expose that port directly",
    schema: switchOption(),
  },
  {
    name: "auth",
    env: "MCPKIT_AUTH",
    kind: "string",
    valueName: "none|jwt|oauth",
    help: "jwt: require OAuth 2.1 bearer tokens from an external issuer (checked against its JWKS); oauth: mcpkit is the authorization server and signs users in at an upstream identity provider (--upstream-issuer or --github-client-id)",
    schema: v.optional(v.picklist(["none", "jwt", "oauth"], 'expected "none", "jwt" or "oauth"'), "none"),
  },
  {
    name: "issuer",
    env: "MCPKIT_ISSUER",
    kind: "string",
    valueName: "URL",
    help: "the authorization server's issuer URL (required with --auth jwt; must equal the tokens' iss)",
    // Kept exactly as given: it must equal the tokens' `iss`, trailing slash included (Auth0 has one).
    schema: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.check(
          (text) => /^https?:\/\/[^\s/]+/.test(text) && URL.canParse(text),
          "expected the issuer's absolute http:// or https:// URL, exactly as tokens carry it in iss",
        ),
      ),
    ),
  },
  {
    name: "audience",
    env: "MCPKIT_AUDIENCE",
    kind: "string",
    valueName: "LIST",
    help: "comma list of accepted token audiences (aud)",
    defaultText: "the public URL + /mcp",
    schema: commaList,
  },
  {
    name: "jwks-url",
    env: "MCPKIT_JWKS_URL",
    kind: "string",
    valueName: "URL",
    help: "where the issuer publishes its signing keys",
    defaultText: "jwks_uri from the issuer's OpenID/OAuth metadata",
    schema: httpUrlOption(),
  },
  {
    name: "required-scopes",
    env: "MCPKIT_REQUIRED_SCOPES",
    kind: "string",
    valueName: "LIST",
    help: "comma list of scopes every token must carry, on top of each tool's own scope",
    schema: commaList,
  },
  ...authServerOptions,
] as const satisfies readonly OptionSpec[];

export type HttpAuthConfig =
  | { kind: "none" }
  | { kind: "jwt"; issuer: string; audience?: string[]; jwksUrl?: string; requiredScopes: string[] }
  /** mcpkit is the authorization server; its flags are read once the public URL is known (`serve.ts`). */
  | { kind: "oauth"; flags: AuthServerFlags; requiredScopes: string[] };

export interface HttpConfig {
  host: string;
  port: number;
  publicUrl?: string;
  /** `undefined` means "the default for the bound address"; `["*"]` means any. */
  allowedOrigins?: string[];
  allowedHosts?: string[];
  /**
   * --trusted-proxies: addresses and CIDR ranges whose X-Forwarded-For is believed. Absent: none is,
   * and the header is never read.
   */
  trustedProxies?: string[];
  maxSessions: number;
  /** Sessions one authenticated subject may hold (no effect without authorization). */
  maxSessionsPerSubject: number;
  sessionIdleMs: number;
  maxBodyBytes: number;
  /** Bun closes a connection silent this long; keep-alives go out at half of it. */
  idleTimeoutS: number;
  stateless: boolean;
  auth: HttpAuthConfig;
  /** --gateway-auth: no authorization of its own, because a gateway in front does it. */
  gatewayAuth: boolean;
  /**
   * Time from SIGTERM to exit (--shutdown-grace-s): calls in flight may finish within it, and the
   * last telemetry flush gets what is left. Absent: `DEFAULT_SHUTDOWN_GRACE_S`.
   */
  shutdownGraceMs?: number;
}

/** The grace period of `config` in milliseconds: its --shutdown-grace-s, else the default. */
export function shutdownGraceMs(config: Pick<HttpConfig, "shutdownGraceMs">): number {
  return config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_S * 1000;
}

/** Reads the HTTP options; `undefined` when `--http` was not given (serve stdio). */
export function readHttpConfig(values: OptionValues): HttpConfig | undefined {
  const options = readDeclared(httpOptions, values);
  if (options.http === undefined) return undefined;
  const { host, port } = parseListenAddress(options.http) as { host: string; port: number };

  let auth: HttpAuthConfig = { kind: "none" };
  if (options.auth === "jwt") {
    if (!options.issuer) {
      throw new ConfigError(
        "--auth jwt needs --issuer URL (MCPKIT_ISSUER): the authorization server whose tokens this server accepts, e.g. --issuer https://login.example.com/realms/team.",
      );
    }
    auth = {
      kind: "jwt",
      issuer: options.issuer,
      audience: options.audience?.length ? options.audience : undefined,
      jwksUrl: options["jwks-url"],
      requiredScopes: options["required-scopes"] ?? [],
    };
  } else if (options.auth === "oauth") {
    const jwtOnly = (["issuer", "audience", "jwks-url"] as const).filter((name) => options[name] !== undefined);
    if (jwtOnly.length > 0) {
      throw new ConfigError(
        `--${jwtOnly[0]} is for --auth jwt (an external issuer); with --auth oauth mcpkit is the issuer, so drop --${jwtOnly[0]}.`,
      );
    }
    auth = { kind: "oauth", flags: readAuthServerFlags(values), requiredScopes: options["required-scopes"] ?? [] };
  } else {
    const authOnly = (["issuer", "audience", "jwks-url", "required-scopes"] as const).filter(
      (name) => options[name] !== undefined,
    );
    if (authOnly.length > 0) {
      throw new ConfigError(
        `--${authOnly[0]} only applies with --auth jwt; add --auth jwt (MCPKIT_AUTH=jwt) or drop --${authOnly[0]}.`,
      );
    }
    if (!isLoopbackHost(host) && !options["gateway-auth"]) {
      throw new ConfigError(
        `refusing to serve ${host} without authorization: anyone who can reach it could call every tool. Bind to loopback (--http 127.0.0.1:${port}), add --auth jwt --issuer URL (an external authorization server) or --auth oauth (mcpkit signs users in), or, when a gateway in front authorizes every request, say so with --gateway-auth.`,
      );
    }
  }
  if (options["gateway-auth"] && auth.kind !== "none") {
    throw new ConfigError(
      `--gateway-auth says a gateway in front authorizes every request, but --auth ${auth.kind} makes mcpkit do it: keep one of them.`,
    );
  }
  if (
    auth.kind !== "none" &&
    isWildcardHost(host) &&
    !options["public-url"] &&
    !(auth.kind === "jwt" && auth.audience)
  ) {
    throw new ConfigError(
      `--http ${options.http} listens on every interface, so this server cannot tell which URL clients use: pass --public-url URL (MCPKIT_PUBLIC_URL), e.g. --public-url https://mcp.example.com, so tokens are checked for that audience.`,
    );
  }

  return {
    host,
    port,
    publicUrl: options["public-url"],
    allowedOrigins: options["allowed-origins"]?.map((origin) => origin.replace(/\/+$/, "").toLowerCase()),
    allowedHosts: options["allowed-hosts"]?.map((name) => name.toLowerCase()),
    trustedProxies: options["trusted-proxies"]?.length ? options["trusted-proxies"] : undefined,
    maxSessions: options["max-sessions"],
    maxSessionsPerSubject: perSubjectCap(options["max-sessions"], options["max-sessions-per-subject"]),
    sessionIdleMs: options["session-idle-ms"],
    maxBodyBytes: options["max-body-bytes"],
    idleTimeoutS: options["idle-timeout-s"],
    stateless: options.stateless,
    auth,
    gatewayAuth: options["gateway-auth"],
    shutdownGraceMs: options["shutdown-grace-s"] * 1000,
  };
}

/**
 * The most sessions any one user may hold by default: always leaves room for other users (issue 18 F4).
 * The same cap bounds a user's open 2026-07-28 subscriptions, as it bounds a stdio client's.
 */
const DEFAULT_SESSIONS_PER_SUBJECT = SUBSCRIPTIONS_PER_CLIENT;

/**
 * `--max-sessions-per-subject`, or its default: the smaller of 32 and a quarter of `--max-sessions` (at
 * least 1), so one user can never take every slot. A value that would let one user do so is refused.
 */
export function perSubjectCap(maxSessions: number, given: number | undefined): number {
  if (given === undefined) return Math.max(1, Math.min(DEFAULT_SESSIONS_PER_SUBJECT, Math.floor(maxSessions / 4)));
  if (given >= maxSessions && maxSessions > 1) {
    throw new ConfigError(
      `--max-sessions-per-subject ${given} must be below --max-sessions ${maxSessions}, or one user could hold every session and lock everyone else out: pass a smaller value (e.g. ${Math.max(1, Math.floor(maxSessions / 4))}) or drop the flag for the default.`,
    );
  }
  return given;
}
