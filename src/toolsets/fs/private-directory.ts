/**
 * A fresh private directory in the temporary directory for a file that code is then loaded from
 * (TinyCC compiling the native walk's C: `native-compile.ts`), only where no other user can swap
 * it. In a directory others may write to without the sticky bit (a `TMPDIR=/srv/shared` of mode
 * 0777, say), another user can rename our `mcpkit-walk-XXXXXX` away and put theirs in its place
 * between the write and the read, and have their C compiled into this process; a reviewer did so in
 * 10 of 30 tries. So every directory from the root to the temporary directory must be owned by this
 * user or root, and writable by no one else unless sticky (as `/tmp` is, mode 1777).
 *
 * Loaded by `native-thread.ts`, which main.ts loads for every command: node's modules are required
 * only when a directory is asked for.
 */

/** Write permission for group or others, and the sticky bit, in `st_mode`. */
const WRITABLE_BY_OTHERS = 0o022;
const STICKY = 0o1000;

/**
 * Whether no user but this one (and root) can rename entries of `directory` or of any directory
 * above it. `directory` is a real path (no symbolic link left in it).
 */
export function onlyOursToRename(directory: string, uid: number): boolean {
  const { statSync } = require("node:fs") as typeof import("node:fs");
  const parts = directory.split("/").filter(Boolean);
  for (let depth = parts.length; depth >= 0; depth--) {
    const path = `/${parts.slice(0, depth).join("/")}`;
    const { mode, uid: owner } = statSync(path);
    if (owner !== uid && owner !== 0) return false;
    if ((mode & WRITABLE_BY_OTHERS) !== 0 && (mode & STICKY) === 0) return false;
  }
  return true;
}

/**
 * A new directory (`mkdtemp`, mode 0700) named `prefix` + six random characters in the temporary
 * directory, or undefined when that is not private enough (see the top) or cannot be made.
 */
export function makePrivateDirectory(prefix: string): string | undefined {
  try {
    const { mkdtempSync, realpathSync } = require("node:fs") as typeof import("node:fs");
    const { tmpdir } = require("node:os") as typeof import("node:os");
    const parent = realpathSync(tmpdir());
    if (!onlyOursToRename(parent, process.getuid?.() ?? 0)) return undefined;
    return mkdtempSync(`${parent}/${prefix}`);
  } catch {
    return undefined; // no temporary directory, or out of descriptors
  }
}
