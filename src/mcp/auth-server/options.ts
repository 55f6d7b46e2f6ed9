/**
 * The flags of `--auth oauth` (declared as data for the CLI) and how they become an
 * `AuthServerConfig`. The HTTP options own `--auth` and `--public-url`; the caller passes the
 * resolved public URL and the scopes of the served tools.
 *
 * Secrets are better given through their environment variables (a flag shows in `ps`).
 */
import { readFileSync } from "node:fs";
import { ConfigError, type OptionValues, readDeclared } from "../../core/options.ts";
import { authServerOptions } from "./flags.ts";

export { authServerOptions };
import type { AuthServerConfig, UpstreamConfig } from "./config.ts";
import { defaultStatePath } from "./store.ts";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `30d`, `12h`, `90m`, `3600s` or plain seconds. */
export function parseDuration(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,9})\s*([smhd]?)$/i.exec(text.trim());
  if (!match)
    throw new ConfigError(`--${flag} ${JSON.stringify(text)} is not a duration; write it like 30d, 12h, 15m or 900s.`);
  return Number(match[1]) * UNIT_SECONDS[(match[2] || "s").toLowerCase()];
}

export function readAuthServerConfig(
  values: OptionValues,
  context: { publicUrl: string; scopesSupported: string[] },
): AuthServerConfig {
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
    publicUrl: context.publicUrl,
    upstream,
    allow: options.allow,
    state: options.state ?? `sqlite:${defaultStatePath()}`,
    stateKey,
    scopesSupported: context.scopesSupported,
    signInLifetimeSeconds: parseDuration("sign-in-lifetime", options["sign-in-lifetime"]),
    identityRecheckSeconds: parseDuration("identity-recheck", options["identity-recheck"]),
    storeTimeoutMs: options["state-timeout-ms"],
  };
}
