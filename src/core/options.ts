/**
 * Command-line options that are also read from the environment (a flag beats its variable).
 *
 * Each part of mcpkit (the core, each toolset, the HTTP server) declares the options it owns as
 * data, once per flag: name, variable, help and the valibot schema that checks the value and
 * holds its default. The CLI parses them all in one pass and each part reads its own slice
 * (`readDeclared`), so a bad value is reported with the flag and variable that carry it.
 */
import * as v from "valibot";

export interface OptionSpec {
  /** Flag name without the leading dashes, e.g. `boj-base-url`. */
  name: string;
  /** Environment variable that supplies the value when the flag is absent. */
  env?: string;
  /** `string` takes a value, `boolean` is a switch, `list` is repeatable (env: split on `envSeparator`). */
  kind: "string" | "boolean" | "list";
  /** Placeholder shown in --help, e.g. `URL` or `MS`. */
  valueName?: string;
  /** One line for --help. */
  help: string;
  /** Default as shown in --help, when the schema's own default does not say it (see `defaultTextOf`). */
  defaultText?: string;
  /** Checks and converts the raw value, and holds the default (`v.optional(…, default)`). */
  schema?: v.GenericSchema;
  /** For `list` options read from the environment. Default: the platform path delimiter. */
  envSeparator?: string;
  /**
   * The value is a credential: `mcpkit install` writes it to the entry's environment as `env` (which
   * a secret option must have), never to its command line, which `ps` shows to every user.
   */
  secret?: boolean;
  /** The value is a folder that must exist: `mcpkit install` writes it absolute, since a client starts the server elsewhere. */
  directory?: boolean;
  /**
   * The value names a file or folder that need not exist yet (`DIR|off`, `sqlite:PATH`): what to write for it, given
   * `absolute`, which makes a relative path absolute against the folder `mcpkit install` runs in. A client starts the
   * server in a folder of its choosing, where a relative path would name another file; special values (`off`,
   * `:memory:`, a Postgres URL) are returned as they are.
   */
  path?: (value: string, absolute: (relative: string) => string) => string;
  /**
   * Why a value is refused, for an option its owner reads by hand rather than through `schema`, so
   * that `mcpkit install` refuses what the server would; undefined when accepted. Never repeats the value.
   */
  check?: (value: string) => string | undefined;
}

/** Raw option values after flags and environment were merged; absent options are `undefined`. */
export type OptionValues = Record<string, string | string[] | boolean | undefined>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** `--boj-timeout-ms (BOJ_TIMEOUT_MS)` — how messages name an option. */
export function describeOption(spec: Pick<OptionSpec, "name" | "env">): string {
  return spec.env ? `--${spec.name} (${spec.env})` : `--${spec.name}`;
}

/**
 * Validates the slice of `values` named by `specs` against `schema` (an object schema keyed by
 * option name). On failure throws a ConfigError naming the option, the bad value and the fix.
 */
export function readOptions<S extends v.GenericSchema<Record<string, unknown>, unknown>>(
  schema: S,
  specs: readonly OptionSpec[],
  values: OptionValues,
): v.InferOutput<S> {
  const slice: Record<string, unknown> = {};
  for (const spec of specs) if (values[spec.name] !== undefined) slice[spec.name] = values[spec.name];
  const parsed = v.safeParse(schema, slice);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const key = issue.path?.[0]?.key;
  const spec = specs.find((s) => s.name === key);
  const where = spec ? describeOption(spec) : "configuration";
  const shown = typeof issue.input === "string" ? withoutCredentials(issue.input) : issue.input;
  // A secret's value is never repeated, not even a short wrong one (it may be the real one, mistyped).
  const got = issue.input === undefined ? "" : spec?.secret ? " (value not shown)" : ` (got ${JSON.stringify(shown)})`;
  throw new ConfigError(`invalid ${where}: ${issue.message}${got}`);
}

/**
 * A value as a message repeats it, with what could be a credential masked. Everything up to its
 * last `@`: the user name and password of a URL (`ftp://user:pw@host` is refused, and must not be
 * printed whole), whatever form the URL parser accepts them in (`https:user:pw@host` and
 * `https:/user:pw@host` have no `//`). Each query value (`?key=…`, a bare `?…`) and the fragment:
 * API keys and tokens travel there (`?key=SECRET`, `#access_token=…`). Masking too much of an odd
 * value costs nothing; masking too little would print a password.
 */
