/**
 * One stat per listed entry, relative to its directory's descriptor where possible.
 *
 * On Linux with glibc, `statx(dirfd, name, AT_SYMLINK_NOFOLLOW)` through `bun:ffi` stats the entry
 * in the directory the walk holds open: no path is resolved from the root (so a swapped parent
 * cannot redirect it), and the name is passed as a pointer into the raw `getdents64` listing
 * (`listing.ts`), so it is never decoded to a string and encoded back. That leaves the kernel's own
 * cost (about 1.5 µs per entry here) and well under 0.1 µs of ours. statx's struct layout is the
 * same on every Linux architecture, unlike `struct stat`.
 * Elsewhere (no glibc, other systems, path walks) it falls back to `lstat(prefix + name)`, where
 * the prefix is the descriptor path (`directories.ts`) or the directory's path.
 *
 * A stat fills this object in place and the caller reads only the fields it needs: a search looks
 * at one time field for every entry and at the rest only for the few that match.
 */
import { lstatSync, type Stats } from "node:fs";
import { stayBelowFtl } from "./jit.ts";
import { libc } from "./libc.ts";

/** File types as getdents64 reports them (`d_type`). */
export const DT_UNKNOWN = 0;
export const DT_DIR = 4;
export const DT_REG = 8;
export const DT_LNK = 10;
/** Any other type (device, socket, fifo): listed, never a "file". */
export const DT_OTHER = 1;

/**
 * statx as a search's inner loop calls it, without a method call per entry (`collector.ts`): the
 * symbol, its flags, and the result struct as 32-bit words (`STATX_WORD`).
 */
export interface RawStatx {
  /** `statx(directoryFd, namePointer, STATX_FLAGS, STATX_MASK, bufferPointer)`: 0 when stat'ed. */
  readonly call: (directoryFd: number, namePointer: number, flags: number, mask: number, buffer: number) => number;
  readonly bufferPointer: number;
  readonly words: Uint32Array;
  /** The same words signed (the high halves of the seconds). */
  readonly signedWords: Int32Array;
  /** Makes the EntryStat accessors read what `call` fills in (rather than a fallback's lstat). */
  select(): void;
}

export interface EntryStat {
  /** Stats the entry whose NUL-terminated name is at `namePointer`, relative to the open `fd`. */
  atPointer(fd: number, namePointer: number): boolean;
  /** Stats `name` in the directory open as `fd` (-1: none) and reached by `prefix`; false when it is gone. */
  byName(fd: number, prefix: string, name: string): boolean;
  /** Of the entry last stat'ed successfully: */
  type(): number;
  size(): number;
  mtimeMs(): number;
  /** 0 when the file system records no birth time. */
  birthtimeMs(): number;
  ctimeMs(): number;
  /** Where statx can be called directly (glibc, little-endian); undefined elsewhere. */
  readonly raw?: RawStatx;
}

/**
 * Whether a stat failed because it was refused (EACCES, EPERM): the entry is there, but its
 * directory grants no search (x) permission, or a security module denies it. Not ENOENT: an
 * entry gone since the listing is left out without a word.
 */
export function isRefusal(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "EACCES" || code === "EPERM";
}

/**
 * After a statx through bun:ffi failed, whether it was refused (`isRefusal`) rather than the entry
 * gone: the same entry, lstat'ed by path once more, says why. errno is not read across bun:ffi
 * (the runtime may make calls of its own before JavaScript could read it), and only failures pay
 * this, so the stat of every entry that exists costs what it did.
 */
export function statRefused(path: string): boolean {
  try {
    lstatSync(path);
    return false; // there after all (back since the listing, say): nothing refused
  } catch (error) {
    return isRefusal(error);
  }
}

/** The file type bits of a mode, and the type of a symbolic link. */
export const S_IFMT = 0o170000;
export const S_IFLNK = 0o120000;

function typeOfMode(mode: number): number {
  switch (mode & S_IFMT) {
    case 0o040000:
      return DT_DIR;
    case 0o100000:
      return DT_REG;
    case S_IFLNK:
      return DT_LNK;
    default:
      return DT_OTHER;
  }
}

class LstatEntryStat implements EntryStat {
  private stats: Stats | undefined;

  atPointer(): boolean {
    throw new Error("raw listings need statx");
  }

  byName(_fd: number, prefix: string, name: string): boolean {
    this.stats = lstatSync(prefix + name, { throwIfNoEntry: false });
    return this.stats !== undefined;
  }

  type(): number {
    return typeOfMode((this.stats as Stats).mode);
  }
  size(): number {
    return (this.stats as Stats).size;
  }
  mtimeMs(): number {
    return (this.stats as Stats).mtimeMs;
  }
  birthtimeMs(): number {
    return (this.stats as Stats).birthtimeMs;
  }
  ctimeMs(): number {
    return (this.stats as Stats).ctimeMs;
  }
}

const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_NO_AUTOMOUNT = 0x800;
export const STATX_FLAGS = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT;
const STATX_BASIC_STATS = 0x7ff;
export const STATX_BTIME = 0x800;
export const STATX_MASK = STATX_BASIC_STATS | STATX_BTIME;

/** struct statx offsets (include/uapi/linux/stat.h). */
const OFFSET = { mask: 0, uid: 20, gid: 24, mode: 28, ino: 32, size: 40, btime: 80, ctime: 96, mtime: 112 } as const;

/**
 * The same fields as 32-bit word indexes, for `RawStatx.words` (little-endian: the mode is the low
 * half of its word; each time is seconds low, seconds high, nanoseconds).
 */
