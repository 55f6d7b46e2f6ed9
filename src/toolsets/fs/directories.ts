/**
 * How the walk reaches directories: anchored to open descriptors where the platform allows it,
 * by path elsewhere.
 *
 * Anchored (Linux, and any system whose `/dev/fd` passes the probe below): every directory is
 * opened relative to its already-open parent with O_NOFOLLOW|O_DIRECTORY, listed through its own
 * descriptor, and its entries are lstat'ed relative to it (`/proc/<pid>/fd/<fd>/<name>`: the kernel
 * resolves `/proc/<pid>/fd/<fd>` to the open directory itself, never to a path). A directory swapped
 * for a symbolic link mid-walk is therefore either the directory we opened or refused (ELOOP or
 * ENOTDIR); nothing is resolved again from the root, so the walk cannot be led outside it
 * (docs/contracts/fs-search-by-time.md, "Containment").
 *
 * By path (Windows, or when no descriptor directory works): the previous walk, which checks each
 * directory with lstat before reading it; a swap between that check and the read is not excluded.
 *
 * With glibc the opening and listing go through `openat` and `getdents64` (`libc.ts`), the fastest
 * way measured (faster than the old lstat + readdir by path; `/proc` paths cost a procfs lookup each),
 * and a listing stays raw bytes (`listing.ts`): names are decoded only where the walk needs them.
 *
 * Descriptors are reference-counted: a directory stays open while children waiting on the walk's
 * stack or stat batches still in flight refer to it, so the walk holds O(depth) descriptors.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, statSync } from "node:fs";
import { join, parse } from "node:path";
import { DT_UNKNOWN, entryStat, statRefused, statxEntryStat } from "./entry-stat.ts";
import { stayBelowFtl } from "./jit.ts";
import { type Libc, libc } from "./libc.ts";
import { type DirentLike, decodeName, exactNameText, Listing, lenientNameText } from "./listing.ts";

export interface DirectoryHandle {
  /** The open descriptor, or -1 on path walks. */
  readonly fd: number;
  /** Prefix that reaches an entry of this directory when its name is appended. */
  readonly prefix: string;
  /** Keeps the directory reachable through `prefix` until the matching `release`. */
  retain(): void;
  release(): void;
}

export interface DirectoryReader {
  next(): boolean;
  /**
   * Entries of unknown type (DT_UNKNOWN) read so far whose stat, asked for their type, was refused
   * (`statRefused`): left out whatever they are, and counted.
   */
  readonly unsearchable: number;
}

export interface DirectoryAccess {
  /** "descriptor" when walks are anchored to open descriptors, "path" otherwise. */
  readonly kind: "descriptor" | "path";
  /**
   * Opens the start: the root (a real path, trusted as configured), then each segment of
   * `relative` without following links. Throws when any part cannot be opened.
   */
  openStart(root: string, relative: string): DirectoryHandle;
  /** Opens a child directory of `parent`, or returns undefined when it is gone, unreadable or a link now. */
  openChild(parent: DirectoryHandle, name: string): DirectoryHandle | undefined;
  /** A listing buffer for one walk (walks running at once each read into their own). */
  newListing(): Listing;
  /**
   * Starts reading `directory` into `listing`: each `next()` refills it with the following chunk
   * and returns false at the end. Throws when the directory cannot be read.
   */
  read(directory: DirectoryHandle, listing: Listing): DirectoryReader;
  /** Descriptors currently open (0 for the path walk); for tests and the debug log. */
  readonly openCount: number;
}

const OPEN_DIRECTORY = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);
const OPEN_CHILD = OPEN_DIRECTORY | (constants.O_NOFOLLOW ?? 0);
/** Linux's O_CLOEXEC (the same on every architecture); fs.constants does not export it. */
const O_CLOEXEC = 0o2000000;
/** Linux's O_PATH (x64 and arm64, the architectures mcpkit ships for); fs.constants does not export it. */
const O_PATH = 0o10000000;
/** How a child directory is opened: O_NOFOLLOW|O_DIRECTORY, close-on-exec (also by `native-walk.c`). */
export const OPEN_CHILD_CLOEXEC = OPEN_CHILD | O_CLOEXEC;
/** Bytes per getdents64 call: about 2,700 short names; a walk owns one such buffer. */
const LISTING_BYTES = 64 * 1024;
/** The smallest getdents64 record (19 header bytes, a one-byte name and its NUL, 8-aligned). */
const SMALLEST_RECORD = 24;
const DOT = 46;

