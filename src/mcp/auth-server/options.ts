/**
 * How the `--auth oauth` flags (read once, `flags.ts`) become an `AuthServerConfig`: the HTTP
 * server adds its resolved public URL and the scopes of the served tools, and the state store's
 * default location. Loaded only with --auth oauth.
 */
import type { OptionValues } from "../../core/options.ts";
import type { AuthServerConfig } from "./config.ts";
import { type AuthServerFlags, readAuthServerFlags } from "./flags.ts";
import { defaultStatePath } from "./store.ts";

export function authServerConfig(
  flags: AuthServerFlags,
  context: { publicUrl: string; scopesSupported: string[] },
): AuthServerConfig {
  return {
    ...flags,
    publicUrl: context.publicUrl,
    state: flags.state ?? `sqlite:${defaultStatePath()}`,
    scopesSupported: context.scopesSupported,
  };
}

/** The flags read and made a configuration in one step (for embedders and tests that hold raw values). */
export function readAuthServerConfig(
  values: OptionValues,
  context: { publicUrl: string; scopesSupported: string[] },
): AuthServerConfig {
  return authServerConfig(readAuthServerFlags(values), context);
}
