/**
 * The catalogue folder is checked before SQLite opens anything in it. SQLite follows a link at the
 * database's name and trusts whatever file it finds there: in a folder another user can write (a
 * shared --boj-catalog-dir, an XDG_CACHE_HOME in /tmp), a link planted at
 * `boj-series-catalog.sqlite` made mcpkit write its catalogue into the link's target, a private
 * file of the user's, and a planted database would have been served as BOJ's names. So the folder,
 * and every folder above it, must be writable only by the user (or root; or sticky, as /tmp), the
 * folder itself the user's own; the catalogue file and SQLite's companions are never links or
 * another user's; and the catalogue file is created 0600 through a descriptor that follows no link
 * (SQLite gives its -wal and -shm the database's mode).
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { modeOf, othersCanChange, othersMayWrite } from "../../../core/shared-folders.ts";

/** Why a catalogue folder may not be used: a sentence that names the path and how to fix it. */
export class UnsafeCatalogFolder extends Error {}

const FIX = "pass --boj-catalog-dir a folder of your own that only you can write, or off";

function checkFolders(folder: string, uid: number): void {
  const own = lstatSync(folder);
  if (own.uid !== uid) {
    throw new UnsafeCatalogFolder(`the folder ${folder} belongs to another user (uid ${own.uid}); ${FIX}.`);
  }
  if (othersMayWrite(own)) {
    throw new UnsafeCatalogFolder(
      `the folder ${folder} is writable by other users (mode ${modeOf(own.mode)}): they could plant a link at the catalogue's name; ${FIX} (or chmod go-w it).`,
    );
  }
  for (let above = dirname(folder); ; above = dirname(above)) {
    const stats = lstatSync(above);
    if (othersCanChange(stats, uid)) {
      throw new UnsafeCatalogFolder(
        `the folder ${above}, above the catalogue folder ${folder}, can be changed by another user (uid ${stats.uid}, mode ${modeOf(stats.mode)}); ${FIX}.`,
      );
    }
    if (dirname(above) === above) return;
  }
}

/** An entry SQLite would open: absent, or a regular file of the user's. */
function checkEntry(path: string, uid: number | undefined): void {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return;
    throw error;
  }
  if (stats.isSymbolicLink()) throw new UnsafeCatalogFolder(`${path} is a symbolic link; remove it, or ${FIX}.`);
  if (!stats.isFile()) throw new UnsafeCatalogFolder(`${path} is not a regular file; remove it, or ${FIX}.`);
  if (uid !== undefined && stats.uid !== uid) {
    throw new UnsafeCatalogFolder(`${path} belongs to another user (uid ${stats.uid}); remove it, or ${FIX}.`);
  }
}

/**
 * The path of `file` in `dir`, ready for SQLite: the folder made (0700) when missing and checked,
 * the file created or found private (0600). Throws `UnsafeCatalogFolder` (or the file system's
 * error) when the folder may not be used. Where there are no user ids (Windows), only the links.
 */
export function privateCatalogFile(dir: string, file: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const folder = realpathSync(dir);
  const uid = process.getuid?.();
  if (uid !== undefined) checkFolders(folder, uid);
  const path = join(folder, file);
  for (const name of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) checkEntry(join(folder, name), uid);
  const descriptor = openSync(path, constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    // A file left by an earlier version at the umask's mode is made private too, on the descriptor.
    if ((fstatSync(descriptor).mode & 0o077) !== 0) fchmodSync(descriptor, 0o600);
  } finally {
    closeSync(descriptor);
  }
  return path;
}
