/** `mcpkit install <client>` / `mcpkit uninstall <client>`: add or remove this binary in a client's MCP config. */
import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "../../core/options.ts";
import { type Edit, UnreadableConfig, withoutBom } from "./edit.ts";
import { editJson, parseJsonc } from "./edit-json.ts";
import { editToml } from "./edit-toml.ts";
import { clientEntry, installLink, type ServerSpec, serversKey } from "./entry.ts";
import { REDACTED, shownConfig } from "./mask.ts";
import { heldSecrets, secretsOf, urlCredential } from "./secrets.ts";
import { selfCommand } from "./self.ts";
import {
  SERVER_OPTIONS,
  type ServerValues,
  secretOptionOf,
  serverArgs,
  serverOption,
  serverOptionsHelp,
} from "./server-options.ts";
import { type Table, valueAt } from "./table.ts";
import { unifiedDiff } from "./diff.ts";
import { CLIENTS, type Client, type Host, configPath, homeDir, isClient } from "./paths.ts";
import { type Place, uninstallPlaces } from "./places.ts";
import { withLock } from "./lock.ts";
import { ChangedMeanwhile, checkFolder, configTarget, readConfig, WriteRefused, writeAtomically } from "./write.ts";

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/** Built when asked for: the toolset options part wraps every declared option's help. */
const installHelp = (): string => `Usage:
  mcpkit install CLIENT [options]     add mcpkit to CLIENT's MCP configuration (user level)
  mcpkit uninstall CLIENT [options]   remove that entry from every file CLIENT loads in this folder
  mcpkit install --link cursor|vscode [options]   print a one-click install link instead

CLIENT is one of: ${CLIENTS.join(", ")}.

Options:
  --http URL                point the client at a running mcpkit HTTP server instead of launching one; with
                            --link, refused when it carries a user name, password or ?token=-like parameter
  --name NAME               the entry's name. Default: mcpkit
  --config PATH             edit this file instead of the client's usual one
  --dry-run                 print the change as a unified diff and write nothing: the servers list alone,
                            other servers by name, every secret of the entry shown as [redacted]

Server options, written into the entry as the server reads them ('mcpkit --help'), each refused here when the
server would refuse it; a flag given twice keeps its last value, unless it is repeatable:
${serverOptionsHelp()}

Exit codes: 0 written, or nothing to change; 1 the file cannot be read, parsed or written (nothing changed);
2 usage: an unknown client or flag, a missing root, a value the server would refuse.
`;

interface Request {
  verb: "install" | "uninstall";
  client?: string;
  link: boolean;
  dryRun: boolean;
  help: boolean;
  name: string;
  config?: string;
  /** The server options given (`server-options.ts`), by name. */
  server: ServerValues;
  http?: string;
}

/** install's own options that take a value; the server's options come from their declarations. */
const VALUE_FLAGS = ["http", "name", "config"] as const;

