/**
 * Paths longer than a small output budget can hold. A page is shortened to what fits, but a path
 * cannot be split, and the cursor carries the whole last path: when not even one match fits, the
 * output budget's last resort cut `nextCursor` to a "[… cut at 0 of 5152 bytes …]" sentence and
 * appended a note to `matches[0].path`, so paging broke and the path was no path. Now such a page
 * is an error naming the --max-output-bytes that shows it, and no structuredContent ever carries a
 * cut cursor or a cut path.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/mcp.ts";

type Output = {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: { matches: { path: string }[]; nextCursor: string | null; truncated?: unknown };
};

let root: string;
/** Every file, as the tool names it: two below 15 levels of 250-byte names (3,767 bytes), five short ones. */
const FILES: string[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-fs-long-"));
  const deep = Array.from({ length: 15 }, () => "d".repeat(250)).join("/");
  mkdirSync(join(root, deep), { recursive: true });
  FILES.push(`${deep}/f1`, `${deep}/f2`, "s1", "s2", "s3", "s4", "s5");
  // Distinct times, so every order is fixed: the long paths newest and oldest.
  FILES.forEach((file, index) => {
    writeFileSync(join(root, file), "x");
    const when = new Date(Date.UTC(2025, 0, 1 + (index === 1 ? 30 : index)));
    utimesSync(join(root, file), when, when);
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function call(args: Record<string, unknown>, budget: number): Promise<{ code: number; output: Output }> {
  const result = await runCli([
    "call",
    "fs_search_by_time",
    JSON.stringify(args),
    "--root",
    root,
    "--max-output-bytes",
    String(budget),
  ]);
  return { code: result.code, output: JSON.parse(result.stdout) as Output };
}

test("no structuredContent carries a cut cursor or a cut path; a match too long for the budget is an error naming the budget that shows it", async () => {
  let errors = 0;
  for (const sort of ["path_asc", "time_desc"]) {
    for (const budget of [1_000, 3_000, 9_000, 20_000]) {
      const args = { timeField: "modified", sort, limit: 3 };
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const pageArgs = cursor === undefined ? args : { ...args, cursor };
        let { code, output } = await call(pageArgs, budget);
        let shownUnder = budget;
        if (output.isError) {
          errors++;
          const text = output.content[0].text;
          expect(output.structuredContent).toBeUndefined();
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
          expect(text).toContain(`output budget of ${budget} bytes`);
          expect(code).toBe(2); // the command must change: a retry cannot help
          const needed = Number(/--max-output-bytes (\d+) or more/.exec(text)?.[1]);
          expect(needed).toBeGreaterThan(budget);
          // The budget it names shows that page.
          ({ code, output } = await call(pageArgs, needed));
          expect(output.isError).toBeUndefined();
          expect(output.structuredContent?.matches.length).toBeGreaterThan(0);
          shownUnder = needed;
        }
        expect(code).toBe(0);
        const structured = output.structuredContent;
        if (!structured) throw new Error("no structuredContent");
        expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(shownUnder);
        expect(Buffer.byteLength(output.content.map((block) => block.text).join(""))).toBeLessThanOrEqual(shownUnder);
        expect(structured.truncated).toBeUndefined();
        for (const match of structured.matches) expect(FILES).toContain(match.path); // whole, never cut
        seen.push(...structured.matches.map((match) => match.path));
        if (structured.nextCursor === null) break;
        expect(structured.nextCursor).toMatch(/^[\w-]+\.[\w-]+$/); // a cursor, not a sentence
        expect(output.content[0].text).toContain(`cursor "${structured.nextCursor}"`);
        cursor = structured.nextCursor;
      }
      // Paging to the end returned every file once.
      expect(seen.sort()).toEqual([...FILES].sort());
    }
  }
  expect(errors).toBeGreaterThan(0); // the small budgets did meet a match they cannot hold
}, 60_000);
