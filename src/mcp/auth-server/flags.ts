/**
 * The flags of `--auth oauth`, declared once (name, variable, help, schema) and read once into
 * `AuthServerFlags`: the CLI lists them in --help on every start and the HTTP options read them with
 * the rest, so this file imports nothing of the authorization server (its code loads only with
 * --auth oauth).
 * Secrets are better given through their environment variables (a flag shows in `ps`).
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import {
  ConfigError,
  type OptionSpec,
  type OptionValues,
  httpUrlOption,
  integerOption,
  readDeclared,
} from "../../core/options.ts";

const text = v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty")));

/** How long one query to the state store may take before the request answers 503 (a store that stopped answering). */
export const DEFAULT_STATE_TIMEOUT_MS = 5000;

export const authServerOptions = [
  {
    name: "upstream-issuer",
    env: "MCPKIT_UPSTREAM_ISSUER",
    kind: "string",
    valueName: "URL",
    help: "with --auth oauth: the OpenID Connect issuer users sign in at (Keycloak realm, Google, Entra, Auth0…)",
    schema: httpUrlOption(),
  },
  {
    name: "upstream-client-id",
    env: "MCPKIT_UPSTREAM_CLIENT_ID",
    kind: "string",
    valueName: "ID",
    help: "mcpkit's client ID at the upstream issuer",
    schema: text,
  },
  {
    name: "upstream-client-secret",
    env: "MCPKIT_UPSTREAM_CLIENT_SECRET",
    kind: "string",
    valueName: "SECRET",
    help: "mcpkit's client secret at the upstream issuer (omit for a public client)",
    schema: text,
  },
  {
    name: "github-client-id",
    env: "MCPKIT_GITHUB_CLIENT_ID",
    kind: "string",
    valueName: "ID",
    help: "with --auth oauth: sign users in with this GitHub OAuth app instead of an OIDC issuer",
    schema: text,
  },
  {
    name: "github-client-secret",
    env: "MCPKIT_GITHUB_CLIENT_SECRET",
    kind: "string",
    valueName: "SECRET",
    help: "the GitHub OAuth app's client secret",
    schema: text,
  },
  {
    name: "allow",
    env: "MCPKIT_ALLOW",
    kind: "list",
    envSeparator: " ",
    valueName: "WHO=SCOPES",
    help: "who may sign in and with which scopes, repeatable: alice@example.com=*, *@example.com=boj:read,fs:read, github-org:acme=*:read (default: nobody)",
    schema: v.optional(v.array(v.string()), []),
  },
  {
    name: "state",
    env: "MCPKIT_STATE",
    kind: "string",
    valueName: "sqlite:PATH|postgres://…",
    help: "where clients, grants and keys are kept",
    defaultText: "sqlite:$XDG_STATE_HOME/mcpkit/auth.db",
    schema: text,
  },
  {
    name: "state-key",
    env: "MCPKIT_STATE_KEY",
    kind: "string",
    valueName: "HEX",
    help: "32-byte key (64 hex digits) encrypting secrets at rest and signing cookies; required with Postgres",
    defaultText: "a key file next to the SQLite database",
    schema: text,
  },
  {
    name: "state-key-file",
    env: "MCPKIT_STATE_KEY_FILE",
    kind: "string",
    valueName: "PATH",
    help: "read --state-key from this file",
    schema: text,
  },
  {
    name: "sign-in-lifetime",
    env: "MCPKIT_SIGN_IN_LIFETIME",
    kind: "string",
    valueName: "DURATION",
    help: "how long a sign-in lasts from the moment the user signed in at the identity provider, whatever the refreshes (30d, 12h, 90m, 3600s)",
    defaultText: "30d",
    schema: text,
  },
  {
    name: "identity-recheck",
    env: "MCPKIT_IDENTITY_RECHECK",
    kind: "string",
    valueName: "DURATION",
    help: "how often a token refresh asks the identity provider again who the user is, so someone removed there or from --allow loses access (0 = never)",
    defaultText: "15m",
    schema: text,
  },
  {
    name: "state-timeout-ms",
    env: "MCPKIT_STATE_TIMEOUT_MS",
    kind: "string",
    valueName: "MS",
    help: "how long one query to the --state store may take; a store that does not answer in time (a dropped network) gets the request 503 + Retry-After instead of a hang",
    schema: integerOption(100, 60_000, DEFAULT_STATE_TIMEOUT_MS, "milliseconds"),
  },
] as const satisfies readonly OptionSpec[];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `30d`, `12h`, `90m`, `3600s` or plain seconds. */
function parseDuration(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,9})\s*([smhd]?)$/i.exec(text.trim());
  if (!match)
    throw new ConfigError(`--${flag} ${JSON.stringify(text)} is not a duration; write it like 30d, 12h, 15m or 900s.`);
  return Number(match[1]) * UNIT_SECONDS[(match[2] || "s").toLowerCase()];
}

