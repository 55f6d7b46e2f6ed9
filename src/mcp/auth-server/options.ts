/**
 * The flags of `--auth oauth` (declared as data for the CLI) and how they become an
 * `AuthServerConfig`. The HTTP options own `--auth` and `--public-url`; the caller passes the
 * resolved public URL and the scopes of the served tools.
 *
 * Secrets are better given through their environment variables (a flag shows in `ps`).
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { ConfigError, type OptionSpec, type OptionValues, httpUrlOption, readOptions } from "../../core/options.ts";
import type { AuthServerConfig, UpstreamConfig } from "./config.ts";
import { defaultStatePath } from "./store.ts";

export const authServerOptions: OptionSpec[] = [
  {
    name: "upstream-issuer",
    env: "MCPKIT_UPSTREAM_ISSUER",
    kind: "string",
    valueName: "URL",
    help: "with --auth oauth: the OpenID Connect issuer users sign in at (Keycloak realm, Google, Entra, Auth0…)",
  },
  {
    name: "upstream-client-id",
    env: "MCPKIT_UPSTREAM_CLIENT_ID",
    kind: "string",
    valueName: "ID",
    help: "mcpkit's client ID at the upstream issuer",
  },
  {
    name: "upstream-client-secret",
    env: "MCPKIT_UPSTREAM_CLIENT_SECRET",
    kind: "string",
    valueName: "SECRET",
    help: "mcpkit's client secret at the upstream issuer (omit for a public client)",
  },
  {
    name: "github-client-id",
    env: "MCPKIT_GITHUB_CLIENT_ID",
    kind: "string",
    valueName: "ID",
    help: "with --auth oauth: sign users in with this GitHub OAuth app instead of an OIDC issuer",
  },
  {
    name: "github-client-secret",
    env: "MCPKIT_GITHUB_CLIENT_SECRET",
    kind: "string",
    valueName: "SECRET",
    help: "the GitHub OAuth app's client secret",
  },
  {
    name: "allow",
    env: "MCPKIT_ALLOW",
    kind: "list",
    envSeparator: " ",
    valueName: "WHO=SCOPES",
    help: "who may sign in and with which scopes, repeatable: alice@example.com=*, *@example.com=boj:read,fs:read, github-org:acme=*:read (default: nobody)",
  },
  {
    name: "state",
    env: "MCPKIT_STATE",
    kind: "string",
    valueName: "sqlite:PATH|postgres://…",
    help: "where clients, grants and keys are kept",
    defaultText: "sqlite:$XDG_STATE_HOME/mcpkit/auth.db",
  },
  {
    name: "state-key",
    env: "MCPKIT_STATE_KEY",
    kind: "string",
    valueName: "HEX",
    help: "32-byte key (64 hex digits) encrypting secrets at rest and signing cookies; required with Postgres",
    defaultText: "a key file next to the SQLite database",
  },
  {
    name: "state-key-file",
    env: "MCPKIT_STATE_KEY_FILE",
    kind: "string",
    valueName: "PATH",
    help: "read --state-key from this file",
  },
];

const text = v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty")));

const schema = v.object({
  "upstream-issuer": httpUrlOption(),
  "upstream-client-id": text,
  "upstream-client-secret": text,
  "github-client-id": text,
  "github-client-secret": text,
  allow: v.optional(v.array(v.string()), []),
  state: text,
  "state-key": text,
  "state-key-file": text,
});

export function readAuthServerConfig(
  values: OptionValues,
  context: { publicUrl: string; scopesSupported: string[] },
): AuthServerConfig {
  const options = readOptions(schema, authServerOptions, values);
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
    publicUrl: context.publicUrl,
    upstream,
    allow: options.allow,
    state: options.state ?? `sqlite:${defaultStatePath()}`,
    stateKey,
    scopesSupported: context.scopesSupported,
  };
}
