/**
 * The catalogue folder (src/toolsets/boj/search/catalog-folder.ts): SQLite opens nothing there
 * until the folder is the user's own and writable by nobody else, and the catalogue file and its
 * companions are no links. Before, a link planted at boj-series-catalog.sqlite in a shared
 * catalogue folder made mcpkit write its catalogue into the link's target (an empty private file
 * of the user's became a SQLite database), and the file was created at the umask's 0644.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, lchownSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { CATALOG_FILE, openCatalogStore } from "../../src/toolsets/boj/search/index.ts";
import { scratchDirs } from "../support/scratch.ts";

const scratch = scratchDirs("mcpkit-catalog-folder-");

/** Opens the catalogue in `dir`, writes one series, and says where it went and what was warned. */
function openAndWrite(dir: string): { path: string; warnings: string[] } {
  const warnings: string[] = [];
  const store = openCatalogStore(
    dir,
    createLogger("warn", (line) => warnings.push(line)),
  );
  store.replaceDatabase("FM08", [{ series_code: "FXERD01" } as never], 1, null);
  const path = store.db.filename;
  store.close();
  return { path, warnings };
}

const inMemory = (path: string) => path === "" || path === ":memory:";
const isRoot = process.getuid?.() === 0;

describe("the catalogue folder", () => {
  test("a new folder is 0700 and the catalogue file 0600", () => {
    const dir = join(scratch(), "cache", "mcpkit");
    const { path, warnings } = openAndWrite(dir);
    expect(warnings).toEqual([]);
    expect(path).toBe(join(dir, CATALOG_FILE));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("a catalogue file left at 0644 is made 0600", () => {
    const dir = scratch();
    writeFileSync(join(dir, CATALOG_FILE), "");
    chmodSync(join(dir, CATALOG_FILE), 0o644);
    expect(inMemory(openAndWrite(dir).path)).toBe(false);
    expect(statSync(join(dir, CATALOG_FILE)).mode & 0o777).toBe(0o600);
  });

  test.each([CATALOG_FILE, `${CATALOG_FILE}-wal`])(
    "a link planted at %s is not followed: its target stays as it was, and the catalogue stays in memory with a warning naming the link",
    (name) => {
      const dir = scratch();
      const target = join(scratch(), "private-notes.txt");
      writeFileSync(target, "");
      symlinkSync(target, join(dir, name));
      const { path, warnings } = openAndWrite(dir);
      expect(readFileSync(target, "utf8")).toBe("");
      expect(inMemory(path)).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("cannot use the catalogue folder");
      expect(warnings[0]).toContain(`${name} is a symbolic link`);
    },
  );

  test.each(["0777", "1777", "0703"])("a folder others can write (mode %s) is not used", (mode) => {
    const dir = scratch();
    chmodSync(dir, Number.parseInt(mode, 8));
    const { path, warnings } = openAndWrite(dir);
    expect(inMemory(path)).toBe(true);
    expect(warnings[0]).toContain("is writable by other users");
    expect(warnings[0]).toContain("--boj-catalog-dir");
  });

  test("a folder only the user's own group can write is used: ~/.cache is 0775 with user private groups", () => {
    const dir = scratch();
    chmodSync(dir, 0o775);
    const { path, warnings } = openAndWrite(dir);
    expect(warnings).toEqual([]);
    expect(path).toBe(join(dir, CATALOG_FILE));
  });

  test("a catalogue folder below a folder others can write (not sticky) is not used", () => {
    const open = scratch();
    chmodSync(open, 0o777);
    const dir = join(open, "mine");
    mkdirSync(dir, { mode: 0o700 });
    const { path, warnings } = openAndWrite(dir);
    expect(inMemory(path)).toBe(true);
    expect(warnings[0]).toContain(`the folder ${open}, above the catalogue folder`);
  });

  test("a catalogue folder given as a link to a folder of another user is not used (root only)", () => {
    if (!isRoot) {
      console.log("skipped: only root can give a folder to another user");
      return;
    }
    const theirs = join(scratch(), "theirs");
    mkdirSync(theirs, { mode: 0o700 });
    lchownSync(theirs, 65534, 65534);
    const link = join(scratch(), "cache-link");
    symlinkSync(theirs, link);
    const { path, warnings } = openAndWrite(link);
    expect(inMemory(path)).toBe(true);
    expect(warnings[0]).toContain(`the folder ${theirs} belongs to another user (uid 65534)`);
  });
});
