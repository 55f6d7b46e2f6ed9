/**
 * A SQL store's URL (`postgres://USER:PASSWORD@HOST/DB` or `sqlite:PATH`) in messages: the
 * authorization server's `--state` and BOJ's `--boj-shared-state` both name theirs when it cannot
 * be opened, and neither may show its password.
 */

const POSTGRES = /^postgres(ql)?:\/\//i;

/** The URL with any password replaced, for messages: `postgres://mcpkit:***@db:5432/mcpkit`. */
export function describeStoreUrl(url: string): string {
  if (!POSTGRES.test(url)) return url;
  try {
    const parsed = new URL(url);
    // The parser can read a password as a port and a path ("user:1234/secret@db"): then nothing
    // of it is repeated, as when it cannot parse the URL at all.
    if (!parsed.password && rawPassword(url)) return "postgres://…";
    if (parsed.password) parsed.password = "***";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}

/**
 * Every form in which the password of `url` could appear in a driver's message or a log line: as
 * given (raw characters such as `^` or `|`, which the URL parser percent-encodes), percent-encoded,
 * decoded, and each of those as a JSON string holds it.
 */
export function storeUrlSecrets(url: string): string[] {
  if (!POSTGRES.test(url)) return [];
  const raw = rawPassword(url);
  const encoded = URL.parse(url)?.password;
  const forms = [raw, encoded, encoded && safeDecode(encoded)].filter((form): form is string => !!form);
  return [...new Set(forms.flatMap((form) => [form, JSON.stringify(form).slice(1, -1)]))];
}

/**
 * The password as written: between `USER:` and the last `@`. Read from the text, not the URL
 * parser, which refuses some passwords a driver might still echo (one holding `/` or `#`); a
 * query holding `@` only makes this longer, which hides more, never less.
 */
function rawPassword(url: string): string | undefined {
  const rest = url.replace(POSTGRES, "");
  const userinfo = rest.slice(0, Math.max(rest.lastIndexOf("@"), 0));
  const colon = userinfo.indexOf(":");
  return colon === -1 ? undefined : userinfo.slice(colon + 1);
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** `text` with every form of the URL's password replaced by `***`. */
export function scrubStoreSecrets(url: string, text: string): string {
  // Longest first: a decoded form may be a part of an encoded one.
  const secrets = storeUrlSecrets(url).sort((a, b) => b.length - a.length);
  return secrets.reduce((out, secret) => out.split(secret).join("***"), text);
}

/**
 * `url` with a relative `sqlite:PATH` made absolute by `absolute` (for `mcpkit install`, whose entry a client starts in
 * a folder of its choosing); a Postgres URL, `sqlite::memory:` and an absolute path are returned as they are. The path
 * is read as sql-store.ts opens it: after `sqlite:` and an optional `//`.
 */
export function absoluteStoreUrl(url: string, absolute: (relative: string) => string): string {
  const prefix = /^\s*sqlite:(\/\/)?/i.exec(url)?.[0];
  if (prefix === undefined) return url;
  const file = url.slice(prefix.length).trim();
  if (file === "" || file === ":memory:") return url;
  const made = absolute(file);
  return made === file ? url : `sqlite:${made}`;
}