/** Reads a directory through its descriptor with getdents64, chunk by chunk, names left as bytes. */
class RawReader implements DirectoryReader {
  static {
    stayBelowFtl(RawReader.prototype.next); // see jit.ts
  }

  unsearchable = 0;

  constructor(
    private readonly calls: Libc,
    private readonly fd: number,
    private readonly prefix: string,
    private readonly listing: Listing,
  ) {}

  next(): boolean {
    const { listing, fd } = this;
    const bytes = listing.bytes as Uint8Array;
    const length = this.calls.getdents64(fd, listing.pointer, bytes.length);
    if (length < 0) throw new Error("the directory cannot be read");
    if (length === 0) return false;
    const { types, offsets } = listing;
    let count = 0;
    for (let offset = 0; offset < length; offset += bytes[offset + 16] | (bytes[offset + 17] << 8)) {
      const name = offset + 19;
      if (bytes[name] === DOT && (bytes[name + 1] === 0 || (bytes[name + 1] === DOT && bytes[name + 2] === 0)))
        continue; // "." and ".."
      let type = bytes[offset + 18];
      if (type === DT_UNKNOWN) {
        // This file system does not say: ask the inode, relative to the same descriptor.
        const stat = entryStat();
        if (!stat.atPointer(fd, listing.pointer + name)) {
          if (statRefused(this.prefix + decodeName(bytes, name))) this.unsearchable++; // else gone since the listing
          continue;
        }
        type = stat.type();
      }
      types[count] = type;
      offsets[count] = name;
      count++;
    }
    listing.count = count;
    listing.names.length = 0;
    return true;
  }
}

/** Hands out readdir's entries (the fallbacks) in listing-sized chunks. */
class DirentReader implements DirectoryReader {
  /** Not told apart for readdir listings (the path walk, systems without glibc). */
  readonly unsearchable = 0;
  private position = 0;
  private readonly entries: readonly DirentLike[];
  /** By index in `entries`: 1 where the name is not valid UTF-8; undefined when all are. */
  private readonly undecodable: Uint8Array | undefined;

  constructor(
    path: string,
    private readonly listing: Listing,
  ) {
    const entries = readdirSync(path, { withFileTypes: true });
    // readdir decodes leniently, so bytes that are not UTF-8 show as U+FFFD and two names can come
    // out alike (or like a real U+FFFD): only then are the names read again as bytes, to tell them apart.
    if (entries.some((entry) => entry.name.includes("\uFFFD"))) {
      ({ entries: this.entries, undecodable: this.undecodable } = readByteNames(path));
    } else {
      this.entries = entries;
    }
  }

  next(): boolean {
    if (this.position >= this.entries.length) return false;
    this.position = this.listing.fillFromDirents(this.entries, this.position, this.undecodable);
    return true;
  }
}

/**
 * A directory's names read as bytes, each typed by lstat (Bun's readdir gives no types with byte
 * names); a name that is not valid UTF-8 is flagged, so it is neither opened nor reported by the
 * lenient text that could name another entry.
 */
function readByteNames(path: string): { entries: DirentLike[]; undecodable: Uint8Array } {
  const base = Buffer.from(path.endsWith("/") ? path : `${path}/`);
  const names = readdirSync(path, { encoding: "buffer" });
  const undecodable = new Uint8Array(names.length);
  const entries = names.map((bytes, index): DirentLike => {
    let name: string;
    try {
      name = exactNameText.decode(bytes);
    } catch {
      name = lenientNameText.decode(bytes);
      undecodable[index] = 1;
    }
    let mode = 0;
    try {
      mode = lstatSync(Buffer.concat([base, bytes])).mode & constants.S_IFMT;
    } catch {
      // gone since the listing: typed as neither file, directory nor link, so only counted as scanned
    }
    return {
      name,
      isSymbolicLink: () => mode === constants.S_IFLNK,
      isDirectory: () => mode === constants.S_IFDIR,
      isFile: () => mode === constants.S_IFREG,
    };
  });
  return { entries, undecodable };
}

class DescriptorDirectory implements DirectoryHandle {
  readonly prefix: string;
  private references = 1;

  constructor(
    readonly fd: number,
    readonly path: string,
    private readonly close: (fd: number) => void,
  ) {
    this.prefix = `${path}/`;
  }

  retain(): void {
    this.references++;
  }

  release(): void {
    if (--this.references === 0) this.close(this.fd);
  }
}

class DescriptorAccess implements DirectoryAccess {
  readonly kind = "descriptor";
  openCount = 0;

  constructor(
    private readonly fdDirectory: string,
    private readonly calls: Libc | undefined,
  ) {}

