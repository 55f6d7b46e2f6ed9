/**
 * fast-glob's own matching, applied to our walk.
 *
 * We walk the tree ourselves (no symlinks, bounded memory, a time budget, descriptor-anchored),
 * but `glob` must mean exactly what it means to fast-glob. So we build fast-glob's tasks with its
 * public `generateTasks`, and ask its entry and deep filters (the code `fg.glob` runs) about each
 * entry, with fast-glob's default options (`dot: false`, braces, extglobs, globstar,
 * case-sensitive) relative to the start path.
 *
 * The two filters and `Settings` are not public API: they live in fast-glob's `out/` modules. They
 * are used here only, with fast-glob pinned to an exact version in package.json, and
 * test/fs/glob.test.ts compares our matches with `fg.sync` on a real tree for a table of patterns,
 * so any drift in a fast-glob upgrade fails a test instead of changing results. Reimplementing the
 * filters on micromatch would not be more public: micromatch is fast-glob's dependency, not ours.
 */
import type { Dirent } from "node:fs";
import { posix } from "node:path";
import type { EntryFilterFunction, MicromatchOptions } from "fast-glob/out/types/index.js";
import { lazy } from "../../core/lazy.ts";
import { checkGlobCost } from "./glob-limits.ts";

/**
 * fast-glob, loaded by the first search with a glob: it pulls in micromatch, its own walkers and
 * node:stream, several milliseconds of start-up that a server, or a `mcpkit call` without a glob,
 * never needs. Its internals are CommonJS modules exporting `default`; require() reads them the
 * same way from the sources and from the compiled binary, where a default import resolves differently.
 * Kept once loaded: a `require` per call looks each module up again.
 */
const fastGlob = lazy(() => ({
  generateTasks: (require("fast-glob") as typeof import("fast-glob")).generateTasks,
  DeepFilter: (
    require("fast-glob/out/providers/filters/deep.js") as typeof import("fast-glob/out/providers/filters/deep.js")
  ).default,
  EntryFilter: (
    require("fast-glob/out/providers/filters/entry.js") as typeof import("fast-glob/out/providers/filters/entry.js")
  ).default,
  Settings: (require("fast-glob/out/settings.js") as typeof import("fast-glob/out/settings.js")).default,
}));

const OPTIONS = { unique: false, onlyFiles: false, followSymbolicLinks: false } as const;

/** The parts of fs.Dirent that fast-glob's filters read. */
export interface EntryKind {
  readonly name: string;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

export interface GlobMatcher {
  /** Whether the entry at `path` (relative to the start, `/`-separated) is a match. */
  matches(path: string, entry: EntryKind): boolean;
  /** Whether anything below the directory at `path` can still match (fast-glob's pruning). */
  mayMatchBelow(path: string, entry: EntryKind): boolean;
}

interface CompiledTask {
  /** "" for the start itself, else the directory the task's patterns are anchored in. */
  base: string;
  /** fast-glob reads a static pattern's path directly instead of walking below its base. */
  dynamic: boolean;
  entry: EntryFilterFunction;
  deep: EntryFilterFunction;
}

/**
 * Returns a matcher, or a sentence saying why the pattern cannot be used (in a search at most
 * `maxDepth` levels deep: checkGlobCost).
 */
export function compileGlob(text: string, maxDepth?: number): GlobMatcher | string {
  // fast-glob echoes a leading "./" in its output paths; ours are root-relative, so drop it.
  const pattern = text.replace(/^(\.\/)+/, "");
  if (pattern.trim() === "") return "'glob' must not be empty; omit it to match every entry.";
  const tooCostly = checkGlobCost(pattern, maxDepth);
  if (tooCostly) return tooCostly;
  if (posix.isAbsolute(pattern) || /^[A-Za-z]:[\\/]/.test(pattern)) {
    return `'glob' must be relative to the start path (got an absolute pattern "${pattern}"); use e.g. "**/*.md" and set 'path' to choose the directory.`;
  }
  if (/(^|\/)\.\.(\/|$)/.test(pattern)) {
    return `'glob' must not contain '..' segments (got "${pattern}"); patterns only match below the start path.`;
  }
  // Everything else is fast-glob's business: an unusual pattern simply matches nothing, as with fg.glob.
  const { generateTasks, DeepFilter, EntryFilter, Settings } = fastGlob.get();
  const settings = new Settings(OPTIONS);
  const micromatchOptions: MicromatchOptions = {
    dot: settings.dot,
    matchBase: settings.baseNameMatch,
    nobrace: !settings.braceExpansion,
    nocase: !settings.caseSensitiveMatch,
    noext: !settings.extglob,
    noglobstar: !settings.globstar,
    posix: true,
    strictSlashes: false,
  };
  const entryFilter = new EntryFilter(settings, micromatchOptions);
  const deepFilter = new DeepFilter(settings, micromatchOptions);
  const tasks: CompiledTask[] = generateTasks([pattern], OPTIONS).map((task) => {
    const base = task.base === "." ? "" : task.base;
    return {
      base,
      dynamic: task.dynamic,
      entry: entryFilter.getFilter(task.positive, task.negative),
      deep: deepFilter.getFilter(base, task.positive, task.negative),
    };
  });
  return new FastGlobMatcher(tasks);
}

class FastGlobMatcher implements GlobMatcher {
  constructor(private readonly tasks: CompiledTask[]) {}

  matches(path: string, entry: EntryKind): boolean {
    const dirent = entry as Dirent;
    for (const task of this.tasks) {
      if ((!task.dynamic || isBelow(path, task.base)) && task.entry({ path, name: dirent.name, dirent })) return true;
    }
    return false;
  }

  mayMatchBelow(path: string, entry: EntryKind): boolean {
    const dirent = entry as Dirent;
    for (const task of this.tasks) {
      // fast-glob starts reading at the task's base, so the directories leading to it are walked.
      if (task.base === path || task.base.startsWith(`${path}/`)) return true;
      if (isBelow(path, task.base) && task.deep({ path, name: dirent.name, dirent })) return true;
    }
    return false;
  }
}

function isBelow(path: string, base: string): boolean {
  return base === "" || path.startsWith(`${base}/`);
}

/**
 * The hint for a recursive search whose glob has no "/" and matched nothing: fast-glob anchors
 * such a pattern to the start directory, which surprises callers who expect find's -name.
 */
export function depthHint(glob: string): string | undefined {
  const pattern = glob.replace(/^(\.\/)+/, "");
  if (pattern.includes("/")) return undefined;
  return `'glob' "${pattern}" only matches entries directly in the start directory; use "**/${pattern}" to match at any depth.`;
}
