/**
 * What counts as a secret in a server entry, by structure: what a diff hides of the entry it shows (mask.ts) and what
 * a backup keeps of the entry a change removes (edit.ts) both follow these rules.
 */
import { secretOptionOf } from "./server-options.ts";
import { isTable, type Table } from "./table.ts";

/** Tables whose values are secrets as often as not: a server's environment and its HTTP headers (Codex: http_headers). */
export const SECRET_TABLES = new Set(["env", "headers", "http_headers"]);

/** A key or flag named like a credential: OJ_TOKEN, oj_token, bearer_token, apiKey, --password, --auth… */
export const SECRET_NAME = /token|secret|key|passw|auth|bearer|credential|cookie/i;

/**
 * A flag whose value is the next argument or follows `=`: `--oj-token`, `--api-key`, `--header`, `-H`, or a toolset
 * option declared secret whatever its name (`--boj-shared-state`, a URL with a password).
 */
function isSecretFlag(flag: string): boolean {
  return (
    /^--?[A-Za-z0-9_.-]+$/.test(flag) &&
    (SECRET_NAME.test(flag) || flag === "--header" || flag === "-H" || secretOptionOf(flag) !== undefined)
  );
}

/**
 * A variable set as `NAME=value` whose value is a secret: named like a credential, or a secret option's variable.
 * Wrappers pass the environment this way (`docker run -e OJ_TOKEN=…`, `env OJ_TOKEN=… mcpkit`).
 */
function isSecretVariable(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && (SECRET_NAME.test(name) || secretOptionOf(name) !== undefined);
}

/**
 * `args` with the value of every secret flag replaced by `hidden`: the argument after `--oj-token`, or what follows
 * the `=` of `--oj-token=…` or of a secret variable's `OJ_TOKEN=…`. Other values are kept as they are.
 */
export function hiddenArgs(args: readonly unknown[], hidden: string): unknown[] {
  return args.map((arg, index) => {
    if (typeof arg !== "string") return arg;
    const previous = args[index - 1];
    if (typeof previous === "string" && isSecretFlag(previous)) return hidden;
    const inline = /^([^=]*)=/.exec(arg);
    if (!inline) return arg;
    const secret = inline[1].startsWith("-") ? isSecretFlag(inline[1]) : isSecretVariable(inline[1]);
    return secret ? `${inline[0]}${hidden}` : arg;
  });
}

/**
 * `text` with what a URL, a header line or a variable in it carries hidden: userinfo (`https://u:p@`), every query
 * value (`?access_token=…`), whatever follows `Authorization:` or `Bearer`, and the value of a word `OJ_TOKEN=…` or
 * `--oj-token=…` (a command line written as one string: `env OJ_TOKEN=… mcpkit`).
 */
export function hiddenInText(text: string, hidden: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi, `$1${hidden}@`)
    .replace(/([?&;][^=&#\s]*=)[^&#\s]*/g, `$1${hidden}`)
    .replace(/(authorization\s*:\s*|bearer\s+).*$/gi, `$1${hidden}`)
    .replace(/(^|[\s"'])(-{0,2})([A-Za-z0-9_.-]+)=("[^"]*"|'[^']*'|[^\s"']*)/g, (whole, start, dashes, name) =>
      (dashes === "" ? isSecretVariable(name) : isSecretFlag(`${dashes}${name}`))
        ? `${start}${dashes}${name}=${hidden}`
        : whole,
    );
}

/** An argument that holds a secret: where it is, the secret, and the argument with `hidden` in the secret's place. */
interface SecretArg {
  index: number;
  secret: string;
  hidden: string;
}

/**
 * The arguments of `args` that `hiddenArgs` changes: a whole argument (after `--oj-token`) or what follows the `=`
 * of an inline one (`--oj-token=…`). An argument that already reads as `hidden` is not one.
 */
export function secretArgs(args: readonly unknown[], hidden: string): SecretArg[] {
  const replaced = hiddenArgs(args, hidden);
  return args.flatMap((arg, index) => {
    const shown = replaced[index];
    if (typeof arg !== "string" || typeof shown !== "string" || shown === arg) return [];
    return [{ index, secret: arg.slice(shown.length - hidden.length), hidden: shown }];
  });
}

/**
 * A member of an entry's `env` that holds a secret: a string named like a credential, or a secret option's variable
 * (BOJ_SHARED_STATE), in any case (Windows reads `oj_token` as `OJ_TOKEN`).
 */
export function isSecretEnv(name: string, value: unknown): value is string {
  return typeof value === "string" && (SECRET_NAME.test(name) || secretOptionOf(name) !== undefined);
}

/**
 * `entry` as a backup may keep it once its secrets are removed: every string under its `env` named like a credential
 * (any case: Windows reads `oj_token` as `OJ_TOKEN`) and every secret flag's value in its `args` become `removed`.
 */
export function withoutSecrets(entry: unknown, removed: string): unknown {
  if (!isTable(entry)) return entry;
  const result: Table = { ...entry };
  if (isTable(entry.env))
    result.env = Object.fromEntries(
      Object.entries(entry.env).map(([key, value]) => [key, isSecretEnv(key, value) ? removed : value]),
    );
  if (Array.isArray(entry.args)) result.args = hiddenArgs(entry.args, removed);
  return result;
}

/** The secret strings `withoutSecrets` would remove from `entry`, the empty string left out. */
export function secretsOf(entry: unknown): string[] {
  return heldSecrets(entry).map(({ secret }) => secret);
}

/** Each secret `withoutSecrets` would remove from `entry` (not the empty string), with what holds it: an `env` key or a flag. */
export function heldSecrets(entry: unknown): { holder: string; secret: string }[] {
  if (!isTable(entry)) return [];
  const found: { holder: string; secret: string }[] = [];
  if (isTable(entry.env))
    for (const [key, value] of Object.entries(entry.env))
      if (isSecretEnv(key, value)) found.push({ holder: key, secret: value });
  const args = Array.isArray(entry.args) ? entry.args : [];
  for (const { index, secret } of secretArgs(args, "")) {
    // As hiddenArgs reads it: the value after a secret flag, else the part after `=` of a secret flag.
    const previous = args[index - 1];
    const holder =
      typeof previous === "string" && isSecretFlag(previous) ? previous : String(args[index]).split("=")[0];
    found.push({ holder: holder as string, secret });
  }
  return found.filter(({ secret }) => secret !== "");
}

/** What in `url` is a credential: its user name or password, or a query parameter named like one; undefined if none. */
export function urlCredential(url: string | undefined): string | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.username !== "" || parsed.password !== "") return "a user name or password";
  const name = [...parsed.searchParams.keys()].find((key) => SECRET_NAME.test(key));
  return name === undefined ? undefined : `the query parameter ${JSON.stringify(name)}`;
}