  openStart(root: string, relative: string): DirectoryHandle {
    let current: DirectoryHandle = this.openRoot(root);
    for (const segment of relative.split("/").filter((part) => part !== "")) {
      const next = this.openChild(current, segment);
      current.release();
      if (!next) throw new Error(`"${segment}" is no longer a directory`);
      current = next;
    }
    return current;
  }

  /**
   * The root (a real path, so no part of it is a link) as it is now, or a throw when a part of its
   * path has become a link since it was resolved. On Linux every directory above it is opened with
   * O_PATH relative to the one before, without following a link (O_PATH needs only the search
   * permission that resolving the path needed), and the root itself relative to its parent: no
   * part of the path can be followed as a link, and names are looked up as the file system looks
   * them up (a case-insensitive one included). Elsewhere each part above the root is checked with
   * lstat first, which narrows that swap to the moment between the check and the open.
   */
  private openRoot(root: string): DirectoryHandle {
    if (process.platform !== "linux") {
      checkNoLinkAbove(root);
      return this.wrap(openSync(root, OPEN_CHILD));
    }
    const parts = pathParts(root);
    if (parts.length === 0) return this.wrap(openSync(root, OPEN_DIRECTORY));
    let current = openSync(parse(root).root, O_PATH | OPEN_DIRECTORY);
    try {
      for (const [index, part] of parts.entries()) {
        // O_PATH above the root (search permission only); the root itself is opened for reading.
        const next = this.openBelow(current, part, index < parts.length - 1 ? O_PATH | OPEN_CHILD : OPEN_CHILD);
        if (next < 0) throw new Error(`"${part}" cannot be opened without following a link`);
        this.closeRaw(current);
        current = next;
      }
      return this.wrap(current);
    } catch (error) {
      this.closeRaw(current);
      throw error;
    }
  }

  /**
   * `name` opened relative to the open `parent` (close-on-exec, through the descriptor directory
   * without glibc), or -1 when it cannot be: a link now (ELOOP/ENOTDIR), gone, unreadable, or out
   * of descriptors.
   */
  private openBelow(parent: number, name: string, flags: number): number {
    if (this.calls) return this.calls.openat(parent, this.calls.name(name), flags | O_CLOEXEC);
    try {
      return openSync(`${this.fdDirectory}/${parent}/${name}`, flags);
    } catch {
      return -1;
    }
  }

  private closeRaw(fd: number): void {
    if (this.calls) this.calls.close(fd);
    else closeSync(fd);
  }

  openChild(parent: DirectoryHandle, name: string): DirectoryHandle | undefined {
    if (!isEntryName(name)) return undefined; // never "..", "." or a path, whatever decoded to it
    const fd = this.openBelow(parent.fd, name, OPEN_CHILD);
    return fd >= 0 ? this.wrap(fd) : undefined; // skipped (see openBelow)
  }

  newListing(): Listing {
    const listing = new Listing(LISTING_BYTES / SMALLEST_RECORD);
    if (this.calls) {
      listing.bytes = new Uint8Array(LISTING_BYTES);
      listing.pointer = this.calls.pointer(listing.bytes);
    }
    return listing;
  }

  read(directory: DirectoryHandle, listing: Listing): DirectoryReader {
    if (this.calls && listing.bytes) return new RawReader(this.calls, directory.fd, directory.prefix, listing);
    return new DirentReader((directory as DescriptorDirectory).path, listing);
  }

  private wrap(fd: number): DescriptorDirectory {
    this.openCount++;
    return new DescriptorDirectory(fd, `${this.fdDirectory}/${fd}`, this.closeDescriptor);
  }

  private readonly closeDescriptor = (fd: number): void => {
    this.closeRaw(fd);
    this.openCount--;
  };
}

class PathDirectory implements DirectoryHandle {
  readonly fd = -1;
  constructor(readonly prefix: string) {}
  retain(): void {}
  release(): void {}
}

class PathAccess implements DirectoryAccess {
  readonly kind = "path";
  readonly openCount = 0;

  openStart(root: string, relative: string): DirectoryHandle {
    // Every part of the root's real path must still be a directory, not a link to one (a swap
    // after this check is not excluded by path).
    checkNoLinkAbove(root);
    if (!lstatSync(root).isDirectory()) throw new Error("the root is not a directory");
    let path = root.replace(/[\\/]$/, "");
    // Each segment below the root is checked with lstat, as the descriptor walk opens each with
    // O_NOFOLLOW: a segment swapped for a link since the start was checked is refused, not followed.
    for (const segment of relative.split("/")) {
      if (segment === "") continue;
      path = `${path}/${segment}`;
      if (!lstatSync(path).isDirectory()) throw new Error(`"${relative}" is not a directory below the root`);
    }
    return new PathDirectory(`${path}/`);
  }

