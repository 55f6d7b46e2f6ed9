/**
 * Writing a client's config without following a link anywhere: the file is read through a descriptor that refuses a
 * link, and every new file (the backup, the replacement) is created under a random name with O_EXCL|O_NOFOLLOW, given
 * its mode and bytes through its descriptor, then renamed into place.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { modeOf, othersCanChange } from "../../core/shared-folders.ts";
import { UnreadableConfig } from "./edit.ts";

export class WriteRefused extends Error {}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
// Windows has neither; there O_EXCL alone refuses a name that exists, a link included.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
// A FIFO planted as the config would block the open forever; with O_NONBLOCK it opens and fstat refuses it.
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** A config file as read through one descriptor: its bytes, their text, and its mode. */
interface ConfigFile {
  bytes: Buffer;
  text: string;
  mode: number;
}

/** Reads `file` without following a link (a link here is refused): undefined when there is none. */
export function readConfig(file: string): ConfigFile | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new WriteRefused(`${file} is a symbolic link now; run again`);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new WriteRefused(`${file} is not a regular file; move it away, then run again`);
    const bytes = fs.readFileSync(fd);
    return { bytes, text: utf8Text(bytes, file), mode: stat.mode & 0o777 };
  } finally {
    fs.closeSync(fd);
  }
}

// ignoreBOM keeps a leading BOM in the text, where the edit can see it and keep it.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, or a refusal naming the first byte that is not UTF-8: a config is rewritten from its text, and a
 * lenient decoding would write U+FFFD in place of every such byte elsewhere in the file (a Latin-1 comment, say).
 */
function utf8Text(bytes: Buffer, file: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    // The lenient decoding is the valid bytes up to the first U+FFFD that is not one written in the file (EF BF BD).
    const lenient = bytes.toString("utf8");
    let offset = 0;
    for (let index = lenient.indexOf("\uFFFD"); index !== -1; index = lenient.indexOf("\uFFFD", index + 1)) {
      offset = Buffer.byteLength(lenient.slice(0, index));
      if (!bytes.subarray(offset, offset + 3).equals(REPLACEMENT)) break;
    }
    throw new UnreadableConfig(
      `${file} is not UTF-8 text (byte ${offset} is not valid UTF-8); save it as UTF-8, then run again`,
    );
  }
}

const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/** What on the way to a config another user controls: their symbolic link, or a folder they can change. */
interface Foreign {
  path: string;
  stat: fs.Stats;
}

/**
 * The first symbolic link on the way to `dir` (`dir` included, and the links on the way to each link's target) that
 * belongs to neither the user nor root: a shared project's `.gemini` that another user pointed at a folder of their
 * choosing would have mcpkit write and delete there. With `folders`, also the first folder on the way that another
 * user can change (`othersCanChange`): its owner can swap `.gemini` for such a link between mcpkit's check and its
 * write, so only a refusal that does not depend on when the check runs holds. Undefined when there is none, or
 * where there are no owners.
 */
function foreignOnTheWay(dir: string, uid: number, folders: boolean, hops = 0): Foreign | undefined {
  const absolute = path.resolve(dir);
  let prefix = path.parse(absolute).root;
  for (const part of absolute.slice(prefix.length).split(path.sep).filter(Boolean)) {
    prefix = path.join(prefix, part);
    const stat = fs.lstatSync(prefix, { throwIfNoEntry: false });
    if (!stat) return undefined;
    if (!stat.isSymbolicLink()) {
      if (folders && othersCanChange(stat, uid)) return { path: prefix, stat };
      continue;
    }
    if (stat.uid !== uid && stat.uid !== 0) return { path: prefix, stat };
    // 40 hops: the kernel's own limit (ELOOP) for a chain of links.
    const beyond =
      hops < 40
        ? foreignOnTheWay(path.resolve(path.dirname(prefix), fs.readlinkSync(prefix)), uid, folders, hops + 1)
        : { path: prefix, stat };
    if (beyond !== undefined) return beyond;
  }
  return undefined;
}

