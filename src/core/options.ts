/**
 * Command-line options that are also read from the environment (a flag beats its variable).
 *
 * Each part of mcpkit (the core, each toolset, the HTTP server) declares the options it owns as
 * data; the CLI parses them all in one pass and each part validates its own slice with valibot,
 * so a bad value is reported with the flag and variable that carry it.
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
  /** Default as shown in --help. */
  defaultText?: string;
  /** For `list` options read from the environment. Default: the platform path delimiter. */
  envSeparator?: string;
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
  const got = issue.input === undefined ? "" : ` (got ${JSON.stringify(issue.input)})`;
  throw new ConfigError(`invalid ${where}: ${issue.message}${got}`);
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
    v.transform((text) => text.replace(/\/+$/, "")),
  );
  return fallback === undefined ? v.optional(url) : v.optional(url, fallback);
}