  openChild(parent: DirectoryHandle, name: string): DirectoryHandle | undefined {
    if (!isEntryName(name)) return undefined; // never "..", "." or a path, whatever decoded to it
    const path = parent.prefix + name;
    try {
      // A link (on Windows also a junction: a reparse point) is not a directory to lstat.
      return lstatSync(path).isDirectory() ? new PathDirectory(`${path}/`) : undefined;
    } catch {
      return undefined;
    }
  }

  newListing(): Listing {
    return new Listing(LISTING_BYTES / SMALLEST_RECORD);
  }

  read(directory: DirectoryHandle, listing: Listing): DirectoryReader {
    return new DirentReader(directory.prefix, listing);
  }
}

/** A separator or NUL: never in an entry's own name ("\\" separates on Windows, and is a name's character elsewhere). */
const NOT_IN_NAME = process.platform === "win32" ? /[/\\\0]/ : /[/\0]/;

/** Whether `name` can be a directory entry's own name: not empty, "." or "..", and no separator or NUL. */
export function isEntryName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !NOT_IN_NAME.test(name);
}

/** The names along an absolute path below its file system root ("/" or "C:\\"), in order. */
function pathParts(absolute: string): string[] {
  return absolute
    .slice(parse(absolute).root.length)
    .split(/[\\/]/)
    .filter((part) => part !== "");
}

/**
 * Throws unless every directory above `root` (a real path, which has no links) is still a
 * directory and not a link to one: a part swapped since the root was resolved.
 */
function checkNoLinkAbove(root: string): void {
  let path = parse(root).root;
  for (const part of pathParts(root).slice(0, -1)) {
    path = join(path, part);
    if (!lstatSync(path).isDirectory()) throw new Error("a directory above the root has changed");
  }
}

/**
 * Whether `<fdDirectory>/<fd>/` resolves through the open descriptor (Linux `/proc/<pid>/fd`; some
 * BSD-like `/dev/fd` do not): opening the same directory both ways must give the same inode, and a
 * lookup below it must work.
 */
function descriptorDirectoryWorks(fdDirectory: string): boolean {
  let fd: number | undefined;
  try {
    // "/" rather than ".": a service may start in a deleted or unreadable working directory.
    fd = openSync("/", OPEN_DIRECTORY);
    const direct = fstatSync(fd);
    const through = statSync(`${fdDirectory}/${fd}/.`);
    readdirSync(`${fdDirectory}/${fd}`);
    return direct.ino === through.ino && direct.dev === through.dev;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

let chosen: DirectoryAccess | undefined;

/** The path walk, whatever the platform (tests compare it with the anchored one). */
export function pathAccess(): DirectoryAccess {
  return new PathAccess();
}

let fallbackReported = false;

/**
 * Says once per process, through `warn`, when a Linux walk cannot be anchored to descriptors (so a
 * directory swapped for a link mid-walk is only narrowed, not excluded): the README promises the
 * anchored walk on Linux, so losing it must not be silent.
 */
export function reportUnanchoredWalk(warn: (message: string) => void): void {
  if (fallbackReported || process.platform !== "linux" || directoryAccess().kind !== "path") return;
  fallbackReported = true;
  warn(
    "fs: directory descriptors are unavailable here (no /proc?), so searches walk by path; a directory swapped for a symbolic link during a search is checked but not excluded",
  );
}

/** The access this platform supports, probed once per process. */
export function directoryAccess(): DirectoryAccess {
  if (chosen) return chosen;
  if (process.platform !== "win32") {
    for (const candidate of [`/proc/${process.pid}/fd`, "/dev/fd"]) {
      if (descriptorDirectoryWorks(candidate)) {
        // Raw listings are stat'ed by pointer, so they need statx as well as openat/getdents64.
        chosen = new DescriptorAccess(candidate, statxEntryStat() ? libc() : undefined);
        return chosen;
      }
    }
  }
  chosen = new PathAccess();
  return chosen;
}

/**
 * Why a directory could not be opened, asked only after it failed: whether this process has no
 * descriptor left (EMFILE, or ENFILE system-wide), so the notice can name that instead of blaming
 * permissions. Opening /dev/null costs one descriptor for a moment.
 */
export function outOfDescriptors(): boolean {
  try {
    closeSync(openSync("/dev/null", "r"));
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "EMFILE" || code === "ENFILE";
  }
}
