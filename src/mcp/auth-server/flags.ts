/**
 * The flags of `--auth oauth`, declared once (name, variable, help, schema): the CLI lists them in
 * --help on every start, so this file imports nothing of the authorization server (its code loads
 * only with --auth oauth).
 * Secrets are better given through their environment variables (a flag shows in `ps`).
 */
import * as v from "valibot";
import { type OptionSpec, httpUrlOption, integerOption } from "../../core/options.ts";

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
