/**
 * Allowed roots and containment, always decided on real paths (CVE-2025-53109/53110 in the
 * reference filesystem server came from checking names instead): a start path is accepted only
 * when its realpath is the root's realpath or lies below it at a path-separator boundary.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

export interface AllowedRoot {
  /** As configured or as the client sent it (what a caller is likely to pass as `root`). */
  given: string;
  /** Its realpath; every check uses this. */
  real: string;
  /**
   * For a client root that narrows a configured one (HTTP): the configured root's real path and
   * this root's segments below it. The walk opens the configured root and descends these segments
   * without following links, so swapping a directory for a link after the check leads nowhere.
   */
  anchor?: { real: string; below: string };
}

/** Where a walk opens a start below `root`: its anchor (configured root + segments) when it has one. */
export function openingPath(root: AllowedRoot, relativeStart: string): { root: string; start: string } {
  if (!root.anchor) return { root: root.real, start: relativeStart };
  const start = [root.anchor.below, relativeStart].filter((part) => part !== "").join("/");
  return { root: root.anchor.real, start };
}

/** `client` (inside `configured`) anchored to it, for a race-free open (see `AllowedRoot.anchor`). */
export function anchoredTo(configured: AllowedRoot, client: AllowedRoot): AllowedRoot {
  const below = relative(configured.real, client.real).split(sep).join("/");
  return { ...client, anchor: { real: configured.anchor?.real ?? configured.real, below } };
}

/** Resolves a directory to an allowed root, or returns a sentence saying what is wrong with it. */
export function resolveRoot(given: string, base: string): AllowedRoot | string {
  const absolute = resolve(base, given);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return `root directory "${given}" does not exist`;
  }
  try {
    if (!statSync(real).isDirectory()) return `root "${given}" is not a directory`;
  } catch {
    return `root directory "${given}" cannot be read`;
  }
  return { given: absolute, real };
}

/** Whether `candidate` (a real path) is `root` (a real path) or inside it. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return candidate.startsWith(prefix);
}

export interface StartPoint {
  root: AllowedRoot;
  /** Real absolute path of the directory the walk starts in. */
  directory: string;
  /** That directory relative to the root, `/`-separated; "" for the root itself. */
  relative: string;
}

/** Picks the root named by the `root` argument (default: the first allowed one). */
export function chooseRoot(requested: string | undefined, roots: readonly AllowedRoot[]): AllowedRoot | string {
  if (requested === undefined || requested === "") return roots[0];
  const byName = roots.find((root) => root.given === requested || root.real === requested);
  if (byName) return byName;
  let real: string | undefined;
  try {
    real = isAbsolute(requested) ? realpathSync(requested) : undefined;
  } catch {
    real = undefined;
  }
  const byRealPath = real === undefined ? undefined : roots.find((root) => root.real === real);
  if (byRealPath) return byRealPath;
  const list = roots.map((root) => root.given).join(", ");
  return `'root' "${requested}" is not an allowed root. Use one of: ${list} (or omit 'root' to search ${roots[0].given}).`;
}

const WINDOWS = process.platform === "win32";
/**
 * What separates the segments of the `path` argument: "\\" only on Windows. Elsewhere it is a
 * character a name may hold (`a\\b` is one directory, and the tool reports its entries as
 * `a\\b/…`), and splitting there searched `a/b` instead; a leading "\\" is no absolute path there either.
 */
const PATH_SEPARATORS = WINDOWS ? /[\\/]+/ : /\/+/;

/** Resolves the `path` argument below a root, refusing anything whose real path leaves it. */
export function resolveStart(root: AllowedRoot, path: string | undefined): StartPoint | string {
  const requested = path ?? "";
  if (requested.includes("\0")) return "'path' must not contain NUL characters.";
  // A drive letter or a leading "\" makes a path absolute on Windows only: elsewhere `c:notes` and `\x` are names.
  if (isAbsolute(requested) || (WINDOWS && (/^[A-Za-z]:/.test(requested) || requested.startsWith("\\")))) {
    return `'path' must be relative to the root (got the absolute path "${requested}"). Pass a path below the root such as "docs/notes", or "" for the root itself; use 'root' to pick another allowed root.`;
  }
  const segments = requested.split(PATH_SEPARATORS).filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) {
    return `'path' must stay inside the root: ".." segments are not allowed (got "${requested}"). Pass a path below the root, or "" for the root itself.`;
  }
  const joined = join(root.real, ...segments);
  // One answer for "missing" and "outside": told apart, they would let a caller probe whether any
  // path exists outside the root through a link inside it.
  const notInside = `'path' "${requested}" is not a directory inside the root ${root.given}: it does not exist there, or a symbolic link on the way leads outside the root. Pass an existing directory below the root, or "" for the root itself.`;
  let real: string;
  try {
    real = realpathSync(joined);
  } catch {
    return notInside;
  }
  if (!isInside(root.real, real)) return notInside;
  try {
    if (!statSync(real).isDirectory())
      return `'path' "${requested}" is not a directory. Pass the directory to search in, and use 'glob' to select files.`;
  } catch {
    return `'path' "${requested}" cannot be read.`;
  }
  const rel = relative(root.real, real).split(sep).join("/");
  return { root, directory: real, relative: rel };
}
