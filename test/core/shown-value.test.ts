/**
 * shownValue: how an error message repeats a client's value. JSON as the client wrote it when it
 * is short; cut at the limit however large or deep it is, without walking more of it than it shows
 * (JSON.stringify of a value nested 60,000 deep took 1.6 s of CPU and then overflowed its stack).
 */
import { expect, test } from "bun:test";
import { shownValue } from "../../src/core/text.ts";

test("short values read as their JSON", () => {
  for (const value of [null, 5, 1.5, true, "loud", { a: 1, b: "c" }, [1, [2, [3]]], { 'k"': "v" }, []])
    expect(shownValue(value)).toBe(JSON.stringify(value));
  expect(shownValue(undefined)).toBe("undefined");
});

test("a long string, a huge array and a huge object are cut at the limit with …", () => {
  const cases = [
    "x".repeat(500_000),
    Array.from({ length: 1_000_000 }, (_, i) => i),
    Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`key${i}`, i])),
  ];
  for (const value of cases) {
    const shown = shownValue(value, 40);
    expect(shown).toHaveLength(40);
    expect(shown.endsWith("…")).toBe(true);
    expect(JSON.stringify(value).startsWith(shown.slice(0, 39))).toBe(true);
  }
});

test("a value nested 60,000 deep shows its first 79 brackets, not an error", () => {
  const deep = JSON.parse(`${"[".repeat(60_000)}${"]".repeat(60_000)}`);
  expect(shownValue(deep)).toBe(`${"[".repeat(79)}…`);
});
