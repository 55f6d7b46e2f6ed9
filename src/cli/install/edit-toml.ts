/** Editing Codex's config.toml line by line, checked by parsing the result. */
import { checkedBackup, type Edit, REMOVED_TOKEN, retiresSecret, UnreadableConfig } from "./edit.ts";
import { hiddenArgs, SECRET_NAME } from "./secrets.ts";
import { withoutEntry } from "./table.ts";

/** Codex lists its servers in one table. */
const MCP_SERVERS = [["mcp_servers"]];

/** Beyond this many lines, or characters in the line at fault, the error's position is not looked for. */
const MAX_LINES_SEARCHED = 2_000;
const MAX_COLUMNS_SEARCHED = 1_000;

/** Bun's message for `text`'s first parse error, with what it quotes of the text left out; undefined if it parses. */
function parseError(text: string): string | undefined {
  try {
    Bun.TOML.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/"[^"]*"|'[^']*'/g, "…");
  }
}

/**
 * Where the first parse error in `text` is (1-based): the shortest run of its first lines, then of the characters of
 * the last one, that fails as the whole text does. Bun's error carries no usable position, and its message quotes
 * the text (a token, say), so it is never shown: the position is.
 */
function errorPosition(text: string): string | undefined {
  const lines = text.split("\n");
  const whole = parseError(text);
  if (whole === undefined || lines.length > MAX_LINES_SEARCHED) return undefined;
  const line = lines.findIndex((_, index) => parseError(lines.slice(0, index + 1).join("\n")) === whole);
  if (line === -1) return undefined;
  const head = lines
    .slice(0, line)
    .map((before) => `${before}\n`)
    .join("");
  const fault = lines[line].slice(0, MAX_COLUMNS_SEARCHED);
  for (let column = 1; column <= fault.length; column++)
    if (parseError(head + fault.slice(0, column)) === whole) return `line ${line + 1}, column ${column}`;
  return `line ${line + 1}`;
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch {
    const at = errorPosition(text);
    throw new UnreadableConfig(
      `${file} is not valid TOML${at === undefined ? "" : ` (${at})`}; fix or move it, then run again`,
    );
  }
}

/** JSON strings are TOML basic strings; arrays get TOML's usual ", " spacing. */
function tomlValue(value: unknown): string {
  return Array.isArray(value) ? `[${value.map((item) => JSON.stringify(item)).join(", ")}]` : JSON.stringify(value);
}

export function tomlTable(name: string, entry: Record<string, unknown>): string {
  const scalars: string[] = [];
  const tables: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const body = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)} = ${JSON.stringify(v)}`);
      tables.push(`\n[mcp_servers.${name}.${key}]\n${body.join("\n")}\n`);
    } else scalars.push(`${key} = ${tomlValue(value)}`);
  }
  return `[mcp_servers.${name}]\n${scalars.join("\n")}\n${tables.join("")}`;
}

/** A comment that is a key and a value (`# args = [...]`): a setting taken out, not prose. */
const COMMENTED_SETTING = /^[ \t]*#[ \t]*[A-Za-z0-9_."'-]+[ \t]*=/;

