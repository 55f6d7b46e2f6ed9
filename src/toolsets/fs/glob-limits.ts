/**
 * What a glob may cost, decided on its text before anything is compiled or expanded.
 *
 * fast-glob expands braces eagerly (`{1..999}{1..999}` is a million patterns, 9 s and 1.4 GB) and
 * turns every `*` into a lazy regex loop (k of them in one segment cost O(length^k) per name), so
 * these bounds keep compiling under a few milliseconds and matching under a few milliseconds per
 * entry. Each refusal says which limit was hit and how to write the pattern instead
 * (docs/contracts/fs-search-by-time.md, "Limits").
 */

export const GLOB_LIMITS = {
  /** Characters in the pattern. */
  length: 1024,
  /** Patterns that brace expansion may produce in total. */
  expansions: 1000,
  /** Elements of one range such as `{1..100}`. */
  range: 1000,
  /** Braces or extglob parentheses inside each other. */
  nesting: 4,
  /** `*` wildcards (and `*(` `+(` `!(` extglobs) in one path segment; `**` as a whole segment is free. */
  starsPerSegment: 3,
  /**
   * The product, over every `?(…)` `@(…)` `!(…)` group, of the ways it can match (its alternatives,
   * plus one when it may match nothing). A failed match may try every combination, so this bounds
   * the backtracking of the whole pattern (issue 18 G1: 21 `?(x|xx)` groups are 3^21 ways, 19 s).
   */
  alternatives: 16,
  /**
   * Whole-segment `**` in one pattern. Each one lets the regex try every split of the path among
   * them: on a 60-level path of "a" directories, 3 cost 1.6 ms a failed match, 4 cost 18 ms, 5 0.14 s.
   */
  globstars: 3,
  /**
   * Whole-segment `**` when the search may go deeper than DEEP_PATH levels: the splits grow with
   * the depth (2 cost 13 ms and 3 cost 1.6 s a match on a 1,000-level path).
   */
  deepGlobstars: 1,
  /**
   * A bound on the work of matching one path: brace expansions × extglob ways × 64 per wildcard
   * that can split a name (the first of a segment, and each further one in any segment: a
   * segment's end is fixed by "/", yet a failed match retries every way of every segment) × 64 per
   * `**` after the first. Calibrated so that no accepted pattern takes more than a few
   * milliseconds on 255-byte names: `*x*x*x{1..999}Z` took 0.9 s, three `*a*a*` segments 103 s
   * on 60-byte names, and three `**` each followed by a `*a*` segment 0.8 s.
   */
  matchCost: 64 ** 3,
} as const;

/** Deeper than this, a search allows only GLOB_LIMITS.deepGlobstars whole-segment `**`. */
const DEEP_PATH = 64;

/**
 * Returns undefined when the pattern is within every limit for a search at most `maxDepth` levels
 * deep, else a sentence naming the limit.
 */