export function withoutCredentials(text: string): string {
  const at = text.lastIndexOf("@");
  // An `@` after a `?` or `#` (`?email=a@b&key=…`): all that follows it may be query, so none of it shows.
  if (at !== -1 && /[?#]/.test(text.slice(0, at))) return "***@***";
  const rest = at === -1 ? text : `***@${text.slice(at + 1)}`;
  const hash = rest.indexOf("#");
  const body = hash === -1 ? rest : rest.slice(0, hash);
  const fragment = hash === -1 ? "" : "#***";
  const question = body.indexOf("?");
  if (question === -1) return body + fragment;
  // Parameter names stay, so the message still shows which were given; their values go.
  const query = body
    .slice(question + 1)
    .split("&")
    .map((part) => (part === "" ? part : part.includes("=") ? `${part.slice(0, part.indexOf("="))}=***` : "***"))
    .join("&");
  return `${body.slice(0, question + 1)}${query}${fragment}`;
}

/** The values of declared options, typed by flag name from each option's schema. */
export type OptionsOf<T extends readonly OptionSpec[]> = {
  [O in T[number] as O["name"]]: O extends { schema: infer S extends v.GenericSchema } ? v.InferOutput<S> : never;
};

/** Reads the options `specs` declare (those with a schema) from `values`; a bad one is a ConfigError naming it. */
export function readDeclared<const T extends readonly OptionSpec[]>(specs: T, values: OptionValues): OptionsOf<T> {
  const entries = specs.flatMap((spec) => (spec.schema ? [[spec.name, spec.schema] as const] : []));
  return readOptions(v.object(Object.fromEntries(entries)), specs, values) as OptionsOf<T>;
}

/**
 * Why the server would refuse `value` for `spec` (its `check`, then its schema), for `mcpkit install`
 * to refuse it before writing it into a client's config; undefined when it is accepted.
 */
export function refusalOf(spec: OptionSpec, value: string | string[] | boolean): string | undefined {
  const checked = typeof value === "string" ? spec.check?.(value) : undefined;
  if (checked !== undefined || !spec.schema) return checked;
  const parsed = v.safeParse(spec.schema, value);
  return parsed.success ? undefined : parsed.issues[0].message;
}

/** The default --help shows: the declared text, else the schema's own default when it is a plain value. */
export function defaultTextOf(spec: OptionSpec): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (!spec.schema) return undefined;
  const fallback = v.getDefault(spec.schema as v.OptionalSchema<v.GenericSchema, unknown>);
  return typeof fallback === "string" || typeof fallback === "number" ? String(fallback) : undefined;
}

// Reusable option schemas. Their messages complete the sentence "invalid --flag (ENV): …".

/** A whole number given as text, within [min, max]. */
export function integerOption(min: number, max: number, fallback: number, unit = "") {
  const what = `a whole number${unit ? ` of ${unit}` : ""} from ${min} to ${max}`;
  return v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^\d+$/, `expected ${what}`),
      v.transform(Number),
      v.number(),
      v.minValue(min, `expected ${what}`),
      v.maxValue(max, `expected ${what}`),
    ),
    String(fallback),
  );
}

/** An http(s) URL; returned without a trailing slash. */
export function httpUrlOption(fallback?: string) {
  const url = v.pipe(
    v.string(),
    v.trim(),
    v.check((text) => {
      try {
        const parsed = new URL(text);
        return parsed.protocol === "http:" || parsed.protocol === "https:";
      } catch {
        return false;
      }
    }, "expected an absolute http:// or https:// URL"),
    // A password in the URL would show wherever the URL does: logs, `ps`, BOJ's shared state.
    v.check((text) => {
      const parsed = URL.parse(text);
      return parsed?.username === "" && parsed.password === "";
    }, "the URL must not carry a user name or password; give the URL without `user:password@`"),
    v.transform((text) => text.replace(/\/+$/, "")),
  );
  return fallback === undefined ? v.optional(url) : v.optional(url, fallback);
}

/** A switch: `true` from the flag; its environment variable may say 1/true/yes/on. */
export function switchOption() {
  return v.optional(
    v.union([
      v.boolean(),
      v.pipe(
        v.string(),
        v.transform((text) => /^(1|true|yes|on)$/i.test(text.trim())),
      ),
    ]),
    false,
  );
}
