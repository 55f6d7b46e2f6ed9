/**
 * The platforms a craboj server knows (docs/contracts/oj.md §4): its `/api/v1/problems/{source}`
 * answers 400 `invalid source` for anything else. `tools/list` shows them as an `enum` so clients
 * can offer them; any letter case and surrounding spaces are still accepted, as the reference
 * server trimmed what it was given.
 */
import * as v from "valibot";

export const SOURCES = ["leetcode", "codeforces", "atcoder", "luogu", "spoj"] as const;
export type Source = (typeof SOURCES)[number];

const VALID = SOURCES.join(", ");

/** The refusal of an unknown platform; argument checks add the value themselves (`got "…"`). */
export function unknownSource(input?: string): string {
  return `unknown source${input === undefined ? "" : ` ${JSON.stringify(input.trim())}`}; use one of: ${VALID}`;
}

/**
 * A platform name: an enum in the schema, folded to lower case and checked against SOURCES. With
 * `blankMeansAbsent` a blank value passes as "" (find_similar_problems treats it as not given).
 */
export function sourceSchema(description: string, { blankMeansAbsent = false } = {}) {
  return v.pipe(
    v.string(),
    v.metadata({ enum: [...SOURCES] }),
    v.description(description),
    v.transform((input: string) => input.trim().toLowerCase()),
    v.check(
      (input: string) => (blankMeansAbsent && input === "") || (SOURCES as readonly string[]).includes(input),
      (issue) => (issue.input === "" ? `source must be non-empty; use one of: ${VALID}` : unknownSource()),
    ),
  );
}

/**
 * `leetcode, Codeforces` → `leetcode,codeforces`. Empty entries are dropped; an unknown one is an
 * error naming it (the server would silently return nothing for it).
 */
export function readSourceFilter(
  text: string,
): { ok: true; value: string | undefined } | { ok: false; message: string } {
  const entries = text
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== "");
  const unknown = entries.find((entry) => !(SOURCES as readonly string[]).includes(entry));
  if (unknown !== undefined)
    return { ok: false, message: `"source_filter": ${unknownSource(unknown)} (comma-separated)` };
  return { ok: true, value: entries.length === 0 ? undefined : [...new Set(entries)].join(",") };
}
