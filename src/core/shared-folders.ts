/**
 * Whether a folder is one another user can change: add, rename or remove its entries. Code that checks a path and then
 * uses it trusts that nobody swaps an entry on the way in between (a folder for a link to a file of the user's, a
 * planted database); in a folder another user can change, they can. The rule of every SQLite file's folder
 * (private-sqlite-file.ts: the BOJ catalogue, `sqlite:PATH` stores) and of the folders `mcpkit install` writes in
 * (cli/install/write.ts).
 */

/** A folder's owner, group and mode, as `lstat` gives them. */
export interface FolderStats {
  uid: number;
  gid: number;
  mode: number;
}

/**
 * Someone but the owner (and root) may add or rename entries. Group write counts only for another group than the
 * user's own: with user private groups (umask 002) ~/.cache is 0775 and still private.
 */
export const othersMayWrite = ({ mode, gid }: FolderStats): boolean =>
  (mode & 0o002) !== 0 || ((mode & 0o020) !== 0 && gid !== process.getgid?.());

/** In a sticky folder (/tmp) only an entry's owner may rename or remove it. */
export const sticky = (mode: number): boolean => (mode & 0o1000) !== 0;

/**
 * A user other than `uid` and root can change the folder: it is theirs, or others may write in it and it is not
 * sticky. A folder on the way to a private one must not be either.
 */
export const othersCanChange = (stats: FolderStats, uid: number): boolean =>
  (stats.uid !== uid && stats.uid !== 0) || (othersMayWrite(stats) && !sticky(stats.mode));

/** A mode as `ls` and chmod write it, e.g. 0777 or 01777. */
export const modeOf = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;
