/**
 * Issue 18 G2, without a race: a client root that narrows a configured root is accepted on its real
 * path, then reached by opening the configured root and descending its segments without following
 * links. Swapping one of those segments for a link after the check (what the race in
 * race.test.ts does by chance) deterministically leads nowhere, while opening the checked real
 * path as before lists the link's target.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DirectoryAccess, directoryAccess, pathAccess } from "../../src/toolsets/fs/directories.ts";
import { type AllowedRoot, anchoredTo, openingPath, resolveRoot } from "../../src/toolsets/fs/roots.ts";
import { walk } from "../../src/toolsets/fs/walk.ts";
import { namesOf, walkRequest } from "./support.ts";

let base: string;
let root: string;
let outside: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-fs-anchor-"));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(join(root, "a", "b"), { recursive: true });
  writeFileSync(join(root, "a", "b", "inside.txt"), "x");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "x");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Every name a walk from `opening` reports, and whether its start could not be opened. */
async function namesFrom(access: DirectoryAccess, opening: { root: string; start: string }) {
  const names: string[] = [];
  const outcome = await walk(
    walkRequest(opening.root, {
      ...opening,
      access,
      includeDirectories: true,
      accept: (_directory, relative, batch) => {
        for (const name of namesOf(batch)) names.push(relative === "" ? name : `${relative}/${name}`);
      },
    }),
  );
  return { names, startUnreadable: outcome.startUnreadable };
}

for (const [label, access] of [
  ["descriptor walk", directoryAccess()],
  ["by-path walk", pathAccess()],
] as const) {
  test(`${label}: a client root whose segment became a link after the check is refused, not followed`, async () => {
    const configured = resolveRoot(root, "/") as AllowedRoot;
    const client = anchoredTo(configured, resolveRoot(join(root, "a", "b"), "/") as AllowedRoot);
    expect(openingPath(client, "")).toEqual({ root: configured.real, start: "a/b" });
    expect((await namesFrom(access, openingPath(client, ""))).names).toEqual(["inside.txt"]);

    // The check is done; now "a" is swapped for a link to a tree that also has a "b".
    mkdirSync(join(outside, "b"), { recursive: true });
    writeFileSync(join(outside, "b", "secret-below.txt"), "x");
    renameSync(join(root, "a"), join(root, "parked"));
    symlinkSync(outside, join(root, "a"));
    try {
      const anchored = await namesFrom(access, openingPath(client, ""));
      expect(anchored.names).toEqual([]);
      expect(anchored.startUnreadable).toBe(true);
      // Opening the checked real path itself is refused as well: a part above a root must not be a link.
      const byRealPath = await namesFrom(access, { root: client.real, start: "" });
      expect(byRealPath.names).toEqual([]);
      expect(byRealPath.startUnreadable).toBe(true);
    } finally {
      rmSync(join(root, "a"));
      renameSync(join(root, "parked"), join(root, "a"));
      rmSync(join(outside, "b"), { recursive: true });
    }
  });
}

/**
 * A configured root is resolved once (its real path); a search opens it later. Whoever can write
 * next to it or above it could meanwhile swap it, or a directory above it, for a link to a tree
 * that looks alike: the walk must refuse that root rather than list the link's target.
 */
/**
 * What a walk of `configured` sees while `directory` (the root or a directory above it) is
 * swapped for a link to `target`: it must see nothing and say its start could not be opened.
 */
async function expectRefusedWhileSwapped(
  access: DirectoryAccess,
  configured: AllowedRoot,
  directory: string,
  target: string,
): Promise<void> {
  renameSync(directory, `${directory}-parked`);
  symlinkSync(target, directory);
  try {
    const after = await namesFrom(access, openingPath(configured, ""));
    expect(after.names).toEqual([]);
    expect(after.startUnreadable).toBe(true);
  } finally {
    rmSync(directory);
    renameSync(`${directory}-parked`, directory);
  }
}

for (const [label, access] of [
  ["descriptor walk", directoryAccess()],
  ["by-path walk", pathAccess()],
] as const) {
  test(`${label}: a root swapped for a link after it was resolved is refused, not followed`, async () => {
    const swapped = join(base, `swapped-${label.split(" ")[0]}`);
    mkdirSync(swapped);
    writeFileSync(join(swapped, "inside.txt"), "x");
    const configured = resolveRoot(swapped, "/") as AllowedRoot;
    expect((await namesFrom(access, openingPath(configured, ""))).names).toEqual(["inside.txt"]);
    await expectRefusedWhileSwapped(access, configured, swapped, outside);
  });

  test(`${label}: a root whose parent was swapped for a link to a look-alike tree is refused`, async () => {
    const parent = join(base, `parent-${label.split(" ")[0]}`);
    const lookAlike = join(base, `look-alike-${label.split(" ")[0]}`);
    mkdirSync(join(parent, "project"), { recursive: true });
    writeFileSync(join(parent, "project", "inside.txt"), "x");
    mkdirSync(join(lookAlike, "project"), { recursive: true });
    writeFileSync(join(lookAlike, "project", "secret.txt"), "x");
    const configured = resolveRoot(join(parent, "project"), "/") as AllowedRoot;
    await expectRefusedWhileSwapped(access, configured, parent, lookAlike);
  });
}

test("descriptor walk: a root below a directory that may be searched but not read still opens (only search permission is needed above it)", async () => {
  const locked = join(base, "search-only");
  mkdirSync(join(locked, "project"), { recursive: true });
  writeFileSync(join(locked, "project", "inside.txt"), "x");
  const configured = resolveRoot(join(locked, "project"), "/") as AllowedRoot;
  chmodSync(locked, 0o111);
  try {
    expect((await namesFrom(directoryAccess(), openingPath(configured, ""))).names).toEqual(["inside.txt"]);
  } finally {
    chmodSync(locked, 0o755);
  }
});
