/**
 * writeAtomically in process, where the pid is known: the name the old code wrote its temp file under
 * (`.<name>.<pid>.tmp`) can be planted in advance, which a spawned process's pid would not allow.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "bun:test";
import { writeAtomically } from "../../src/cli/install/write.ts";
import { tempHome } from "./install-helpers.ts";

test("a link planted at the old temp name is neither written through nor renamed into the config", () => {
  const dir = tempHome();
  const file = path.join(dir, "mcp.json");
  fs.writeFileSync(file, "{}\n", { mode: 0o640 });
  const victim = path.join(dir, "victim.txt");
  fs.writeFileSync(victim, "untouched", { mode: 0o600 });
  const planted = path.join(dir, `.mcp.json.${process.pid}.tmp`);
  fs.symlinkSync(victim, planted);

  writeAtomically(file, '{ "new": true }\n', "{}\n");

  expect(fs.readFileSync(victim, "utf8")).toBe("untouched");
  expect(fs.statSync(victim).mode & 0o777).toBe(0o600);
  expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
  expect(fs.readFileSync(file, "utf8")).toBe('{ "new": true }\n');
  expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  expect(fs.readlinkSync(planted)).toBe(victim);
  // Nothing else is left behind: the temp files were renamed into place.
  expect(fs.readdirSync(dir).sort()).toEqual([path.basename(planted), "mcp.json", "mcp.json.bak", "victim.txt"].sort());
});

test("a new file gets 0600 whatever the umask allows, and no temp file is left behind", () => {
  const dir = tempHome();
  const file = path.join(dir, "sub", "settings.json");
  writeAtomically(file, "{}\n", undefined);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  writeAtomically(file, "{ }\n", "{}\n");
  expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["settings.json", "settings.json.bak"]);
});

test("the config turned into a link after it was read is refused, and the link's target is untouched", () => {
  const dir = tempHome();
  const file = path.join(dir, "mcp.json");
  const victim = path.join(dir, "victim.json");
  fs.writeFileSync(victim, "{}\n", { mode: 0o600 });
  fs.symlinkSync(victim, file);
  expect(() => writeAtomically(file, "{ }\n", "{}\n")).toThrow("is a symbolic link");
  expect(fs.readFileSync(victim, "utf8")).toBe("{}\n");
  expect(fs.existsSync(`${file}.bak`)).toBe(false);
});
