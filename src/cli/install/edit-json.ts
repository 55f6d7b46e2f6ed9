/** Editing a JSON or JSONC config (every client but Codex) through jsonc-parser's tree: duplicate keys included. */
import {
  createScanner,
  findNodeAtLocation,
  type Node,
  type ParseError,
  parse,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { checkedBackup, type Edit, REMOVED_TOKEN, UnreadableConfig } from "./edit.ts";
import { isSecretEnv, secretArgs, secretsOf } from "./secrets.ts";
import { isTable, type Table, valueAt, withoutEntry } from "./table.ts";

/** The whitespace that starts the line holding `offset`. */
function indentOf(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? "";
}

function jsonAt(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).split("\n").join(`\n${indent}`);
}

/*
 * jsonc-parser's own formatting re-indents the whole line it touches (a neighbour written on one line would be
 * spread out), so insertions are written here and only the new text is formatted.
 */
function insertProperty(text: string, object: Node, name: string, value: unknown): string {
  const props = object.children ?? [];
  const member = (indent: string) => `${JSON.stringify(name)}: ${jsonAt(value, indent)}`;
  if (props.length === 0) {
    const outer = indentOf(text, object.offset);
    const open = object.offset + 1;
    const close = object.offset + object.length - 1;
    const inside = text.slice(open, close);
    const rest = inside.trim() === "" ? `\n${outer}` : inside;
    return `${text.slice(0, open)}\n${outer}  ${member(`${outer}  `)}${rest}${text.slice(close)}`;
  }
  const last = props[props.length - 1];
  const end = last.offset + last.length;
  const indent = indentOf(text, last.offset);
  const comma = /^\s*,/.exec(text.slice(end));
  if (comma) {
    const at = end + comma[0].length;
    return `${text.slice(0, at)}\n${indent}${member(indent)},${text.slice(at)}`;
  }
  return `${text.slice(0, end)},\n${indent}${member(indent)}${text.slice(end)}`;
}

function setMember(text: string, key: string, name: string, entry: unknown): string {
  const root = parseTree(text, [], { allowTrailingComma: true }) as Node;
  const servers = findNodeAtLocation(root, [key]);
  if (!servers) return insertProperty(text, root, key, { [name]: entry });
  const existing = ourMembers(root, [[key]], name)[0]?.children?.[1];
  if (!existing) return insertProperty(text, servers, name, entry);
  const indent = indentOf(text, existing.parent?.offset ?? existing.offset);
  return `${text.slice(0, existing.offset)}${jsonAt(entry, indent)}${text.slice(existing.offset + existing.length)}`;
}

export function parseJsonc(text: string, file: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  if (nestsTooDeep(text))
    throw new UnreadableConfig(
      `${file} nests arrays and objects deeper than ${MAX_DEPTH} levels, more than mcpkit reads; fix or move it, then run again`,
    );
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0)
    throw new UnreadableConfig(
      `${file} is not valid JSON (${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}); fix or move it, then run again`,
    );
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UnreadableConfig(`${file} does not hold a JSON object; fix or move it, then run again`);
  return value as Record<string, unknown>;
}

/** The members of `object` (a JSON tree node) named `name`, every one of them when the name is written twice. */
function members(object: Node | undefined, name: string): Node[] {
  if (object?.type !== "object") return [];
  return (object.children ?? []).filter((member) => member.children?.length === 2 && member.children[0].value === name);
}

/**
 * Every `name` member of every servers object at one of the paths `at` (`[["mcpServers"], ["projects", cwd,
 * "mcpServers"]]`): a duplicate key on the way is ours as much as the one that reads back.
 */
function ourMembers(root: Node | undefined, at: string[][], name: string): Node[] {
  return at.flatMap((keys) => {
    let objects = root ? [root] : [];
    for (const key of keys)
      objects = objects.flatMap((object) => members(object, key).map((m) => m.children?.[1] as Node));
    return objects.flatMap((servers) => members(servers, name));
  });
}

/** A string node of an entry of ours that holds a secret, and the text it has with the secret removed. */
interface SecretNode {
  node: Node;
  secret: string;
  removed: string;
}