/**
 * Creates `dir` and any missing folder above it, each 0700: a config folder holds tokens, and under umask 000 the
 * default 0777 would let anyone plant or swap files in it. The umask can only take bits away from 0700.
 */
export function makeFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Refuses a config whose folder is reached through another user's link; with `folders` (a config mcpkit is about to
 * change), also one in a folder, or below one, that another user can change (`foreignOnTheWay`).
 */
export function checkFolder(file: string, folders = false): void {
  const uid = process.getuid?.();
  const foreign = uid === undefined ? undefined : foreignOnTheWay(path.dirname(file), uid, folders);
  if (foreign === undefined) return;
  const { path: where, stat } = foreign;
  if (stat.isSymbolicLink())
    throw new WriteRefused(
      `${where} is a symbolic link of another user's (uid ${stat.uid}), and mcpkit reads, writes and removes nothing through it; remove the link, or edit ${file} by hand`,
    );
  throw new WriteRefused(
    `${where} can be changed by another user (owner uid ${stat.uid}, mode ${modeOf(stat.mode)}), who could swap ${path.dirname(file)} for a link to a folder of yours while mcpkit writes, so mcpkit changes nothing in it; edit ${file} by hand, or make the folder yours and not writable by others`,
  );
}

/**
 * The file a symlinked config points at, so the link (a dotfiles manager's, say) stays a link; but only a link of
 * the user's own to a regular file of theirs: a link someone planted in a shared folder (a project's `.vscode/`)
 * must not aim mcpkit's write at a file of their choosing.
 */
export function configTarget(file: string): string {
  checkFolder(file);
  const link = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!link?.isSymbolicLink()) return file;
  checkFolder(path.resolve(path.dirname(file), fs.readlinkSync(file)));
  let target: string;
  try {
    target = fs.realpathSync(file);
  } catch {
    throw new WriteRefused(`${file} is a symbolic link to a missing file; create its target or remove the link`);
  }
  const stat = fs.statSync(target);
  const uid = process.getuid?.();
  if (uid !== undefined && (link.uid !== uid || stat.uid !== uid))
    throw new WriteRefused(
      `${file} is a symbolic link to ${target}, and mcpkit writes through a link only when both are yours; replace the link with a file or edit ${target} by hand`,
    );
  if (!stat.isFile())
    throw new WriteRefused(`${file} is a symbolic link to ${target}, which is not a regular file; fix the link`);
  return target;
}

/** The file changed between reading and renaming (another program wrote it); the caller starts over. */
export class ChangedMeanwhile extends WriteRefused {
  constructor(file: string) {
    super(`${file} kept changing while mcpkit edited it; close the program writing it and run again`);
  }
}

