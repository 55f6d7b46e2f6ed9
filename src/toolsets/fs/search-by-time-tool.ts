/**
 * The `fs_search_by_time` tool (`fs.search_by_time` in docs/contracts/fs-search-by-time.md): its
 * definition for clients, and which roots a call may search.
 */
import { lazy } from "../../core/lazy.ts";
import { SkippedWarnings } from "../../core/log.ts";
import { shortened } from "../../core/text.ts";
import type { Runtime } from "../../core/toolset-module.ts";
import {
  argumentErrorResult,
  defineTool,
  errorResult,
  type ToolContext,
  type ToolDefinition,
} from "../../core/tool.ts";
import { type AllowedRoot, anchoredTo, chooseRoot, isInside, resolveRoot, resolveStart } from "./roots.ts";
import { searchInput, searchOutput } from "./schema.ts";
import type { SearchDependencies } from "./search.ts";
import type { StatWorker } from "./stat-worker.ts";

/** The search and its walks, loaded at the first call rather than when a server starts, and kept (a `require` per call looks the module up again). */
const searchModule = lazy(() => require("./search.ts") as typeof import("./search.ts"));

export const TOOL_NAME = "fs_search_by_time";
export const SEED_NAME = "fs.search_by_time";

export const NO_ROOT =
  "No search root is available: the server was started without --root (or MCPKIT_ROOTS) and the client provides no roots. Ask the user to start mcpkit with --root DIR (repeatable) or to set MCPKIT_ROOTS, or use an MCP client that offers roots.";

const DESCRIPTION = [
  "Find files (and optionally directories) under an allowed root by modification or creation time, newest first by default.",
  "Use it for questions like 'what changed in the last week' or 'which files were created yesterday'; every result states the server's current time (UTC).",
  "'from' is inclusive and 'to' exclusive (ISO 8601 with a time zone, e.g. 2025-12-15T00:00:00Z); both are optional.",
  "'glob' uses fast-glob syntax relative to the start directory ('**/*.md' for any depth, '*.md' for the start directory only; hidden entries match only when the pattern names the dot).",
  "Each match's 'path' is relative to the root (not absolute), with '/' separators; timestamps are UTC ISO 8601.",
  "Symbolic links are never followed or reported; only regular files count as files.",
  "Created time is best-effort: where the file system records none, the entry is left out unless includeUnknownTime=true, and then createdAt is null (such entries sort last).",
  "Results are paged: when nextCursor is not null, call again with the same arguments plus 'cursor' to get the next page.",
  "The first text block summarizes the result and notes when the server's time budget or depth limit cut the search short; the second lists one match per line (path, time, size).",
].join(" ");

export interface SearchToolDependencies extends Omit<SearchDependencies, "statWorker"> {
  /** The toolset's one stat worker, made at the first search (its code loads then). */
  statWorker: () => StatWorker;
  /** Roots from --root / MCPKIT_ROOTS (may be empty over stdio, never over HTTP). */
  roots: readonly AllowedRoot[];
  mode: Runtime["mode"];
}

export function searchByTimeTool(dependencies: SearchToolDependencies): ToolDefinition {
  return defineTool({
    name: TOOL_NAME,
    seedName: SEED_NAME,
    title: "Search files by time",
    description: `${DESCRIPTION} ${describeRoots(dependencies)}`,
    input: searchInput,
    output: searchOutput,
    annotations: {
      title: "Search files by time",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    scope: "fs:read",
    async handler(args, context) {
      // The time budget covers the whole call, root checks included.
      const startedAt = performance.now();
      const allowed = await allowedRoots(dependencies, context);
      if (allowed.length === 0) return errorResult(NO_ROOT);
      const root = chooseRoot(args.root, allowed);
      if (typeof root === "string") return argumentErrorResult(root);
      const start = resolveStart(root, args.path);
      if (typeof start === "string") return argumentErrorResult(start);
      return searchModule
        .get()
        .searchByTime(args, start, { ...dependencies, statWorker: dependencies.statWorker() }, context, startedAt);
    },
  });
}

function describeRoots({ roots, mode }: SearchToolDependencies): string {
  if (roots.length === 0) return "Allowed roots: the roots your client offers (the first is the default).";
  const list = roots.map((root) => root.given).join(", ");
  const narrowing = mode === "http" ? " Client roots inside them narrow the search; others are ignored." : "";
  return `Allowed roots: ${list} (the first is the default; 'root' picks another).${narrowing}`;
}

/**
 * The roots one call may search. Configured roots come first. Over HTTP a client's roots describe
 * the client's machine, so they are never trusted: they can only narrow the search to directories
 * inside a configured root, never widen it. Over stdio the client runs on this machine, so its
 * roots are used when none is configured (re-read on every call, so list changes apply).
 */
export async function allowedRoots(
  { roots, mode }: Pick<SearchToolDependencies, "roots" | "mode">,
  context: ToolContext,
): Promise<AllowedRoot[]> {
  if (roots.length > 0 && mode !== "http") return [...roots];
  const offered = await clientRoots(context);
  if (mode !== "http") return offered;
  const inside = offered.flatMap((client) => {
    const configured = roots.find((root) => isInside(root.real, client.real));
    return configured ? [anchoredTo(configured, client)] : [];
  });
  if (inside.length < offered.length) {
    context.log.debug("ignoring client roots outside the configured roots", {
      ignored: offered.length - inside.length,
    });
  }
  return inside.length > 0 ? inside : [...roots];
}

async function clientRoots(context: ToolContext): Promise<AllowedRoot[]> {
  const paths = (await context.clientRoots()) ?? [];
  const usable: AllowedRoot[] = [];
  // The session keeps the client's list and every call judges it again: a few lines a call, however long it is.
  const warnings = new SkippedWarnings(context.log);
  for (const path of paths) {
    const root = resolveRoot(path, "/");
    if (typeof root === "string") warnings.skip("ignoring a client root", () => ({ reason: shortened(root) }));
    else usable.push(root);
  }
  warnings.end((more) => `ignoring ${more} more client roots that name no directory here`);
  return usable;
}