export function checkGlobCost(pattern: string, maxDepth = DEEP_PATH): string | undefined {
  if (pattern.length > GLOB_LIMITS.length) {
    return `'glob' is ${pattern.length} characters long; the limit is ${GLOB_LIMITS.length}. Use a shorter pattern: wildcards ("*", "**") or a character class ("[abc]") instead of listing names.`;
  }
  const braces = braceCost(pattern);
  if (braces.nesting > GLOB_LIMITS.nesting) {
    return `'glob' nests braces ${braces.nesting} deep; the limit is ${GLOB_LIMITS.nesting}. Flatten the pattern, e.g. "{a,b,c}" instead of "{a,{b,{c}}}".`;
  }
  if (braces.oddRange) {
    return `'glob' has the brace range "${braces.oddRange.slice(0, 40)}", but only numbers ("{1..20}") and single letters ("{a..z}") may form a range. Use a character class for characters (e.g. "[!-~]"), or escape the braces ("\\{", "\\}") to match them as text.`;
  }
  if (braces.largestRange > GLOB_LIMITS.range) {
    return `'glob' has a brace range of ${braces.largestRange} elements; the limit is ${GLOB_LIMITS.range}. Use a wildcard or a character class instead, e.g. "file-*.log" or "file-[0-9][0-9][0-9].log" rather than "file-{1..5000}.log".`;
  }
  if (braces.expansions > GLOB_LIMITS.expansions) {
    const count = Number.isFinite(braces.expansions) ? `${braces.expansions}` : "more than 10^15";
    return `'glob' expands to ${count} patterns through its braces; the limit is ${GLOB_LIMITS.expansions}. Use fewer brace groups, or wildcards ("*") and character classes ("[0-9]") that match the same names without expanding.`;
  }
  const parentheses = parenthesisNesting(pattern);
  if (parentheses > GLOB_LIMITS.nesting) {
    return `'glob' nests extglob parentheses ${parentheses} deep; the limit is ${GLOB_LIMITS.nesting}. Flatten the pattern, e.g. "@(a|b|c)" instead of "@(a|@(b|@(c)))".`;
  }
  const groups = extglobCost(pattern);
  if (groups.repeatedAmbiguous) {
    return `'glob' repeats an extglob group with alternatives or wildcards inside ("${groups.repeatedAmbiguous}"), which can take exponential time to match a name. Repeat one fixed piece only, e.g. "+([0-9])" or "*(ab)", or use a wildcard: "*" instead of "*(a|ab)".`;
  }
  if (groups.ways > GLOB_LIMITS.alternatives) {
    const count = Number.isFinite(groups.ways) ? `${groups.ways}` : "more than 10^15";
    return `'glob' has extglob groups that can match in ${count} combined ways; the limit is ${GLOB_LIMITS.alternatives} (each "?(a|b)" or "@(a|b|)" group multiplies the cost of matching a name). Use a wildcard or a character class instead, e.g. "*" or "[a-z0-9]" rather than "?([a-z0-9]|[a-z0-9][a-z0-9])" repeated.`;
  }
  const segments = segmentCost(pattern);
  if (segments.crowded) {
    const { segment, stars } = segments.crowded;
    return `'glob' has ${stars} wildcards in the path segment "${segment}"; the limit is ${GLOB_LIMITS.starsPerSegment} per segment (each one multiplies the cost of matching a name). Use fewer "*", e.g. "*report*.md" instead of "*r*e*p*o*r*t*.md", or a character class for single characters ("?" and "[abc]" cost nothing extra).`;
  }
  const globstarLimit = maxDepth > DEEP_PATH ? GLOB_LIMITS.deepGlobstars : GLOB_LIMITS.globstars;
  if (segments.globstars > globstarLimit) {
    const deeper =
      maxDepth > DEEP_PATH
        ? ` when the search may go deeper than ${DEEP_PATH} levels (set 'maxDepth' to ${DEEP_PATH} or less to use up to ${GLOB_LIMITS.globstars})`
        : "";
    return `'glob' has ${segments.globstars} "**" segments; the limit is ${globstarLimit}${deeper}, since each one multiplies the ways a path can be split. Keep one "**" and name the rest, e.g. "**/src/*/test/*.ts" rather than "**/src/**/test/**/*.ts".`;
  }
  const wildcards = segments.splitting + Math.max(0, segments.globstars - 1);
  if (braces.expansions * groups.ways * 64 ** wildcards > GLOB_LIMITS.matchCost) {
    return `'glob' combines ${wildcards} wildcards that can each split a name or a path ("*" beyond the first of its segment count across segments, and each "**" after the first) with ${braces.expansions * groups.ways} brace or extglob alternatives; together they could take seconds to match one path. Use fewer of either: e.g. "*x*{1..9}" instead of "*x*x*x{1..999}", "**/*a*/*.ts" instead of "**/*a*/**/*a*/*.ts", or one "*" in place of several.`;
  }
  return undefined;
}

interface SegmentCost {
  /** Whole-segment `**`. */
  globstars: number;
  /**
   * Wildcards that can split a name in more than one way, summed over the segments: the first of
   * a segment scans it once, each further one multiplies the ways (counted once for the pattern).
   */
  splitting: number;
  /** The first segment with more wildcards than GLOB_LIMITS.starsPerSegment. */
  crowded?: { segment: string; stars: number };
}

