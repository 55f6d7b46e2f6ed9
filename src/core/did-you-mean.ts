/** "Did you mean …?" for a mistyped tool name, flag or toolset. */

/** The candidate nearest to `input` by edit distance (case-insensitive), when it is near enough to be a typo. */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  const wanted = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the name may differ: "boj_get_datacode" → boj_get_data_code, not "oj" → "fs".
  return best !== undefined && bestDistance > 0 && bestDistance <= Math.max(1, Math.floor(wanted.length / 3))
    ? best
    : undefined;
}

/**
 * Edit distance where swapping two neighbours counts once ("bjo" → "boj"), with inputs capped so
 * that hostile names cost nothing.
 */
function editDistance(a: string, b: string): number {
  if (a.length > 128 || b.length > 128) return Number.POSITIVE_INFINITY;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j], beforePrevious[j - 2] + 1);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length];
}
