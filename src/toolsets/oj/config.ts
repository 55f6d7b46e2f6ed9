import {
  ConfigError,
  type OptionSpec,
  type OptionValues,
  describeOption,
  integerOption,
  readDeclared,
  withoutCredentials,
} from "../../core/options.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface OjConfig {
  /** The origin, never ending in `/` (rule S1.1, §2.1), e.g. `https://craboj.zeabur.app`. */
  baseUrl: string;
  /** Bearer token for every request; `undefined` sends no Authorization header (§3). */
  token?: string;
  /** Whole-request timeout; 30 s by default (the reference's), tests may lower it. */
  timeoutMs: number;
}

export const ojOptions = [
  {
    name: "oj-base-url",
    env: "OJ_BASE_URL",
    kind: "string",
    valueName: "URL",
    help: "origin of the craboj (oj-api-rs) server, e.g. https://craboj.zeabur.app; enables the oj toolset",
    check: (text: string) => {
      const checked = checkBaseUrl(text.trim());
      return checked.ok ? undefined : checked.reason;
    },
  },
  {
    name: "oj-token",
    env: "OJ_TOKEN",
    kind: "string",
    valueName: "TOKEN",
    help: "bearer token sent to the craboj server (needed by get_platform_status); never logged",
    check: tokenRefusal,
    secret: true,
  },
  {
    name: "oj-timeout-ms",
    env: "OJ_TIMEOUT_MS",
    kind: "string",
    valueName: "MS",
    help: "timeout of each request to the craboj server, in milliseconds (at most 30000)",
    schema: integerOption(1, DEFAULT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, "milliseconds"),
  },
] as const satisfies readonly OptionSpec[];

const [baseUrlSpec, tokenSpec] = ojOptions;

export type BaseUrlCheck = { ok: true; baseUrl: string } | { ok: false; reason: string };

/**
 * Rule S1.1 (§2.1): accept `http(s)://host[:port]` with an empty or `/` path and nothing else; return it
 * without the trailing `/`. The reason for a refusal completes "invalid --oj-base-url: …".
 */
export function checkBaseUrl(text: string): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "not a valid URL; give an origin such as https://craboj.zeabur.app" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `the scheme must be http or https, not ${url.protocol.slice(0, -1)}` };
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: "the URL must not carry a user name or password; pass a token with --oj-token instead",
    };
  }
  if (url.pathname !== "/") {
    return {
      ok: false,
      reason: `the URL must be an origin without a path (found "${url.pathname}"); drop everything after the host and port`,
    };
  }
  // WHATWG URL reports an empty `?` or `#` as "", so look at the serialization too.
  if (url.search !== "" || url.hash !== "" || url.href !== `${url.origin}/`) {
    return {
      ok: false,
      reason: "the URL must be an origin without a query or fragment; drop everything after the host and port",
    };
  }
  return { ok: true, baseUrl: url.href.replace(/\/+$/, "") };
}

/** Reads the options; `undefined` means no base URL was given (the toolset stays off by default). */
export function readOjConfig(values: OptionValues): OjConfig | undefined {
  // The timeout is checked even without a base URL so that a typo is never silently ignored.
  // The URL and the token are read by hand: their messages must never repeat a credential.
  const { "oj-timeout-ms": timeoutMs } = readDeclared(ojOptions, values);
  const token = readToken(values[tokenSpec.name]);
  const rawBaseUrl = values[baseUrlSpec.name];
  if (rawBaseUrl === undefined) return undefined;
  if (typeof rawBaseUrl !== "string") throw new ConfigError(`invalid ${describeOption(baseUrlSpec)}: expected one URL`);
  const checked = checkBaseUrl(rawBaseUrl.trim());
  if (!checked.ok) {
    throw new ConfigError(
      `invalid ${describeOption(baseUrlSpec)}: ${checked.reason} (got ${JSON.stringify(withoutCredentials(rawBaseUrl))})`,
    );
  }
  return { baseUrl: checked.baseUrl, token, timeoutMs };
}

/**
 * An empty value counts as "no token" (an `OJ_TOKEN=` line in a config file). A value that
 * cannot travel in an HTTP header is refused at start-up, without echoing it.
 */
function readToken(raw: OptionValues[string]): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw new ConfigError(`invalid ${describeOption(tokenSpec)}: expected one token`);
  const token = raw.trim();
  if (token === "") return undefined;
  const refusal = tokenRefusal(token);
  if (refusal !== undefined) throw new ConfigError(`invalid ${describeOption(tokenSpec)}: ${refusal}`);
  return token;
}

/** Why a token cannot travel in an HTTP header; undefined when it can, or when it is empty (no token). */
function tokenRefusal(text: string): string | undefined {
  return /^[\x21-\x7e]*$/.test(text.trim())
    ? undefined
    : "the token must be printable ASCII without spaces or control characters (value not shown)";
}
