/**
 * Where a test builds a large file tree. Creating and removing hundreds of thousands of entries
 * is most of such a test's time on a disk file system (ext4: about 6 s for 360,000 hard links,
 * against 2.5 s on tmpfs), so a tree goes to /dev/shm where that is a writable directory, and to
 * the system's temporary directory elsewhere (macOS, Windows).
 */
import { accessSync, constants, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function memoryBacked(): string | undefined {
  try {
    accessSync("/dev/shm", constants.W_OK | constants.X_OK);
    return "/dev/shm";
  } catch {
    return undefined;
  }
}

/** A new, empty directory for a large tree; the caller removes it. */
export function largeTreeDir(prefix: string): string {
  return mkdtempSync(join(memoryBacked() ?? tmpdir(), prefix));
}