/** The string nodes of `array` (an `args`) that hold a secret (`secretArgs`). */
function secretArgNodes(array: Node): SecretNode[] {
  const items = array.children ?? [];
  const values = items.map((item) => (item.type === "string" ? (item.value as string) : null));
  return secretArgs(values, REMOVED_TOKEN).map(({ index, secret, hidden }) => ({
    node: items[index],
    secret,
    removed: hidden,
  }));
}

/**
 * The secrets of every entry of ours (`withoutSecrets`): each string under its `env` named like a credential, in any
 * case, and each secret flag's value in its `args`.
 */
function ourSecrets(root: Node | undefined, at: string[][], name: string): SecretNode[] {
  return ourMembers(root, at, name).flatMap((member) => {
    const entry = member.children?.[1];
    const env = members(entry, "env")
      .flatMap((table) => table.children?.[1]?.children ?? [])
      .filter(
        (item) => item.type === "property" && isSecretEnv(String(item.children?.[0].value), item.children?.[1].value),
      )
      .map((item) => item.children?.[1] as Node)
      .map((node) => ({ node, secret: node.value as string, removed: REMOVED_TOKEN }));
    const args = members(entry, "args")
      .map((list) => list.children?.[1])
      .flatMap((list) => (list?.type === "array" ? secretArgNodes(list) : []));
    return [...env, ...args];
  });
}

function treeOf(text: string): Node | undefined {
  return parseTree(text, [], { allowTrailingComma: true });
}

/** jsonc-parser's SyntaxKind values, a const enum that this build's module settings cannot import. */
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA, EOF] = [1, 2, 3, 4, 5, 17];
const COMMENTS = [12, 13];

/**
 * How deep a config's arrays and objects may nest. The parser and the walks over its value (the read-back checks, the
 * diff's view) recurse, and a file nested some thousands deep overflowed the stack ('cannot install: Maximum call
 * stack size exceeded'); a client's config nests a handful of levels.
 */
const MAX_DEPTH = 1000;

