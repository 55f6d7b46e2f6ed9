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
  /** `*` wildcards (and `*(` `+(` extglobs) in one path segment; `**` as a whole segment is free. */
  starsPerSegment: 3,
} as const;

/** Returns undefined when the pattern is within every limit, else a sentence naming the limit. */
export function checkGlobCost(pattern: string): string | undefined {
  if (pattern.length > GLOB_LIMITS.length) {
    return `'glob' is ${pattern.length} characters long; the limit is ${GLOB_LIMITS.length}. Use a shorter pattern: wildcards ("*", "**") or a character class ("[abc]") instead of listing names.`;
  }
  const braces = braceCost(pattern);
  if (braces.nesting > GLOB_LIMITS.nesting) {
    return `'glob' nests braces ${braces.nesting} deep; the limit is ${GLOB_LIMITS.nesting}. Flatten the pattern, e.g. "{a,b,c}" instead of "{a,{b,{c}}}".`;
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
  for (const segment of pattern.split("/")) {
    if (segment === "**") continue;
    const stars = (segment.replace(/\\./g, "").match(/\*+|\+\(/g) ?? []).length;
    if (stars > GLOB_LIMITS.starsPerSegment) {
      return `'glob' has ${stars} wildcards in the path segment "${segment}"; the limit is ${GLOB_LIMITS.starsPerSegment} per segment (each one multiplies the cost of matching a name). Use fewer "*", e.g. "*report*.md" instead of "*r*e*p*o*r*t*.md", or a character class for single characters ("?" and "[abc]" cost nothing extra).`;
    }
  }
  return undefined;
}

interface BraceCost {
  /** Upper bound of the patterns brace expansion produces (Infinity past 2^53). */
  expansions: number;
  nesting: number;
  largestRange: number;
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
    const range = RANGE.exec(pattern.slice(open + 1, index - 1));
    if (!range) return alternatives[0]; // "{a}" is literal text
    const size = rangeSize(range[1], range[2], range[3]);
    largestRange = Math.max(largestRange, size);
    return size;
  };

  const expansions = sequence(0, false);
  return {
    expansions: expansions > Number.MAX_SAFE_INTEGER ? Number.POSITIVE_INFINITY : expansions,
    nesting,
    largestRange,
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