function segmentCost(pattern: string): SegmentCost {
  const cost: SegmentCost = { globstars: 0, splitting: 0 };
  let anyWildcard = false;
  for (const segment of pattern.split("/")) {
    if (segment === "**") {
      cost.globstars++;
      continue;
    }
    const stars = (segment.replace(/\\./g, "").match(/\*|\+\(|!\(/g) ?? []).length;
    if (stars > GLOB_LIMITS.starsPerSegment) cost.crowded ??= { segment, stars };
    if (stars > 0) {
      anyWildcard = true;
      cost.splitting += stars - 1;
    }
  }
  if (anyWildcard) cost.splitting++;
  return cost;
}

interface BraceCost {
  /** Upper bound of the patterns brace expansion produces (Infinity past 2^53). */
  expansions: number;
  nesting: number;
  largestRange: number;
  /** The first brace group with ".." that is not a range of numbers or of single letters. */
  oddRange?: string;
}

const RANGE = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/;

/**
 * Counts what brace expansion would produce without producing it: a sequence multiplies its
 * groups, a group adds its alternatives, a range counts its elements. Unbalanced braces are
 * literal text, as in the braces library fast-glob uses; the count is an upper bound (duplicates
 * are not removed).
 */
function braceCost(pattern: string): BraceCost {
  let index = 0;
  let nesting = 0;
  let largestRange = 0;
  let oddRange: string | undefined;

  const sequence = (depth: number, inGroup: boolean): number => {
    let product = 1;
    while (index < pattern.length) {
      const char = pattern[index];
      if (char === "\\") {
        index += 2;
      } else if (inGroup && (char === "," || char === "}")) {
        return product;
      } else if (char === "{") {
        const open = index;
        index++;
        const count = group(depth + 1, open);
        if (count === undefined)
          index = open + 1; // unbalanced: a literal "{"
        else product *= count;
      } else {
        index++;
      }
    }
    return product;
  };

  const group = (depth: number, open: number): number | undefined => {
    const alternatives: number[] = [];
    for (;;) {
      alternatives.push(sequence(depth, true));
      if (index >= pattern.length) return undefined;
      if (pattern[index] === "}") break;
      index++; // ","
    }
    index++; // "}"
    nesting = Math.max(nesting, depth);
    if (alternatives.length > 1) return alternatives.reduce((sum, count) => sum + count, 0);
    const body = pattern.slice(open + 1, index - 1);
    const range = RANGE.exec(body);
    if (!range) {
      // The braces library makes a range of far more than numbers and letters ("{!..~}" is 94
      // characters, "{+1..+999}" 999 numbers): a ".." it might expand is refused, not guessed at.
      if (body.replace(/\\./g, "").includes("..")) oddRange ??= pattern.slice(open, index);
      return alternatives[0]; // "{a}" is literal text
    }
    const size = rangeSize(range[1], range[2], range[3]);
    largestRange = Math.max(largestRange, size);
    return size;
  };

  const expansions = sequence(0, false);
  return {
    expansions: expansions > Number.MAX_SAFE_INTEGER ? Number.POSITIVE_INFINITY : expansions,
    nesting,
    largestRange,
    oddRange,
  };
}

function rangeSize(from: string, to: string, step: string | undefined): number {
  const numeric = /\d/.test(from) && /\d/.test(to);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const stride = Math.max(1, Math.abs(Number(step ?? 1)) || 1);
  return Math.floor(Math.abs(b - a) / stride) + 1;
}

function parenthesisNesting(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (char === "(") deepest = Math.max(deepest, ++depth);
    else if (char === ")" && depth > 0) depth--;
  }
  return deepest;
}

const EXTGLOB = /[?@*+!]\(/y;

/**
 * What the extglob groups of a pattern may cost: the product of the ways each `?(…)` `@(…)`
 * `!(…)` group can match (nested groups multiply too: an over-estimate is safe), and the first
 * `*(…)` or `+(…)` whose body is not one fixed-width piece. A repeated group with alternatives or
 * wildcards is the textbook exponential regex (`(a|aa)+`), so it is refused outright.
 */
function extglobCost(pattern: string): { ways: number; repeatedAmbiguous?: string } {
  let ways = 1;
  let repeatedAmbiguous: string | undefined;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") {
      i++;
      continue;
    }
    EXTGLOB.lastIndex = i;
    if (!EXTGLOB.test(pattern)) continue;
    const kind = pattern[i];
    const close = closingParenthesis(pattern, i + 1);
    if (close === undefined) continue; // unbalanced: literal text to picomatch
    const body = pattern.slice(i + 2, close);
    const alternatives = topLevelAlternatives(body);
    if (kind === "*" || kind === "+") {
      if (!unambiguousRepeat(alternatives)) repeatedAmbiguous ??= pattern.slice(i, close + 1);
      continue;
    }
    // "?(…)" may also match nothing; an empty alternative is already one of the ways.
    ways *= alternatives.length + (kind === "?" ? 1 : 0);
    if (ways > Number.MAX_SAFE_INTEGER) ways = Number.POSITIVE_INFINITY;
  }
  return { ways, repeatedAmbiguous };
}

/**
 * Whether repeating these alternatives matches a name in at most one way per position: one
 * fixed-width piece (literals, "?", classes), or distinct plain literals of one length
 * ("+(a|b)", "*(ab|cd)"). Anything else ("+(x|xx)", "*(a|[a-z])") can split a name many ways.
 */
function unambiguousRepeat(alternatives: string[]): boolean {
  const fixedWidth = (piece: string) => !/(^|[^\\])([*|(])/.test(piece);
  if (alternatives.length === 1) return fixedWidth(alternatives[0]);
  const plain = alternatives.every((alternative) => /^[^*?[\]()|\\!@+{}]+$/.test(alternative));
  const oneLength = alternatives.every((alternative) => alternative.length === alternatives[0].length);
  return plain && oneLength && new Set(alternatives).size === alternatives.length;
}

/** The index of the ")" that closes the "(" at `open`, or undefined when it is never closed. */
function closingParenthesis(pattern: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return i;
  }
  return undefined;
}

function topLevelAlternatives(body: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === "\\") i++;
    else if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "|" && depth === 0) {
      alternatives.push(body.slice(start, i));
      start = i + 1;
    }
  }
  alternatives.push(body.slice(start));
  return alternatives;
}
