/**
 * Text edits that change only the server's own entry, so every other byte of the file stays as it was: what the JSON
 * (edit-json.ts) and TOML (edit-toml.ts) edits share.
 */

export class UnreadableConfig extends Error {}

export interface Edit {
  /** The new file text, or the old one when nothing changes. */
  text: string;
  changed: boolean;
  /**
   * When the edit removes or replaces the OJ_TOKEN our entry held (uninstalling, or rotating a leaked token), the
   * backup must leave no copy of it: the old text with `REMOVED_TOKEN` in its place, or null (keep no backup) where
   * that cannot be done and checked. Undefined: back the file up as it is.
   */
  backup?: string | null;
  /** The edit left nothing but an empty servers table (a file install created for this entry alone): remove the file. */
  removeFile?: boolean;
}

/** Stands for a token in a backup. */
export const REMOVED_TOKEN = "[removed by mcpkit]";

/** `existing`'s OJ_TOKEN when `entry` (undefined: the entry goes) does not keep it. */
export function retiredToken(existing: unknown, entry: unknown): string | undefined {
  const tokenOf = (value: unknown) => (value as { env?: Record<string, unknown> } | undefined)?.env?.OJ_TOKEN;
  const old = tokenOf(existing);
  return typeof old === "string" && old !== "" && old !== tokenOf(entry) ? old : undefined;
}

/**
 * `scrubbed` when it reads back (`parse`) as `before` with our entries' OJ_TOKEN (at `[...entryPath, "env",
 * "OJ_TOKEN"]` for each of `entryPaths`) replaced by `REMOVED_TOKEN` and nothing else changed; null otherwise (a
 * token written in a form the replacement missed, a duplicate key, a multi-line string).
 */
export function checkedBackup(
  before: Record<string, unknown>,
  scrubbed: string,
  parse: (text: string) => unknown,
  entryPaths: string[][],
): string | null {
  const expected = structuredClone(before);
  for (const entryPath of entryPaths) {
    const env = valueAt(expected, [...entryPath, "env"]);
    // With duplicate keys (JSON) the entry that reads back may hold no token; ourTokens checks the others.
    if (typeof env?.OJ_TOKEN === "string") env.OJ_TOKEN = REMOVED_TOKEN;
  }
  try {
    return Bun.deepEquals(parse(scrubbed), expected, true) ? scrubbed : null;
  } catch {
    return null;
  }
}

export type Table = Record<string, unknown>;

export function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `keys` in `doc`, or undefined where one of them is missing or not an object. */
export function valueAt(doc: Table, keys: string[]): Table | undefined {
  let value: unknown = doc;
  for (const key of keys) value = isTable(value) ? value[key] : undefined;
  return isTable(value) ? value : undefined;
}