/** Whether `text` nests deeper than MAX_DEPTH, counted by the scanner, which skips strings and comments. */
function nestsTooDeep(text: string): boolean {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token: number = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      if (++depth > MAX_DEPTH) return true;
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** Where the comma after `from` is, past whitespace and comments; undefined when another token comes first. */
function commaAfter(text: string, from: number): number | undefined {
  const scanner = createScanner(text, true);
  scanner.setPosition(from);
  let token: number = scanner.scan();
  while (COMMENTS.includes(token)) token = scanner.scan();
  return token === COMMA ? scanner.getTokenOffset() : undefined;
}

/**
 * `text` without `member` and one comma that separated it from a neighbour: the one after it, or else the one before.
 * Only that is removed, and the line it leaves empty: a comment before or after it (on the neighbour's line or its
 * own) belongs to no one we can tell and stays, as README promises for every comment.
 */
function withoutMember(text: string, member: Node): string {
  const siblings = member.parent?.children ?? [member];
  const index = siblings.indexOf(member);
  const end = member.offset + member.length;
  const after = commaAfter(text, end);
  if (after !== undefined) return withoutRange(text, member.offset, after + 1);
  if (index > 0) {
    const before = commaAfter(text, siblings[index - 1].offset + siblings[index - 1].length) as number;
    // On one line with that comma, nothing between: both go as one.
    if (/^[ \t]*$/.test(text.slice(before + 1, member.offset))) return withoutRange(text, before, end);
    const rest = withoutRange(text, member.offset, end);
    return rest.slice(0, before) + rest.slice(before + 1);
  }
  // Alone in its object: everything between the braces goes, so that `{}` is left.
  const begin = (member.parent?.offset ?? member.offset - 1) + 1;
  return text.slice(0, begin) + text.slice(end);
}

/** `text` without `begin`..`end` and, when that leaves its line blank, the line; else the spaces it leaves beside it. */
function withoutRange(text: string, begin: number, end: number): string {
  const lineStart = text.lastIndexOf("\n", begin - 1) + 1;
  let stop = end;
  while (text[stop] === " " || text[stop] === "\t") stop++;
  const lineEnds = stop === text.length || text[stop] === "\n";
  if (lineEnds && /^[ \t]*$/.test(text.slice(lineStart, begin))) return text.slice(0, lineStart) + text.slice(stop + 1);
  if (!lineEnds) return text.slice(0, begin) + text.slice(stop);
  let start = begin;
  while (start > lineStart && (text[start - 1] === " " || text[start - 1] === "\t")) start--;
  return text.slice(0, start) + text.slice(stop);
}

/** Nothing but `{ "<key>": {} }` is left, and no comment: the file held our entry alone. */
function onlyEmptyServers(next: string, at: string[][]): boolean {
  if (at.length !== 1 || at[0].length !== 1) return false;
  const errors: ParseError[] = [];
  const doc = parse(next, errors, { disallowComments: true, allowTrailingComma: true });
  return errors.length === 0 && Bun.deepEquals(doc, { [at[0][0]]: {} }, true);
}

/**
 * Sets (entry given) or removes (undefined) `name` in a JSON or JSONC document: in the servers object at `at[0]`
 * when setting (a root-level key), from every servers object at one of the paths `at` when removing.
 */
export function editJson(text: string, file: string, at: string[][], name: string, entry: unknown): Edit {
  const current = parseJsonc(text, file);
  for (const keys of at) {
    const parent = valueAt(current, keys.slice(0, -1));
    const servers = parent?.[keys[keys.length - 1]];
    if (servers !== undefined && !isTable(servers))
      throw new UnreadableConfig(`${file}: "${keys.join(".")}" is not an object; fix it, then run again`);
  }
  const tree = treeOf(text);
  const ours = ourMembers(tree, at, name);
  const existing = valueAt(current, at[0])?.[name];
  if (entry === undefined ? ours.length === 0 : ours.length === 1 && Bun.deepEquals(existing, entry, true))
    return { text, changed: false };
  if (entry !== undefined && ours.length > 1)
    throw new UnreadableConfig(
      `${file}: "${at[0].join(".")}" holds "${name}" ${ours.length} times; run 'mcpkit uninstall' first, or keep one by hand`,
    );
  const base = text.trim() === "" ? "{}\n" : text;
  let next = base;
  if (entry !== undefined) next = setMember(base, at[0][0], name, entry);
  else for (let left = ours.length; left > 0; left--) next = withoutMember(next, ourMembers(treeOf(next), at, name)[0]);
  if (!next.endsWith("\n")) next += "\n";
  checkJsonEdit(current, next, file, at, name, entry);
  const removeFile = entry === undefined && onlyEmptyServers(next, at);
  const kept = secretsOf(entry);
  const secrets = ourSecrets(tree, at, name);
  if (!secrets.some(({ secret }) => secret !== "" && !kept.includes(secret)))
    return { text: next, changed: true, removeFile };
  let scrubbed = text;
  for (const { node, removed } of [...secrets].sort((a, b) => b.node.offset - a.node.offset))
    scrubbed = `${scrubbed.slice(0, node.offset)}${JSON.stringify(removed)}${scrubbed.slice(node.offset + node.length)}`;
  const everyTokenGone = ourSecrets(treeOf(scrubbed), at, name).every(({ secret }) => secret === REMOVED_TOKEN);
  const entryPaths = at.map((keys) => [...keys, name]);
  return {
    text: next,
    changed: true,
    removeFile,
    backup: everyTokenGone ? checkedBackup(current, scrubbed, (t) => parseJsonc(t, file), entryPaths) : null,
  };
}

/**
 * Reads the edited text back: after an uninstall no entry of ours is left (a duplicate key included); after an
 * install exactly one, equal to `entry`, and it is the one that reads back; nothing else means something else.
 */
function checkJsonEdit(before: Table, next: string, file: string, at: string[][], name: string, entry: unknown): void {
  const unsafe = new UnreadableConfig(
    `${file}: cannot edit "${at[0].join(".")}"."${name}" safely (it is laid out in a way this edit does not handle, e.g. "${at[0][0]}" written twice); edit it by hand`,
  );
  let after: Record<string, unknown>;
  try {
    after = parseJsonc(next, file);
  } catch {
    throw unsafe;
  }
  const count = ourMembers(treeOf(next), at, name).length;
  const ours = valueAt(after, at[0])?.[name];
  const right = entry === undefined ? count === 0 : count === 1 && Bun.deepEquals(ours, entry, true);
  if (!right || !Bun.deepEquals(withoutEntry(after, at, name), withoutEntry(before, at, name), true)) throw unsafe;
}
