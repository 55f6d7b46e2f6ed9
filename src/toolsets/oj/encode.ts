import { shownValue } from "../../core/text.ts";

/**
 * Percent-encoding of one path segment or query value, like Rust's `urlencoding::encode` used by
 * the reference: everything but `A-Z a-z 0-9 - _ . ~` is escaped, so `a/b` → `a%2Fb` and
 * `c d` → `c%20d`. (`encodeURIComponent` alone would leave `! ' ( ) *` as they are.)
 */
export function encodeComponent(value: string): string {
  // A lone surrogate (possible in JSON input) cannot be UTF-8 encoded; send U+FFFD instead of failing.
  return encodeURIComponent(value.toWellFormed()).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `.` and `..` are left as they are by the encoding (and `%2E` would not help: the URL parser
 * reads it as a dot too), and the URL parser then resolves them as dot segments:
 * `/api/v1/problems/leetcode/..` requests `/api/v1/problems/`. Such a segment is refused as an
 * argument error naming `field`, in the format of the other argument errors; undefined when
 * `segment` (already trimmed) is fine.
 */
export function dotSegmentError(calledAs: string, field: string, segment: string): string | undefined {
  if (segment !== "." && segment !== "..") return undefined;
  return `Invalid arguments for ${calledAs}: "${field}": "." and ".." name no problem and would change the request's path (got ${shownValue(segment)}). Fix the argument and call again.`;
}