/** A dash other than '-' that a keyboard or a word processor puts in its place: hyphens, en and em dash, minus signs. */
const NOT_ASCII_DASH = /^[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/u;

/**
 * A word that reads as a mistyped option (`-oj-token`, `—oj-token`), named without what follows its `=`. A mistyped
 * option's value is often a token, so it is refused at the option, before its value is read as a stray argument.
 */
function mistypedOption(arg: string, verb: Request["verb"]): ConfigError {
  const name = arg.split("=")[0];
  const shown = /^\S{1,40}$/u.test(name) ? ` ${name}` : "";
  return new ConfigError(
    `unknown option${shown} for '${verb}': options start with two ASCII dashes, e.g. --oj-token (run 'mcpkit install --help')`,
  );
}

function parseArgs(verb: Request["verb"], argv: readonly string[]): Request {
  const request: Request = { verb, link: false, dryRun: false, help: false, name: "mcpkit", server: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") request.help = true;
    else if (arg === "--dry-run") request.dryRun = true;
    else if (arg === "--link") request.link = true;
    else if (arg.startsWith("--")) {
      const [flag, inline] = arg.slice(2).split(/=(.*)/s, 2);
      const server = serverOption(flag);
      if (!server && !(VALUE_FLAGS as readonly string[]).includes(flag))
        throw new ConfigError(`unknown option --${flag} for '${verb}' (run 'mcpkit install --help')`);
      const value = server?.kind === "boolean" ? (inline ?? "true") : (inline ?? argv[++i]);
      if (value === undefined || value === "") throw new ConfigError(`--${flag} needs a value`);
      if (server) request.server.set(flag, [...(request.server.get(flag) ?? []), value]);
      else setValue(request, flag as (typeof VALUE_FLAGS)[number], value);
    } else if ((arg.startsWith("-") && arg !== "-") || NOT_ASCII_DASH.test(arg)) throw mistypedOption(arg, verb);
    else if (request.client === undefined) request.client = arg;
    // Not quoted: a stray word may be a token whose option was mistyped or left out.
    else throw new ConfigError(`unexpected argument (word ${i + 1} after '${verb}', not shown); name one client`);
  }
  return request;
}

function setValue(request: Request, flag: (typeof VALUE_FLAGS)[number], value: string): void {
  if (flag === "http") request.http = value;
  else if (flag === "name") request.name = value;
  else request.config = value;
}

function expandHome(value: string, host: Host): string {
  if (value === "~" || value.startsWith("~/") || value.startsWith("~\\"))
    return path.join(homeDir(host), value.slice(1));
  return value;
}

function serverSpec(request: Request, host: Host): ServerSpec {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(request.name))
    throw new ConfigError(`--name "${request.name}" must match ^[A-Za-z0-9_-]{1,64}$`);
  if (request.http !== undefined) {
    if (request.server.size > 0)
      throw new ConfigError(
        `--http URL points the client at a running server; give ${[...request.server.keys()].map((flag) => `--${flag}`).join(", ")} to that server instead`,
      );
    if (!URL.canParse(request.http))
      // Not quoted: a URL mistyped may still hold a credential (h/mcp?token=…).
      throw new ConfigError("--http needs a whole URL, with its scheme, e.g. http://127.0.0.1:8080/mcp");
    return { command: "", args: [], env: {}, url: request.http };
  }
  const self = selfCommand(host.env.PATH);
  // A client starts the server in a folder of its choosing, so a relative folder would name another one.
  const { args, env } = serverArgs(request.server, {
    folder: (flag, folder) => {
      const absolute = path.resolve(expandHome(folder, host));
      if (!fs.statSync(absolute, { throwIfNoEntry: false })?.isDirectory())
        throw new ConfigError(`${flag} ${folder}: no such directory (${absolute}); create it or fix the path`);
      return absolute;
    },
    // A path already absolute is kept as typed, so that an entry written before stays byte for byte.
    absolute: (relative) => (path.isAbsolute(relative) ? relative : path.resolve(expandHome(relative, host))),
  });
  return { command: self.command, args: [...self.args, ...args], env };
}

/** The file after the change, for the client's format. */
function edited(client: Client, text: string, place: Place, name: string, spec: ServerSpec | undefined): Edit {
  const { file, at } = place;
  // A byte order mark and CRLF throughout (Windows editors write both) are kept, new lines included.
  const body = withoutBom(text);
  const bom = text.slice(0, text.length - body.length);
  const crlf = body.includes("\r\n") && !/(^|[^\r])\n/.test(body);
  const source = crlf ? body.replaceAll("\r\n", "\n") : body;
  const entry = spec && clientEntry(client, spec);
  const result = client === "codex" ? editToml(source, file, name, entry) : editJson(source, file, at, name, entry);
  if (!result.changed) return { text, changed: false };
  if (!crlf && bom === "") return result;
  const restored = (lf: string) => bom + (crlf ? lf.replaceAll("\n", "\r\n") : lf);
  return { ...result, text: restored(result.text), ...(result.backup ? { backup: restored(result.backup) } : {}) };
}

/** What became of the file before the edit (`Edit.backup`), for the line that reports it. */
function backupNote(
  before: string | undefined,
  backup: string | null | undefined,
  change: Change,
  removed: boolean,
): string {
  if (before === undefined) return ""; // a new file: nothing to back up
  if (backup === null) {
    const older = removed ? `; the older ${change.place.file}.bak is removed, as it may hold it too` : "";
    return ` (no backup: it would have kept the ${retiredSecrets(before, change)}${older})`;
  }
  const without = backup === undefined ? "" : `, without the ${retiredSecrets(before, change)} it held`;
  return ` (backup: ${change.place.file}.bak${without})`;
}

/** One file's change: our entry, in one place, set to `spec` (undefined: removed). */
interface Change {
  client: Client;
  place: Place;
  name: string;
  spec: ServerSpec | undefined;
}

