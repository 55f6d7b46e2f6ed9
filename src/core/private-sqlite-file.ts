/**
 * A SQLite file's folder is checked before SQLite opens anything in it. SQLite follows a link at the
 * database's name and trusts whatever file it finds there: in a folder another user can write (a
 * shared cache folder, /tmp), a link planted at the database's name made mcpkit write into the
 * link's target, a private file of the user's, and a database planted there (or its -wal and -shm)
 * was read as mcpkit's own: cached answers served as the upstream's. So the folder, and every folder
 * above it, must be writable only by the user (or root; or sticky, as /tmp), the folder itself the
 * user's own; the database and SQLite's companions are never links or another user's; and the
 * database is created 0600 through a descriptor that follows no link (SQLite gives its -wal and -shm
 * the database's mode). The rule of the BOJ series catalogue and of every `sqlite:PATH` store.
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "./options.ts";
import { modeOf, othersCanChange, othersMayWrite, sticky } from "./shared-folders.ts";

/** How a refusal is worded and raised by the code that asks for the file. */
export interface PrivateFileRule {
  /** What the file is called in a message: "the catalogue" ("…a link at the catalogue's name", "above the catalogue folder"). */
  noun: string;
  /** The sentence that says how to fix it, completing "…; ": "pass --state a folder of your own that only you can write". */
  fix: string;
  /** The error to throw with the finished message. */
  refuse: (message: string) => Error;
}

/** SQLite's companions of a database file, which it opens next to it by name. */
const COMPANIONS = ["-wal", "-shm", "-journal"] as const;

function checkFolders(folder: string, uid: number, { noun, fix, refuse }: PrivateFileRule): void {
  const own = lstatSync(folder);
  if (own.uid !== uid) throw refuse(`the folder ${folder} belongs to another user (uid ${own.uid}); ${fix}.`);
  if (othersMayWrite(own)) {
    throw refuse(
      `the folder ${folder} is writable by other users (mode ${modeOf(own.mode)}): they could plant a link at ${noun}'s name; ${fix}${sticky(own.mode) ? "" : " (or chmod go-w it)"}.`,
    );
  }
  checkAbove(dirname(folder), folder, uid, { noun, fix, refuse });
}

/** `above` and every folder above it: none another user (but root) can change. */
function checkAbove(above: string, folder: string, uid: number, { noun, fix, refuse }: PrivateFileRule): void {
  for (; ; above = dirname(above)) {
    const stats = lstatSync(above);
    if (othersCanChange(stats, uid)) {
      throw refuse(
        `the folder ${above}, above ${noun} folder ${folder}, can be changed by another user (uid ${stats.uid}, mode ${modeOf(stats.mode)}); ${fix}.`,
      );
    }
    if (dirname(above) === above) return;
  }
}

/** An entry SQLite would open: absent, or a regular file of the user's. */
function checkEntry(path: string, uid: number | undefined, { fix, refuse }: PrivateFileRule): void {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return;
    throw error;
  }
  if (stats.isSymbolicLink()) throw refuse(`${path} is a symbolic link; remove it, or ${fix}.`);
  if (!stats.isFile()) throw refuse(`${path} is not a regular file; remove it, or ${fix}.`);
  if (uid !== undefined && stats.uid !== uid) {
    throw refuse(`${path} belongs to another user (uid ${stats.uid}); remove it, or ${fix}.`);
  }
}

function checkEntries(folder: string, file: string, uid: number | undefined, rule: PrivateFileRule): void {
  for (const name of [file, ...COMPANIONS.map((suffix) => `${file}${suffix}`)])
    checkEntry(join(folder, name), uid, rule);
}

/**
 * The path of `file` in `dir`, ready for SQLite: the folder made (0700) when missing and checked,
 * the file created or found private (0600). Throws `rule.refuse(…)` (or the file system's error)
 * when the folder may not be used. Where there are no user ids (Windows), only the links.
 */
export function privateSqliteFile(dir: string, file: string, rule: PrivateFileRule): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const folder = realpathSync(dir);
  const uid = process.getuid?.();
  if (uid !== undefined) checkFolders(folder, uid, rule);
  checkEntries(folder, file, uid, rule);
  const path = join(folder, file);
  const descriptor = openSync(path, constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    // A file left by an earlier version at the umask's mode is made private too, on the descriptor.
    if ((fstatSync(descriptor).mode & 0o077) !== 0) fchmodSync(descriptor, 0o600);
  } finally {
    closeSync(descriptor);
  }
  return path;
}

/**
 * The same checks as `privateSqliteFile` for a database `path`, making and opening nothing: for a
 * start-up that opens the file only at its first use, so an unsafe path stops the start. A folder
 * still to be made is judged by the folders it would be made in.
 */
export function checkPrivateSqlitePath(path: string, rule: PrivateFileRule): void {
  const given = resolve(dirname(path));
  const uid = process.getuid?.();
  let folder: string;
  try {
    folder = realpathSync(given);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    // mkdir makes it (0700, the user's) below the nearest folder that exists: that one and those above it count.
    let existing = dirname(given);
    for (;;) {
      try {
        existing = realpathSync(existing);
        break;
      } catch (missing) {
        if ((missing as { code?: string }).code !== "ENOENT" || dirname(existing) === existing) throw missing;
        existing = dirname(existing);
      }
    }
    if (uid !== undefined) checkAbove(existing, given, uid, rule);
    return;
  }
  if (uid !== undefined) checkFolders(folder, uid, rule);
  checkEntries(folder, basename(path), uid, rule);
}

/** A `sqlite:PATH` store's file that may not be used: stops the start with a message that says how to fix it. */
export class UnsafeSqliteFile extends ConfigError {}

/** The file of `sqlite:PATH` (or `sqlite://PATH`); `:memory:` is no file. */
export const sqlitePathOf = (url: string): string => url.replace(/^sqlite:(\/\/)?/i, "");

/**
 * The rule of a `sqlite:PATH` store: `flag` is the option that names it (`--state (MCPKIT_STATE)`),
 * for the sentence that says how to fix it.
 */
export function sqliteStoreRule(path: string, flag?: string): PrivateFileRule {
  const where = "a sqlite: path in a folder of your own that only you can write";
  return {
    noun: "the database",
    fix: flag ? `pass ${flag} ${where}` : `use ${where}`,
    refuse: (message) => new UnsafeSqliteFile(`cannot use the SQLite file ${path}: ${message}`),
  };
}
