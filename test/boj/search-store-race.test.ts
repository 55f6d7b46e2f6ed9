/**
 * Several processes opening one new catalogue file at once (a desktop client starting a few
 * mcpkit servers on one cache folder, a fleet on one volume): each must get the file. Before, the
 * schema's deferred transaction read, then wrote after another process had committed, and SQLite
 * answered "database is locked" at once, whatever busy_timeout said (a stale WAL snapshot cannot
 * wait): 4 or 6 servers searching at once left 1 to 3 of them on an in-memory catalogue that asked
 * BOJ for all 50 databases again (100–200 requests instead of 50), and 8 bare opens failed 21 of 40.
 */
import { expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { scratchDirs } from "../support/scratch.ts";

const OPENER = resolve(import.meta.dir, "../fixtures/boj/open-catalog-store.ts");
const scratch = scratchDirs("mcpkit-catalog-race-");

async function openAtOnce(path: string, processes: number): Promise<string[]> {
  const children = Array.from({ length: processes }, () =>
    Bun.spawn([process.execPath, OPENER, path], { stdout: "pipe", stderr: "inherit" }),
  );
  return Promise.all(children.map(async (child) => (await new Response(child.stdout).text()).trim()));
}

test("8 processes opening one new catalogue file at once all open it and claim its refresh in turn", async () => {
  const outcomes: string[] = [];
  for (let round = 0; round < 4; round++) {
    outcomes.push(...(await openAtOnce(join(scratch(), "boj-series-catalog.sqlite"), 8)));
  }
  expect(outcomes.filter((outcome) => outcome !== "opened")).toEqual([]);
  expect(outcomes).toHaveLength(32);
}, 120_000);