/**
 * The secrets of our entry in `before` that the change drops, named as the server reads them (OJ_TOKEN, for
 * `--oj-token …` or an `oj_token` variable) or else as written, e.g. "OJ_TOKEN and MCPKIT_FS_CURSOR_SECRET".
 */
function retiredSecrets(before: string, { client, place, name, spec }: Change): string {
  const codex = client === "codex";
  const doc = codex ? (Bun.TOML.parse(withoutBom(before)) as Table) : parseJsonc(withoutBom(before), place.file);
  const kept = secretsOf(spec && clientEntry(client, spec));
  // Codex's one TOML file keeps its servers under mcp_servers (edit-toml.ts), whatever the place says.
  const names = (codex ? [["mcp_servers"]] : place.at)
    .flatMap((keys) => heldSecrets(valueAt(doc, keys)?.[name]))
    .filter(({ secret }) => !kept.includes(secret))
    .map(({ holder }) => secretOptionOf(holder)?.env ?? holder);
  const unique = [...new Set(names)];
  return unique.length === 0 ? "secret" : [unique.slice(0, -1).join(", "), unique.at(-1)].filter(Boolean).join(" and ");
}

/** The secret options given, as written: what must not appear in anything install prints. */
function secretValues(request: Request): string[] {
  return SERVER_OPTIONS.flatMap((spec) => (spec.secret ? (request.server.get(spec.name) ?? []) : []));
}

/**
 * The link for `client` on stdout; secret options stay out of it, since anyone who sees a link can read what it
 * carries, and a --http URL with a credential in it is refused.
 */
function printLink(client: "cursor" | "vscode", request: Request, host: Host): number {
  const spec = serverSpec(request, host);
  const credential = urlCredential(spec.url);
  if (credential)
    throw new ConfigError(
      `--link would show the --http URL's ${credential} to anyone who sees the link; leave it out of the URL, or write it to the config with 'mcpkit install ${client} --http URL'`,
    );
  process.stdout.write(`${installLink(client, request.name, { ...spec, env: {} })}\n`);
  const left = SERVER_OPTIONS.filter((option) => option.secret && option.env && request.server.has(option.name));
  if (left.length > 0) {
    const flags = left.map((option) => `--${option.name}`).join(" and ");
    const typed = left.map((option) => `--${option.name} …`).join(" ");
    const variables = left.map((option) => `"${option.env}": "…"`).join(", ");
    process.stderr.write(
      `mcpkit install: the link leaves out ${flags}; to store ${left.length === 1 ? "it" : "them"}, run 'mcpkit install ${client} ${typed}' instead, or add "env": { ${variables} } to the "${request.name}" entry once the editor has added it\n`,
    );
  }
  return EXIT_OK;
}

/** A character that continues a word of a path or a name (`.cursor/mcp.json`, `mcpkit`). */
const WORD = String.raw`[\w./~+%-]`;

/**
 * `text` with each secret given replaced by `[redacted]`, as typed or JSON-escaped. The diff hides secrets by
 * structure (mask.ts) and no message repeats a value, so this is a net for a secret echoed anywhere else. A secret
 * of 8 characters or more is replaced wherever it appears; a shorter one only where it stands alone, not inside a
 * path or a name: replacing every 'mcp' printed '.cursor/[redacted].json: added "[redacted]kit"', which hid nothing
 * (the file and the entry are not secrets) and made the line unreadable.
 */
function redacted(text: string, secrets: string[]): string {
  return secrets
    .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)])
    .filter((secret) => secret !== "")
    .reduce((out, secret) => {
      if (secret.length >= 8) return out.split(secret).join(REDACTED);
      const alone = new RegExp(`(?<!${WORD})${RegExp.escape(secret)}(?!${WORD})`, "g");
      return out.replace(alone, REDACTED);
    }, text);
}

