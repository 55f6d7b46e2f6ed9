/** The `fs.search_by_time` tool definition: its contract for clients, and root selection. */
import { defineTool, errorResult, type ToolContext, type ToolDefinition } from "../../core/tool.ts";
import type { CursorCodec } from "./cursor.ts";
import { type AllowedRoot, chooseRoot, resolveRoot, resolveStart } from "./roots.ts";
import { searchInput, searchOutput } from "./schema.ts";
import { type SearchLimits, searchByTime } from "./search.ts";
import type { StatWorker } from "./stat-worker.ts";

export const NO_ROOT =
  "No search root is available: the server was started without --root (or MCPKIT_ROOTS) and the client provides no roots. Ask the user to start mcpkit with --root DIR (repeatable) or to set MCPKIT_ROOTS, or use an MCP client that offers roots.";

const DESCRIPTION = [
  "Find files (and optionally directories) under an allowed root by modification or creation time, newest first by default.",
  "Use it for questions like 'what changed in the last week' or 'which files were created yesterday'.",
  "'from' is inclusive and 'to' exclusive (ISO 8601 with a time zone, e.g. 2025-12-15T00:00:00Z); both are optional.",
  "'glob' uses fast-glob syntax relative to the start directory ('**/*.md' for any depth, '*.md' for the start directory only; hidden entries match only when the pattern names the dot).",
  "Each match's 'path' is relative to the root (not absolute), with '/' separators; timestamps are UTC ISO 8601.",
  "Symbolic links are never followed or reported; only regular files count as files.",
  "Created time is best-effort: where the file system records none, the entry is left out unless includeUnknownTime=true, and then createdAt is null (such entries sort last).",
  "Results are paged: when nextCursor is not null, call again with the same arguments plus 'cursor' to get the next page.",
  "The first text block summarizes the result and notes when the server's time budget or depth limit cut the search short.",
].join(" ");

/** Where roots come from: the configured ones, else the client's (re-read on every call, so list changes apply). */
export interface RootSource {
  configured: readonly AllowedRoot[];
}

export function searchByTimeTool(roots: RootSource, limits: SearchLimits, cursors: CursorCodec, helper: StatWorker | undefined): ToolDefinition {
  return defineTool({
    name: "fs.search_by_time",
    title: "Search files by time",
    description: DESCRIPTION,
    input: searchInput,
    output: searchOutput,
    annotations: { title: "Search files by time", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: "fs:read",
    async handler(args, context) {
      const allowed = roots.configured.length > 0 ? roots.configured : await clientRoots(context);
      if (allowed.length === 0) return errorResult(NO_ROOT);
      const root = chooseRoot(args.root, allowed);
      if (typeof root === "string") return errorResult(root);
      const start = resolveStart(root, args.path);
      if (typeof start === "string") return errorResult(start);
      return searchByTime(args, start, limits, cursors, helper, context);
    },
  });
}

async function clientRoots(context: ToolContext): Promise<AllowedRoot[]> {
  const paths = (await context.clientRoots()) ?? [];
  const usable: AllowedRoot[] = [];
  for (const path of paths) {
    const root = resolveRoot(path, "/");
    if (typeof root === "string") context.log.warn("ignoring a client root", { reason: root });
    else usable.push(root);
  }
  return usable;
}
