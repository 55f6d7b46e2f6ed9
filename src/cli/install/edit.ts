/**
 * Text edits that change only the server's own entry, so every other byte of the file stays as it was: what the JSON
 * (edit-json.ts) and TOML (edit-toml.ts) edits share.
 */

import { secretsOf, withoutSecrets } from "./secrets.ts";
import { valueAt } from "./table.ts";

export class UnreadableConfig extends Error {}

/** `text` without a leading byte order mark, which Windows editors write and neither parser reads. */
export function withoutBom(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

export interface Edit {
  /** The new file text, or the old one when nothing changes. */
  text: string;
  changed: boolean;
  /**
   * When the edit removes or replaces a secret our entry held (its OJ_TOKEN, a token in its args) (uninstalling, or rotating a leaked token), the
   * backup must leave no copy of it: the old text with `REMOVED_TOKEN` in its place, or null (keep no backup) where
   * that cannot be done and checked. Undefined: back the file up as it is.
   */
  backup?: string | null;
  /** The edit left nothing but an empty servers table (a file install created for this entry alone): remove the file. */
  removeFile?: boolean;
}

/** Stands for a token in a backup. */
export const REMOVED_TOKEN = "[removed by mcpkit]";

/** `existing` (the entry there) holds a secret that `entry` (undefined: the entry goes) does not keep. */
export function retiresSecret(existing: unknown, entry: unknown): boolean {
  const kept = secretsOf(entry);
  return secretsOf(existing).some((secret) => !kept.includes(secret));
}

/**
 * `scrubbed` when it reads back (`parse`) as `before` with our entries (at each of `entryPaths`) stripped of their
 * secrets (`withoutSecrets`: the OJ_TOKEN in `env`, whatever its case, and a token in `args`) and nothing else
 * changed; null otherwise (a secret written in a form the replacement missed, a duplicate key, a multi-line string).
 */
export function checkedBackup(
  before: Record<string, unknown>,
  scrubbed: string,
  parse: (text: string) => unknown,
  entryPaths: string[][],
): string | null {
  const expected = structuredClone(before);
  for (const entryPath of entryPaths) {
    const servers = valueAt(expected, entryPath.slice(0, -1));
    const name = entryPath[entryPath.length - 1];
    if (servers && name in servers) servers[name] = withoutSecrets(servers[name], REMOVED_TOKEN);
  }
  try {
    return Bun.deepEquals(parse(scrubbed), expected, true) ? scrubbed : null;
  } catch {
    return null;
  }
}
