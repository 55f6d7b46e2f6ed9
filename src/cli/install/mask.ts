/**
 * What a shown diff may print of a config: not the file, but a view of it built from its parsed value. The view holds
 * the servers tables the change touches and nothing else of the file (a `~/.claude.json` holds an API key beside
 * them); in them every other server by name only, and the entry that changes with every value under `env`/`headers`,
 * every key named like a credential, every secret flag's value in `args`, and URLs' userinfo and query values shown
 * as `[redacted]`. Built from values, not text, the view hides a secret however the file spells it.
 */
import { parse } from "jsonc-parser";
import { withoutBom } from "./edit.ts";
import { tomlTable } from "./edit-toml.ts";
import { hiddenArgs, hiddenInText, SECRET_NAME, SECRET_TABLES } from "./secrets.ts";
import { isTable, type Table, valueAt } from "./table.ts";

export const REDACTED = "[redacted]";
/** Stands for another server's entry in a view. */
const NOT_SHOWN = "[not shown]";

/** `value` (the entry that changes, or part of it) with every secret in it replaced by `[redacted]`. */
function maskedValue(value: unknown, key?: string): unknown {
  if (key !== undefined && SECRET_TABLES.has(key))
    return isTable(value) ? Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED])) : REDACTED;
  if (key !== undefined && SECRET_NAME.test(key)) return REDACTED;
  if (typeof value === "string") return hiddenInText(value, REDACTED);
  if (Array.isArray(value)) return (key === "args" ? hiddenArgs(value, REDACTED) : value).map((v) => maskedValue(v));
  if (isTable(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskedValue(v, k)]));
  return value;
}

/** The servers tables of `doc` at `at`, each with `name`'s entry masked and every other entry by name only. */
function view(doc: Table, at: string[][], name: string): Table {
  const shown: Table = {};
  for (const keys of at) {
    const servers = valueAt(doc, keys);
    if (servers === undefined) continue;
    let parent = shown;
    for (const key of keys.slice(0, -1)) {
      if (!isTable(parent[key])) parent[key] = {};
      parent = parent[key] as Table;
    }
    parent[keys[keys.length - 1]] = Object.fromEntries(
      Object.entries(servers).map(([server, entry]) => [server, server === name ? maskedValue(entry) : NOT_SHOWN]),
    );
  }
  return shown;
}

const BARE_TOML_KEY = /^[A-Za-z0-9_-]+$/;

/** Codex's view as TOML: the entry that changes as install writes it, every other server as a header alone. */
function tomlView(servers: Table, name: string): string {
  return Object.entries(servers)
    .map(([server, entry]) =>
      server === name && isTable(entry)
        ? tomlTable(name, entry)
        : `[mcp_servers.${BARE_TOML_KEY.test(server) ? server : JSON.stringify(server)}]  # ${NOT_SHOWN}\n`,
    )
    .join("\n");
}

/**
 * The view of the config `text` (empty for a file that does not exist yet) a diff of `name`'s change compares: the
 * servers objects at `at` (JSON), Codex's `mcp_servers` table (TOML).
 */
export function shownConfig(file: string, format: "json" | "toml", at: string[][], name: string): string {
  const text = withoutBom(file);
  if (text.trim() === "") return "";
  const doc = (format === "json" ? parse(text, [], { allowTrailingComma: true }) : Bun.TOML.parse(text)) as Table;
  if (format === "toml")
    return tomlView(valueAt(view(isTable(doc) ? doc : {}, [["mcp_servers"]], name), ["mcp_servers"]) ?? {}, name);
  return `${JSON.stringify(view(isTable(doc) ? doc : {}, at, name), null, 2)}\n`;
}
