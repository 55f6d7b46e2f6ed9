/**
 * The catalogue folder is checked before SQLite opens anything in it. SQLite follows a link at the
 * database's name and trusts whatever file it finds there: in a folder another user can write (a
 * shared --boj-catalog-dir, an XDG_CACHE_HOME in /tmp), a link planted at
 * `boj-series-catalog.sqlite` made mcpkit write its catalogue into the link's target, a private
 * file of the user's, and a planted database would have been served as BOJ's names. The rule is
 * every SQLite file's (core/private-sqlite-file.ts): the folder, and every folder above it,
 * writable only by the user (or root; or sticky, as /tmp), the folder itself the user's own; the
 * catalogue file and SQLite's companions never links or another user's; the catalogue file created
 * 0600 through a descriptor that follows no link.
 */
import { privateSqliteFile } from "../../../core/private-sqlite-file.ts";

/** Why a catalogue folder may not be used: a sentence that names the path and how to fix it. */
export class UnsafeCatalogFolder extends Error {}

const RULE = {
  noun: "the catalogue",
  fix: "pass --boj-catalog-dir a folder of your own that only you can write, or off",
  refuse: (message: string) => new UnsafeCatalogFolder(message),
};

/**
 * The path of `file` in `dir`, ready for SQLite: the folder made (0700) when missing and checked,
 * the file created or found private (0600). Throws `UnsafeCatalogFolder` (or the file system's
 * error) when the folder may not be used. Where there are no user ids (Windows), only the links.
 */
export function privateCatalogFile(dir: string, file: string): string {
  return privateSqliteFile(dir, file, RULE);
}
