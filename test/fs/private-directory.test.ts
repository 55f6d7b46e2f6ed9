/**
 * Where TinyCC's copy of the native walk's C may be written (`private-directory.ts`): only below
 * directories no other user can rename entries of, since a swapped directory would have their C
 * compiled into the process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makePrivateDirectory, onlyOursToRename } from "../../src/toolsets/fs/private-directory.ts";

const uid = process.getuid?.() ?? 0;
let base: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "mcpkit-private-")));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A directory below `base` with `mode` (chmod, so the umask does not interfere). */
function directory(name: string, mode: number): string {
  const path = join(base, name);
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  return path;
}

describe("onlyOursToRename", () => {
  test("a directory writable by others without the sticky bit is not; with it, or writable by its owner alone, is", () => {
    expect(onlyOursToRename(directory("open", 0o777), uid)).toBe(false);
    expect(onlyOursToRename(directory("group", 0o775), uid)).toBe(false);
    expect(onlyOursToRename(directory("sticky", 0o1777), uid)).toBe(true);
    expect(onlyOursToRename(directory("own", 0o755), uid)).toBe(true);
  });

  test("a directory below one others may rename entries of is not, however private itself", () => {
    const above = directory("open-above", 0o777);
    const below = directory("open-above/mine", 0o700);
    expect(onlyOursToRename(below, uid)).toBe(false);
    chmodSync(above, 0o755);
    expect(onlyOursToRename(below, uid)).toBe(true);
  });

  test("a directory owned by another user (neither this one nor root) is not", () => {
    const own = directory("owned", 0o755);
    // Seen by another user: trusted only when its owner is root (as when the tests run as root).
    expect(onlyOursToRename(own, 54321)).toBe(statSync(own).uid === 0);
    // Seen by a user who owns nothing here: root's directories are still trusted, others' are not.
    expect(onlyOursToRename("/", 54321)).toBe(true);
  });
});

describe("makePrivateDirectory", () => {
  test("makes a 0700 directory in a private enough TMPDIR, none in one others may write to", () => {
    const previous = process.env.TMPDIR;
    try {
      process.env.TMPDIR = directory("tmp-ok", 0o1777);
      const made = makePrivateDirectory("mcpkit-test-");
      expect(made).toBeString();
      expect(statSync(made as string).mode & 0o777).toBe(0o700);
      process.env.TMPDIR = directory("tmp-open", 0o777);
      expect(makePrivateDirectory("mcpkit-test-")).toBeUndefined();
      process.env.TMPDIR = join(base, "missing");
      expect(makePrivateDirectory("mcpkit-test-")).toBeUndefined();
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  });
});
