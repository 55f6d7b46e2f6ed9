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
