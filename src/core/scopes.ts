/**
 * OAuth scope matching (PRODUCT.md "Scopes"): a granted scope may hold `*` segments, and each
 * `*` stands for one or more whole `:`-separated segments. So `*` grants everything, `*:read`
 * grants `fs:read`, and `boj:*` grants `boj:read`, but `fs:re*` grants nothing extra.
 */
import { type Toolset, toolNamed } from "./tool.ts";

export function isScopeGranted(granted: readonly string[], needed: string): boolean {
  const neededSegments = needed.split(":");
  return granted.some((pattern) => matchSegments(pattern.split(":"), 0, neededSegments, 0));
}

function matchSegments(pattern: string[], p: number, target: string[], t: number): boolean {
  if (p === pattern.length) return t === target.length;
  if (pattern[p] === "*") {
    // One or more whole segments.
    for (let end = t + 1; end <= target.length; end++) {
      if (matchSegments(pattern, p + 1, target, end)) return true;
    }
    return false;
  }
  return t < target.length && pattern[p] === target[t] && matchSegments(pattern, p + 1, target, t + 1);
}

/** The scope a tool requires, or undefined for an unknown tool. */
export function toolScope(toolsets: readonly Toolset[], toolName: string): string | undefined {
  return toolNamed(toolsets, toolName)?.tool.scope;
}
