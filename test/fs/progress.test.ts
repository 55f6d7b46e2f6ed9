/**
 * MCP: a request's progress value increases with each notification. A search's walk reports its
 * count every 100 ms, and repeated it when it had scanned nothing since: a loaded run of
 * test/fs/cancel.test.ts saw 360241 twice, from the native walk ranking after its threads were done.
 */
import { expect, test } from "bun:test";
import { risingProgress } from "../../src/toolsets/fs/progress.ts";

test("a count no higher than the last one reported is not reported again", () => {
  const sent: number[] = [];
  const report = risingProgress((scanned) => sent.push(scanned));
  for (const scanned of [0, 120, 120, 360_241, 360_241, 360_000, 360_242]) report(scanned);
  expect(sent).toEqual([0, 120, 360_241, 360_242]);
});