const TOML_HEADER = /^[ \t]*\[\[?[ \t]*([^\]\n]*?)[ \t]*\]\]?[ \t]*(#.*)?$/;

function isOurs(header: string, name: string): boolean {
  const compact = header.replace(/[ \t]/g, "").replace(/"/g, "");
  return compact === `mcp_servers.${name}` || compact.startsWith(`mcp_servers.${name}.`);
}

/**
 * The line ranges [start, end) of `[mcp_servers.NAME]` and its sub-tables. A block ends before the comment and blank
 * lines that directly precede another table's header: a comment written there is that table's (`# github: …` above
 * `[mcp_servers.github]`), and README promises every comment but ours is kept. Except a commented-out setting right
 * after our lines (`# args = ["--oj-token", …]`): that is ours, and may hold a token.
 */
function ownBlocks(lines: string[], name: string): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let start = -1;
  lines.forEach((line, index) => {
    const match = TOML_HEADER.exec(line);
    if (!match) return;
    const ours = isOurs(match[1], name);
    if (start !== -1) {
      let end = index;
      if (!ours) {
        while (end > start + 1 && /^[ \t]*(#.*)?$/.test(lines[end - 1])) end--;
        while (end < index && COMMENTED_SETTING.test(lines[end])) end++;
      }
      blocks.push([start, end]);
      start = -1;
    }
    if (ours) start = index;
  });
  if (start !== -1) blocks.push([start, lines.length]);
  return blocks;
}

/** Sets or removes `[mcp_servers.NAME]` in Codex's config.toml, then checks that nothing else changed meaning. */
export function editToml(text: string, file: string, name: string, entry: Record<string, unknown> | undefined): Edit {
  const before = parseToml(text, file);
  const existing = (before.mcp_servers as Record<string, unknown> | undefined)?.[name];
  if (entry === undefined ? existing === undefined : Bun.deepEquals(existing, entry, true))
    return { text, changed: false };
  const lines = text.split("\n");
  const blocks = ownBlocks(lines, name);
  const replacement = entry === undefined ? [] : tomlTable(name, entry).split("\n");
  let out: string[];
  if (blocks.length === 0) {
    const head = text === "" ? [] : text.endsWith("\n") ? lines.slice(0, -1) : lines;
    out = [...head, ...(head.length > 0 && head[head.length - 1].trim() !== "" ? [""] : []), ...replacement];
  } else {
    out = [];
    let cursor = 0;
    const blank = (line: string | undefined) => line !== undefined && line.trim() === "";
    blocks.forEach(([start, end], index) => {
      out.push(...lines.slice(cursor, start));
      cursor = end;
      if (index === 0 && replacement.length > 0)
        // One blank line before the next table, which the lines kept after the block may already hold.
        out.push(...replacement.slice(0, -1), ...(end < lines.length && !blank(lines[end]) ? [""] : []));
      // A removed block leaves one blank line between its neighbours, not the one before it and the one after.
      else if (out.length === 0 || blank(out.at(-1)))
        while (cursor < lines.length - 1 && blank(lines[cursor])) cursor++;
    });
    out.push(...lines.slice(cursor));
  }
  let next = out.join("\n");
  if (!next.endsWith("\n")) next += "\n";
  const unsafe = new UnreadableConfig(
    `${file}: cannot edit [mcp_servers.${name}] safely (mcp_servers is laid out in a way this edit does not handle, e.g. inline); edit it by hand`,
  );
  let after: Record<string, unknown>;
  try {
    after = Bun.TOML.parse(next) as Record<string, unknown>;
  } catch {
    throw unsafe;
  }
  const stillOurs = (after.mcp_servers as Record<string, unknown> | undefined)?.[name];
  const sameRest = Bun.deepEquals(
    withoutEntry(after, MCP_SERVERS, name),
    withoutEntry(before, MCP_SERVERS, name),
    true,
  );
  if (!sameRest || !Bun.deepEquals(stillOurs, entry, true)) throw unsafe;
  // Nothing left but blank lines: the file held our table alone.
  const removeFile = entry === undefined && next.trim() === "";
  if (!retiresSecret(existing, entry)) return { text: next, changed: true, removeFile };
  const scrubbed = withoutSecretLines(lines, blocks);
  const backup = checkedBackup(before, scrubbed, Bun.TOML.parse, [["mcp_servers", name]]);
  return { text: next, changed: true, removeFile, backup };
}

/** `KEY = …` or `env.KEY = …`, the key bare or quoted. */
const KEY_LINE = /^([ \t]*(env[ \t]*\.[ \t]*)?(["']?)([A-Za-z0-9_-]+)\3[ \t]*=[ \t]*).*$/;
/** `args = [ … ]` on one line. */
const ARGS_LINE = /^([ \t]*args[ \t]*=[ \t]*)(\[.*\])[ \t]*$/;

/** A one-line `args` array with every secret flag's value replaced, or the line as it was. */
function withoutSecretArgs(line: string): string {
  const args = ARGS_LINE.exec(line);
  if (!args) return line;
  try {
    const value = (Bun.TOML.parse(`args = ${args[2]}`) as { args: unknown }).args;
    return Array.isArray(value) ? `${args[1]}${tomlValue(hiddenArgs(value, REMOVED_TOKEN))}` : line;
  } catch {
    return line;
  }
}

/**
 * The file's `lines` with our `blocks` stripped of their secrets as `withoutSecrets` does (`checkedBackup` checks
 * it): the value of each env key named like a credential (`[…env]` table or `env.KEY`), and the token in `args`.
 */
function withoutSecretLines(lines: string[], blocks: Array<[number, number]>): string {
  const out = [...lines];
  for (const [start, end] of blocks) {
    const envTable = /\.[ \t]*["']?env["']?[ \t]*\][ \t]*(#.*)?$/.test(lines[start]);
    for (let index = start + 1; index < end; index++) {
      const key = KEY_LINE.exec(lines[index]);
      if (key && (envTable || key[2]) && SECRET_NAME.test(key[4]))
        out[index] = `${key[1]}${JSON.stringify(REMOVED_TOKEN)}`;
      else if (!envTable) out[index] = withoutSecretArgs(lines[index]);
    }
  }
  return out.join("\n");
}