/** Creates `file` (0600) unless any file, a link included, has that name: its descriptor, or undefined when taken. */
export function createExclusive(file: string): number | undefined {
  try {
    return fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
}

/**
 * A new file beside `target` holding `data` with `mode`, under a random name opened O_CREAT|O_EXCL|O_NOFOLLOW (a
 * name planted in advance, a link included, is never opened), its mode and bytes set through the descriptor and
 * flushed; the caller renames it into place.
 */
function newTempFile(target: string, data: string | Buffer, mode: number): string {
  for (;;) {
    const temp = tempName(target, randomBytes(8).toString("hex"));
    const fd = createExclusive(temp);
    if (fd === undefined) continue;
    try {
      fs.fchmodSync(fd, mode);
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } catch (error) {
      fs.closeSync(fd);
      fs.rmSync(temp, { force: true });
      throw error;
    }
    fs.closeSync(fd);
    return temp;
  }
}

/** The name `newTempFile` gives a temp file beside `target`; `hex` is its random part. */
function tempName(target: string, hex: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${hex}.tmp`);
}

/**
 * Removes the temp files a killed run left beside `file` and its `.bak` (`.<name>.<16 hex>.tmp`, 0600, holding what
 * it was writing, a token included), which nothing else would ever remove. The caller holds `file`'s lock, and mcpkit
 * makes these names only while holding it, so none is another run's work in progress: its owner was killed, or held
 * the lock so long that it was taken over as stale, and then its rename failing is right. A folder is left alone.
 */
export function removeLeftTemps(file: string): void {
  const dir = path.dirname(file);
  const ours = [file, `${file}.bak`].map((target) => path.basename(tempName(target, "")).slice(0, -".tmp".length));
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no folder yet: nothing left in it
  }
  for (const name of names) {
    if (!ours.some((prefix) => name.startsWith(prefix) && /^[0-9a-f]{16}\.tmp$/.test(name.slice(prefix.length))))
      continue;
    const left = path.join(dir, name);
    const found = fs.lstatSync(left, { throwIfNoEntry: false });
    // Another user's file (a sticky shared folder allows them) is not ours to remove, and must not stop the run.
    if (!found || found.isDirectory() || (process.getuid && found.uid !== process.getuid())) continue;
    try {
      fs.rmSync(left, { force: true });
    } catch {
      // Not removable after all (the folder's rules): leave it, it blocks nothing.
    }
  }
}

/**
 * Flushes `dir`'s entries, so a rename into it survives a power loss: else the old config could come back, and the
 * new text only under its temp name. Windows cannot open a folder for this, and it is skipped there.
 */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, O_RDONLY);
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a folder (EINVAL); the rename has happened all the same.
  } finally {
    fs.closeSync(fd);
  }
}

/** Puts `data` at `target` by rename: whatever was there (an old backup, a link) is replaced, never written through. */
function replaceFile(target: string, data: string | Buffer, mode: number): void {
  const temp = newTempFile(target, data, mode);
  try {
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Removes an older `<file>.bak` when the change keeps no backup (`Edit.backup` null: the secret could not be taken
 * out and checked): it was copied from the file before, so it may hold that same secret. True when there was one.
 */
function removeOldBackup(file: string): boolean {
  try {
    // unlink, not rm: a link is removed itself, never followed, and a directory there is an error, not emptied.
    fs.unlinkSync(`${file}.bak`);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** What `writeAtomically` did beside the write, for the line that reports it. */
export interface Written {
  /** The mode the file had when it was made 0600 (it holds a secret), else undefined. */
  tightened?: number;
  /** An older `<file>.bak` was removed, since no new backup was kept to replace it. */
  removedBackup: boolean;
}

/**
 * Replaces `file` with `text` (null: removes it): a backup to `<file>.bak` with the file's mode (a byte copy;
 * `backup` instead when given; none when null, and an older `.bak` removed: see edit.ts `Edit.backup`), then the new
 * text by rename, unless the file no longer holds `before` (what the edit was computed from). When the new text
 * holds a secret (`secret`), it and the backup are 0600 whatever the file's mode was.
 */
export function writeAtomically(
  file: string,
  text: string | null,
  before: string | undefined,
  backup?: string | null,
  secret = false,
): Written {
  checkFolder(file, true);
  const current = readConfig(file);
  if (current?.text !== before) throw new ChangedMeanwhile(file);
  let mode = 0o600;
  let removedBackup = false;
  if (current) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch {
      throw new WriteRefused(`${file} is read-only; make it writable (chmod u+w) and run again`);
    }
    if (!secret) mode = current.mode;
    if (backup !== null) replaceFile(`${file}.bak`, backup ?? current.bytes, mode);
    else removedBackup = removeOldBackup(file);
  } else makeFolder(path.dirname(file));
  const tightened = current && current.mode !== mode ? current.mode : undefined;
  if (text === null) {
    if (readConfig(file)?.text !== before) throw new ChangedMeanwhile(file);
    fs.rmSync(file, { force: true });
    return { removedBackup };
  }
  const temp = newTempFile(file, text, mode);
  try {
    if (readConfig(file)?.text !== before) throw new ChangedMeanwhile(file);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(path.dirname(file));
  return { tightened, removedBackup };
}
