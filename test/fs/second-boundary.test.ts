/**
 * A file time a nanosecond below a whole second (23:59:59.999999999) is read in ms as a double,
 * which rounds it up to that second: every walk must then place it on the same side of a `from`
 * or `to` at that second, in exactly one of [.., X) and [X, ..). The JavaScript walk's fast path
 * dropped it from `from = X` by its whole seconds, while it rounded into `to`'s excluded end, so it
 * was in neither, and the native walk (which leaves a second each way to JavaScript) reported it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/mcp.ts";

const SECOND = "2025-12-15T00:00:00Z";
// Nanosecond times need utimensat: `touch -d` (coreutils) sets them; fs.utimes takes seconds as a double.
const hasTouch = Bun.which("touch") !== null;
if (!hasTouch) console.log("skipped: setting nanosecond file times needs touch (apt-get install coreutils)");
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-fs-second-"));
  mkdirSync(join(root, "sub"));
  for (const name of ["before", "at"]) writeFileSync(join(root, "sub", name), "x");
  if (!hasTouch) return;
  const before = Bun.spawnSync(["touch", "-d", "2025-12-14T23:59:59.999999999Z", join(root, "sub", "before")]);
  const at = Bun.spawnSync(["touch", "-d", SECOND, join(root, "sub", "at")]);
  if (before.exitCode !== 0 || at.exitCode !== 0) throw new Error("touch -d could not set the file times");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function found(args: Record<string, unknown>, walk: string): Promise<string[]> {
  const result = await runCli([
    "call",
    "fs_search_by_time",
    JSON.stringify({ timeField: "modified", sort: "path_asc", ...args }),
    "--root",
    root,
    "--fs-native-walk",
    walk,
  ]);
  const output = JSON.parse(result.stdout) as { structuredContent: { matches: { path: string }[] } };
  return output.structuredContent.matches.map((match) => match.path);
}

test.skipIf(process.platform !== "linux" || !hasTouch)(
  "a time a nanosecond below a second lands on one side of from and to at that second, in every walk",
  async () => {
    const fromJs = await found({ from: SECOND }, "off");
    const toJs = await found({ to: SECOND }, "off");
    // In exactly one of the two ranges (it was in neither).
    expect([...fromJs, ...toJs].filter((path) => path === "sub/before")).toHaveLength(1);
    expect(fromJs).toContain("sub/at");
    expect(toJs).not.toContain("sub/at");
    // The native walk (at once, where a release embeds it; else the JavaScript walk again) agrees.
    expect(await found({ from: SECOND }, "0")).toEqual(fromJs);
    expect(await found({ to: SECOND }, "0")).toEqual(toJs);
  },
);
