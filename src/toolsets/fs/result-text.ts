/**
 * The text a model reads for one search: a summary (what was found, in which order, what limited
 * the search, the server's current time) and one line per match, cut at a match when the output
 * budget would be exceeded, with the exact arguments that fetch the rest. `structuredContent`
 * always carries the complete page.
 */
import { byteLength } from "../../core/text.ts";
import type { ToolResult } from "../../core/tool.ts";
import { depthHint } from "./glob.ts";
import type { SearchOutput } from "./schema.ts";
import type { Query, SearchLimits } from "./search.ts";
import { formatIso } from "./time.ts";
import type { WalkOutcome } from "./walk.ts";

/** Room kept for the note that says the list was cut. */
const NOTE_ROOM = 2_000;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export interface Presentation {
  query: Query;
  outcome: WalkOutcome;
  structured: SearchOutput;
  unknownTimeSkipped: number;
  /** Qualifying entries left out because their names are not valid UTF-8. */
  undecodableSkipped: number;
  limits: SearchLimits;
  outputBudget: number;
  /** A cursor continuing after the first `shown` matches, for calls with `limit: shown`. */
  cursorAfter(shown: number): string;
}

export function presentResult(presentation: Presentation): ToolResult {
  const { structured, outputBudget } = presentation;
  const summary = summarize(presentation);
  const content: ToolResult["content"] = [{ type: "text", text: summary }];
  if (structured.matches.length > 0)
    content.push({ type: "text", text: matchLines(presentation, outputBudget - byteLength(summary)) });
  return { content, structuredContent: structured as unknown as Record<string, unknown> };
}

/** `path<TAB>time<TAB>size` per match under a header; directories end in "/" and have size "-". */
function matchLines(presentation: Presentation, budget: number): string {
  const { structured, query } = presentation;
  const field = query.args.timeField === "created" ? "createdAt" : "modifiedAt";
  const lines = [`path\t${field}\tsizeBytes`];
  let used = byteLength(lines[0]) + 1;
  const matches = structured.matches;
  for (let i = 0; i < matches.length; i++) {
    const match = matches[i];
    // Names are bytes on disk: control characters (tab, newline, escape sequences) are shown escaped.
    const path = CONTROL.test(match.path) ? JSON.stringify(match.path) : match.path;
    const line = `${path}${match.isDirectory ? "/" : ""}\t${match[field] ?? "-"}\t${match.sizeBytes ?? "-"}`;
    const size = byteLength(line) + 1;
    if (used + size > budget - NOTE_ROOM) {
      lines.push(cutNote(presentation, i, budget));
      break;
    }
    lines.push(line);
    used += size;
  }
  return lines.join("\n");
}

function cutNote(presentation: Presentation, shown: number, budget: number): string {
  const total = presentation.structured.matches.length;
  const cursor = shown > 0 ? presentation.cursorAfter(shown) : undefined;
  const rest = cursor
    ? `call again with the same arguments but limit: ${shown} and cursor: "${cursor}"`
    : "call again with a smaller 'limit'";
  return `[Text shows ${shown} of ${total} matches to fit the server's output budget of ${budget} bytes (--max-output-bytes); structuredContent holds all ${total}. To read the rest as text, ${rest}.]`;
}

/** The summary line: what was found, in which order, and anything that limited the search. */
function summarize({
  query,
  outcome,
  structured,
  unknownTimeSkipped,
  undecodableSkipped,
  limits,
}: Presentation): string {
  const { args } = query;
  const count = structured.matches.length;
  const noun =
    args.includeFiles && args.includeDirectories
      ? ["entry", "entries"]
      : args.includeDirectories
        ? ["directory", "directories"]
        : ["file", "files"];
  const order = args.sort === "path_asc" ? "path" : `${args.timeField} ${args.sort === "time_desc" ? "desc" : "asc"}`;
  const parts = [`Found ${count} ${count === 1 ? noun[0] : noun[1]} (sorted by ${order}).`];
  if (!args.includeFiles && !args.includeDirectories)
    parts.push("Both includeFiles and includeDirectories are false, so nothing can match.");
  if (structured.nextCursor !== null)
    parts.push("More results exist: call again with the same arguments and 'cursor' set to nextCursor.");
  if (count === 0 && args.glob !== undefined && args.recursive && query.maxDepth > 1 && !query.resume) {
    const hint = depthHint(args.glob);
    if (hint) parts.push(hint);
  }
  if (unknownTimeSkipped > 0) {
    parts.push(
      `${unknownTimeSkipped} ${unknownTimeSkipped === 1 ? "entry was" : "entries were"} left out because the file system records no created time for them; set includeUnknownTime=true to include them (createdAt null).`,
    );
  }
  if (outcome.budgetExhausted) {
    parts.push(
      `The search stopped at the server's time budget of ${limits.budgetMs} ms, so only part of the tree was examined and results may be incomplete; narrow 'path' or 'glob', or set a smaller 'maxDepth'.`,
    );
  }
  if (outcome.depthLimited) {
    parts.push(
      `Directories deeper than ${query.maxDepth} levels below the start were not searched (the server's maximum depth); narrow 'path' to reach deeper entries.`,
    );
  }
  if (outcome.unreadableDirectories > 0) {
    const skipped = outcome.unreadableDirectories;
    parts.push(
      outcome.outOfDescriptors
        ? `${skipped} ${skipped === 1 ? "directory was" : "directories were"} skipped because the server ran out of file descriptors (too many open files), not for lack of permission; raise its limit (ulimit -n) or narrow 'path'.`
        : `${skipped} unreadable ${skipped === 1 ? "directory was" : "directories were"} skipped.`,
    );
  }
  const undecodable = outcome.undecodableDirectories + undecodableSkipped;
  if (undecodable > 0) {
    parts.push(
      `${undecodable} ${undecodable === 1 ? "entry was" : "entries were"} left out because ${undecodable === 1 ? "its name is" : "their names are"} not valid UTF-8, so no path can name ${undecodable === 1 ? "it" : "them"} exactly${outcome.undecodableDirectories > 0 ? ` (${outcome.undecodableDirectories} of them directories, skipped with everything below them)` : ""}.`,
    );
  }
  parts.push(`Server time: ${formatIso(Math.floor(Date.now() / 1000) * 1000)} (UTC).`);
  return parts.join(" ");
}