/**
 * The `--auth oauth` flags, read once (the HTTP options do it with the rest): everything of an
 * `AuthServerConfig` but what only the running server knows, its public URL and the tools' scopes.
 * `state` is left unset when not given: its default lives beside the store, which loads only with
 * --auth oauth.
 */
export interface AuthServerFlags {
  upstream: UpstreamConfig;
  /** Access policy rules (`alice@example.com=*`, `*@example.com=boj:read,fs:read`, `github-org:acme=*:read`). */
  allow: string[];
  /** `sqlite:PATH` or `postgres://…`. */
  state?: string;
  /**
   * 32 bytes (64 hex digits or base64/base64url) that encrypt upstream tokens and signing keys at
   * rest and sign browser cookies. Required with Postgres (every instance needs the same key); with
   * SQLite it defaults to a key file created next to the database.
   */
  stateKey?: string;
  /** How long a sign-in lasts, counted from the sign-in at the IdP (refreshes do not extend it). */
  signInLifetimeSeconds?: number;
  /** How often a refresh asks the IdP again who the user is (0: never). */
  identityRecheckSeconds?: number;
  /** How long one state-store call may take before the request answers 503 (default 5000 ms). */
  storeTimeoutMs?: number;
}

export type UpstreamConfig =
  | { kind: "oidc"; issuer: string; clientId: string; clientSecret?: string; scopes?: string[] }
  | { kind: "github"; clientId: string; clientSecret: string; apiBase?: string; authorizeBase?: string };

export function readAuthServerFlags(values: OptionValues): AuthServerFlags {
  const options = readDeclared(authServerOptions, values);
  let upstream: UpstreamConfig;
  if (options["upstream-issuer"] && options["github-client-id"]) {
    throw new ConfigError("--upstream-issuer and --github-client-id name two identity providers; keep one.");
  }
  if (options["github-client-id"]) {
    if (!options["github-client-secret"])
      throw new ConfigError(
        "--github-client-id needs --github-client-secret (MCPKIT_GITHUB_CLIENT_SECRET), from the GitHub OAuth app's settings.",
      );
    upstream = { kind: "github", clientId: options["github-client-id"], clientSecret: options["github-client-secret"] };
  } else if (options["upstream-issuer"]) {
    if (!options["upstream-client-id"])
      throw new ConfigError(
        "--upstream-issuer needs --upstream-client-id (MCPKIT_UPSTREAM_CLIENT_ID): mcpkit's client at that issuer.",
      );
    upstream = {
      kind: "oidc",
      issuer: options["upstream-issuer"],
      clientId: options["upstream-client-id"],
      clientSecret: options["upstream-client-secret"],
    };
  } else {
    throw new ConfigError(
      "--auth oauth needs an identity provider: --upstream-issuer URL --upstream-client-id ID (OpenID Connect), or --github-client-id ID --github-client-secret SECRET.",
    );
  }
  let stateKey = options["state-key"];
  if (!stateKey && options["state-key-file"]) {
    try {
      stateKey = readFileSync(options["state-key-file"], "utf8").trim();
    } catch {
      throw new ConfigError(
        `--state-key-file ${options["state-key-file"]} cannot be read; check the path and its permissions.`,
      );
    }
  }
  return {
    upstream,
    allow: options.allow,
    state: options.state,
    stateKey,
    signInLifetimeSeconds: parseDuration("sign-in-lifetime", options["sign-in-lifetime"]),
    identityRecheckSeconds: parseDuration("identity-recheck", options["identity-recheck"]),
    storeTimeoutMs: options["state-timeout-ms"],
  };
}