export async function runInstall(verb: Request["verb"], argv: readonly string[], env: Host["env"]): Promise<number> {
  const out = (text: string) => process.stdout.write(text);
  let secrets: string[] = [];
  const redact = (text: string) => redacted(text, secrets);
  try {
    const request = parseArgs(verb, argv);
    secrets = secretValues(request);
    if (request.help) {
      out(installHelp());
      return EXIT_OK;
    }
    const host: Host = { platform: process.platform, env };
    if (request.client === undefined) throw new ConfigError(`name a client: mcpkit ${verb} ${CLIENTS.join("|")}`);
    if (!isClient(request.client))
      // Not quoted, as a stray argument is not: `install --oj-token cursor TOKEN` puts the token here.
      throw new ConfigError(`unknown client (not shown); expected one of ${CLIENTS.join(", ")}`);
    const client = request.client;
    if (request.link) {
      if (client !== "cursor" && client !== "vscode") throw new ConfigError("--link is for cursor or vscode");
      return printLink(client, request, host);
    }
    const spec = verb === "install" ? serverSpec(request, host) : undefined;
    const at = [[serversKey(client)]];
    const places = request.config
      ? [{ file: path.resolve(expandHome(request.config, host)), at }]
      : spec
        ? [{ file: configPath(client, host), at }]
        : uninstallPlaces(client, host, process.cwd());
    const options = { client, name: request.name, spec, dryRun: request.dryRun, out: (t: string) => out(redact(t)) };
    return applyAll(
      places.map((place) => ({ ...place, file: configTarget(place.file) })),
      options,
    );
  } catch (error) {
    const usage = error instanceof ConfigError;
    const known = usage || error instanceof UnreadableConfig || error instanceof WriteRefused;
    const message = known ? (error as Error).message : `cannot ${verb}: ${(error as Error).message}`;
    process.stderr.write(`mcpkit ${verb}: ${redact(message)}\n`);
    return usage ? EXIT_USAGE : EXIT_FAILED;
  }
}

/** The change as a diff of the servers tables alone, every secret masked and other servers by name (mask.ts). */
function shownDiff(client: Client, place: Place, name: string, before: string, after: string): string {
  const format = client === "codex" ? "toml" : "json";
  const [a, b] = [before, after].map((text) => shownConfig(text, format, place.at, name));
  if (a === b) return `${place.file}: only values shown as ${REDACTED} would change\n`;
  return unifiedDiff(place.file, a, b);
}

interface Apply {
  client: Client;
  name: string;
  spec: ServerSpec | undefined;
  dryRun: boolean;
  out: (text: string) => void;
}

/** Installs into the one place, or uninstalls from every place; each file changed says so in a line of its own. */
function applyAll(places: Place[], options: Apply): number {
  const { client, name, spec, out } = options;
  // Every file is read and edited before any is written: one that cannot be parsed leaves them all as they were.
  // Only a file that changes is locked (the lock would create a missing folder, such as ./.gemini).
  const toChange = places.filter(
    (place) => edited(client, readConfig(place.file)?.text ?? "", place, name, spec).changed,
  );
  // A file in a folder another user can change is refused before anything is written (writeAtomically checks again).
  for (const place of toChange) checkFolder(place.file, true);
  const changed = toChange.filter((place) => applyTo(place, options));
  if (changed.length > 0) return EXIT_OK;
  const files = places.map((place) => place.file).join(", ");
  out(
    spec
      ? `${files}: "${name}" is already up to date; nothing changed\n`
      : `no "${name}" entry in ${files}; nothing changed\n`,
  );
  return EXIT_OK;
}

/** Makes the change in `place`'s file, or prints it as a diff; false when there is nothing to change. */
function applyTo(place: Place, { client, name, spec, dryRun, out }: Apply): boolean {
  const { file } = place;
  const change = () => {
    const before = readConfig(file)?.text;
    const result = edited(client, before ?? "", place, name, spec);
    if (!result.changed) return false;
    const whole = result.removeFile ? " and the file, which held nothing else" : "";
    if (dryRun) {
      out(shownDiff(client, place, name, before ?? "", result.text));
      if (whole) out(`${file}: would be removed, holding nothing else\n`);
      return true;
    }
    // install puts only secret options in the entry's env.
    const secret = Object.keys(spec?.env ?? {}).length > 0 || urlCredential(spec?.url) !== undefined;
    const { tightened: was, removedBackup } = writeAtomically(
      file,
      result.removeFile ? null : result.text,
      before,
      result.backup,
      secret,
    );
    const mode = was === undefined ? "" : ` (mode ${was.toString(8).padStart(4, "0")} → 0600: it holds a credential)`;
    const note = backupNote(before, result.backup, { client, place, name, spec }, removedBackup);
    out(`${file}: ${spec ? "added" : "removed"} "${name}"${whole}${note}${mode}\n`);
    return true;
  };
  if (dryRun) return change();
  // The lock keeps other mcpkit runs out; a client rewriting its own file meanwhile is caught by the re-read.
  for (let attempt = 1; ; attempt++) {
    try {
      return withLock(file, change);
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile) || attempt === 3) throw error;
    }
  }
}
