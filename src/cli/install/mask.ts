/**
 * What a shown diff may print of a config: every value under an `env` or `headers` table, of any server, is replaced
 * by `[redacted]` where the document's structure puts it, however the value is written (escapes, quotes, a
 * neighbour's GITHUB_TOKEN), and the result is parsed back to check that no such value is left.
 */
import { type Node, parseTree } from "jsonc-parser";
import { TOML_HEADER } from "./edit-toml.ts";
import { WriteRefused } from "./write.ts";

export const REDACTED = "[redacted]";

/** Tables whose values are secrets as often as not: a server's environment and its HTTP headers (Codex: http_headers). */
const SECRET_TABLES = new Set(["env", "headers", "http_headers"]);

interface Span {
  offset: number;
  length: number;
}

/** The value nodes to hide: each member of a secret table, or the table itself when it is not an object. */
function secretSpans(node: Node | undefined, spans: Span[] = []): Span[] {
  for (const child of node?.children ?? []) {
    const [key, value] = child.children ?? [];
    if (child.type === "property" && value && SECRET_TABLES.has(key.value)) {
      if (value.type === "object")
        for (const member of value.children ?? []) spans.push(member.children?.[1] ?? member);
      else spans.push(value);
    } else secretSpans(child, spans);
  }
  return spans;
}

function maskJson(text: string): string {
  const spans = secretSpans(parseTree(text, [], { allowTrailingComma: true }));
  let masked = text;
  for (const { offset, length } of spans.sort((a, b) => b.offset - a.offset))
    masked = `${masked.slice(0, offset)}"${REDACTED}"${masked.slice(offset + length)}`;
  return masked;
}

/** Every value under a secret table in `node` (a JSON tree, duplicates included) is `[redacted]`. */
function jsonHidesSecrets(node: Node | undefined): boolean {
  return (node?.children ?? []).every((child) => {
    const [key, value] = child.children ?? [];
    if (child.type === "property" && value && SECRET_TABLES.has(key.value)) {
      const members = value.type === "object" ? (value.children ?? []).map((member) => member.children?.[1]) : [value];
      return members.every((member) => member?.type === "string" && member.value === REDACTED);
    }
    return jsonHidesSecrets(child);
  });
}

const TOML_KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')`;
const TOML_ASSIGNMENT = new RegExp(
  String.raw`^([ \t]*)(${TOML_KEY_PART}(?:[ \t]*\.[ \t]*${TOML_KEY_PART})*)[ \t]*=[ \t]*(.*)$`,
);

function tomlKeyPath(dotted: string): string[] {
  return (dotted.match(new RegExp(TOML_KEY_PART, "g")) ?? []).map((part) =>
    part.startsWith('"') ? JSON.parse(part) : part.startsWith("'") ? part.slice(1, -1) : part,
  );
}

/** The delimiter that closes the multi-line string `value` opens on its line, if it stays open. */
function openMultiline(value: string): string | undefined {
  for (const quote of ['"""', "'''"]) {
    if (!value.startsWith(quote)) continue;
    return closesMultiline(value.slice(3), quote) ? undefined : quote;
  }
  return undefined;
}

function closesMultiline(line: string, quote: string): boolean {
  for (let at = line.indexOf(quote); at !== -1; at = line.indexOf(quote, at + 1)) {
    const backslashes = /\\*$/.exec(line.slice(0, at))?.[0].length ?? 0;
    if (quote === "'''" || backslashes % 2 === 0) return true;
  }
  return false;
}

/** Line by line: a `key = value` whose table or dotted key passes through a secret table loses its value. */
function maskToml(text: string): string {
  const out: string[] = [];
  let table: string[] = [];
  let open: { quote: string; hidden: boolean } | undefined;
  for (const line of text.split("\n")) {
    if (open) {
      if (!open.hidden) out.push(line);
      if (closesMultiline(line, open.quote)) open = undefined;
      continue;
    }
    const header = TOML_HEADER.exec(line);
    const assignment = header ? null : TOML_ASSIGNMENT.exec(line);
    if (header) table = tomlKeyPath(header[1]);
    if (!assignment) {
      out.push(line);
      continue;
    }
    const [, indent, key, value] = assignment;
    const hidden = [...table, ...tomlKeyPath(key)].some((part) => SECRET_TABLES.has(part));
    const quote = openMultiline(value);
    if (quote) open = { quote, hidden };
    out.push(hidden ? `${indent}${key} = ${JSON.stringify(REDACTED)}` : line);
  }
  return out.join("\n");
}

function tomlHidesSecrets(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.entries(value).every(([key, member]) => {
    if (!SECRET_TABLES.has(key)) return tomlHidesSecrets(member);
    if (member === REDACTED) return true;
    return member !== null && typeof member === "object" && Object.values(member).every((v) => v === REDACTED);
  });
}

/**
 * `text` with every value under a secret table shown as `[redacted]`; refused (nothing is shown) when the masked
 * text does not read back with every such value hidden (a layout the masking does not follow).
 */
export function masked(text: string, format: "json" | "toml", file: string): string {
  const result = format === "json" ? maskJson(text) : maskToml(text);
  let hidden: boolean;
  try {
    hidden =
      format === "json"
        ? jsonHidesSecrets(parseTree(result, [], { allowTrailingComma: true }))
        : tomlHidesSecrets(Bun.TOML.parse(result));
  } catch {
    hidden = false;
  }
  if (!hidden)
    throw new WriteRefused(
      `${file}: cannot show this change without showing a value under "env" or "headers"; run without --dry-run, or edit the file by hand`,
    );
  return result;
}
