/**
 * One stat per listed entry, relative to its directory's descriptor where possible.
 *
 * On Linux with glibc, `statx(dirfd, name, AT_SYMLINK_NOFOLLOW)` through `bun:ffi` stats the entry
 * in the directory the walk holds open: no path is resolved from the root (so a swapped parent
 * cannot redirect it), and it is the fastest way measured (1.1 µs per entry against 1.7 µs for
 * lstat by absolute path and 3.3 µs for lstat through `/proc/<pid>/fd/<fd>/<name>`). statx's
 * struct layout is the same on every Linux architecture, unlike `struct stat`.
 * Elsewhere (no glibc, other systems, path walks) it falls back to `lstat(prefix + name)`, where
 * the prefix is the descriptor path (`directories.ts`) or the directory's path.
 */
import { lstatSync } from "node:fs";
import { libc } from "./libc.ts";

export interface EntryStats {
  isSymbolicLink: boolean;
  size: number;
  mtimeMs: number;
  /** 0 when the file system records no birth time. */
  birthtimeMs: number;
  ctimeMs: number;
}

/** Stats `name` in the directory open as `fd` (-1: none) and reached by `prefix`; undefined when it is gone. */
export type StatEntry = (fd: number, prefix: string, name: string) => EntryStats | undefined;

export const lstatEntry: StatEntry = (_fd, prefix, name) => {
  const stats = lstatSync(prefix + name, { throwIfNoEntry: false });
  if (!stats) return undefined;
  return {
    isSymbolicLink: stats.isSymbolicLink(),
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    birthtimeMs: stats.birthtimeMs,
    ctimeMs: stats.ctimeMs,
  };
};

const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_NO_AUTOMOUNT = 0x800;
const STATX_BASIC_STATS = 0x7ff;
const STATX_BTIME = 0x800;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** statx through bun:ffi, or undefined where it is not available (then use `lstatEntry`). */
export function statxEntry(): StatEntry | undefined {
  const calls = libc();
  if (!calls) return undefined;
  const buffer = new Uint8Array(256);
  const view = new DataView(buffer.buffer);
  const bufferPointer = calls.pointer(buffer);
  const timeMs = (offset: number) =>
    (view.getUint32(offset, true) + view.getInt32(offset + 4, true) * 2 ** 32) * 1000 +
    view.getUint32(offset + 8, true) / 1e6;
  const stat: StatEntry = (fd, prefix, name) => {
    if (fd === -1) return lstatEntry(fd, prefix, name);
    const flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT;
    if (calls.statx(fd, calls.name(name), flags, STATX_BASIC_STATS | STATX_BTIME, bufferPointer) !== 0)
      return undefined;
    const mask = view.getUint32(0, true);
    return {
      isSymbolicLink: (view.getUint16(28, true) & S_IFMT) === S_IFLNK,
      size: view.getUint32(40, true) + view.getUint32(44, true) * 2 ** 32,
      birthtimeMs: mask & STATX_BTIME ? timeMs(80) : 0,
      ctimeMs: timeMs(96),
      mtimeMs: timeMs(112),
    };
  };
  try {
    // Proves the binding and the layout on this system before trusting it (AT_FDCWD = -100).
    const probe = stat(-100, "", ".");
    const expected = lstatSync(".");
    const same =
      probe &&
      !probe.isSymbolicLink &&
      probe.mtimeMs === expected.mtimeMs &&
      probe.ctimeMs === expected.ctimeMs &&
      probe.size === expected.size;
    return same ? stat : undefined;
  } catch {
    return undefined;
  }
}

let chosen: StatEntry | undefined;

/** statx where it works, else lstat; chosen once per thread. */
export function entryStat(): StatEntry {
  chosen ??= statxEntry() ?? lstatEntry;
  return chosen;
}