export const STATX_WORD = { mask: 0, mode: 7, btime: 20, ctime: 24, mtime: 28 } as const;

/** The time at word `at` of a raw statx result in ms, as the accessors below compute it. */
export function statxWordsMs(words: Uint32Array, signedWords: Int32Array, at: number): number {
  return (words[at] + signedWords[at + 1] * 2 ** 32) * 1000 + words[at + 2] / 1e6;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The fields of a statx result at byte `base` of `view` (little-endian), as EntryStat reads them. */
export class StatxFields {
  static {
    // see jit.ts: read for every record of the native walk (`native-walk.ts`)
    stayBelowFtl(StatxFields.prototype.time);
    stayBelowFtl(StatxFields.prototype.type);
    stayBelowFtl(typeOfMode);
  }

  base = 0;
  constructor(private readonly view: DataView) {}

  private time(offset: number): number {
    const view = this.view;
    const at = this.base + offset;
    return (
      (view.getUint32(at, true) + view.getInt32(at + 4, true) * 2 ** 32) * 1000 + view.getUint32(at + 8, true) / 1e6
    );
  }

  type(): number {
    return typeOfMode(this.view.getUint16(this.base + OFFSET.mode, true));
  }
  size(): number {
    const at = this.base + OFFSET.size;
    return this.view.getUint32(at, true) + this.view.getUint32(at + 4, true) * 2 ** 32;
  }
  mtimeMs(): number {
    return this.time(OFFSET.mtime);
  }
  /** 0 when the file system records no birth time. */
  birthtimeMs(): number {
    return this.view.getUint32(this.base + OFFSET.mask, true) & STATX_BTIME ? this.time(OFFSET.btime) : 0;
  }
  ctimeMs(): number {
    return this.time(OFFSET.ctime);
  }
}

class StatxEntryStat implements EntryStat {
  private readonly buffer = new Uint8Array(256);
  // The view before the pointer: taking `.buffer` of a small typed array after `ptr()` can move its storage.
  private readonly view = new DataView(this.buffer.buffer);
  private readonly words = new Uint32Array(this.buffer.buffer);
  private readonly signedWords = new Int32Array(this.buffer.buffer);
  private readonly bufferPointer: number;
  private readonly fields = new StatxFields(this.view);
  private readonly lstat = new LstatEntryStat();
  private viaLstat = false;
  readonly raw: RawStatx | undefined;

  constructor(private readonly calls: NonNullable<ReturnType<typeof libc>>) {
    this.bufferPointer = calls.pointer(this.buffer);
    this.raw = littleEndian
      ? {
          call: calls.statx,
          bufferPointer: this.bufferPointer,
          words: this.words,
          signedWords: this.signedWords,
          select: () => {
            this.viaLstat = false;
          },
        }
      : undefined;
  }

  atPointer(fd: number, namePointer: number): boolean {
    this.viaLstat = false;
    return this.calls.statx(fd, namePointer, STATX_FLAGS, STATX_MASK, this.bufferPointer) === 0;
  }

  byName(fd: number, prefix: string, name: string): boolean {
    this.viaLstat = fd === -1;
    if (this.viaLstat) return this.lstat.byName(fd, prefix, name);
    return this.atPointer(fd, this.calls.name(name));
  }

  type(): number {
    return this.viaLstat ? this.lstat.type() : this.fields.type();
  }
  size(): number {
    return this.viaLstat ? this.lstat.size() : this.fields.size();
  }
  mtimeMs(): number {
    return this.viaLstat ? this.lstat.mtimeMs() : this.fields.mtimeMs();
  }
  birthtimeMs(): number {
    return this.viaLstat ? this.lstat.birthtimeMs() : this.fields.birthtimeMs();
  }
  ctimeMs(): number {
    return this.viaLstat ? this.lstat.ctimeMs() : this.fields.ctimeMs();
  }

  /**
   * Whether the entry last stat'ed is `expected` as lstat sees it, on fields nothing changes
   * under a running process (inode, mode, owner), so the check cannot lose a race with writers.
   */
  sameAs(expected: Stats): boolean {
    const view = this.view;
    const ino = view.getUint32(OFFSET.ino, true) + view.getUint32(OFFSET.ino + 4, true) * 2 ** 32;
    return (
      ino === expected.ino &&
      view.getUint16(OFFSET.mode, true) === expected.mode &&
      view.getUint32(OFFSET.uid, true) === expected.uid &&
      view.getUint32(OFFSET.gid, true) === expected.gid
    );
  }
}

/** statx through bun:ffi, or undefined where it is not available (then use `lstatEntryStat`). */
export function statxEntryStat(): EntryStat | undefined {
  const calls = libc();
  if (!calls) return undefined;
  try {
    const stat = new StatxEntryStat(calls);
    // Proves the binding and the layout on this system before trusting it (AT_FDCWD = -100). "/"
    // rather than ".": the working directory may be gone, and its times change under writers.
    const expected = lstatSync("/");
    return stat.byName(-100, "", "/") && stat.type() === DT_DIR && stat.sameAs(expected) ? stat : undefined;
  } catch {
    return undefined;
  }
}

function lstatEntryStat(): EntryStat {
  return new LstatEntryStat();
}

let chosen: EntryStat | undefined;

/** statx where it works, else lstat; chosen once per thread. */
export function entryStat(): EntryStat {
  chosen ??= statxEntryStat() ?? lstatEntryStat();
  return chosen;
}
