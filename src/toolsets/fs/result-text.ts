/**
 * The result a model reads for one search: a summary (what was found, in which order, what limited
 * the search, the literal cursor of the next page, the server's current time) and one line per
 * match; `structuredContent` holds the same matches in seed 004's schema, with the server's time and
 * the notices added. Both halves hold the same page, shortened when needed so that each fits the
 * output budget.
 */
import { rememberSize, textBytes } from "../../core/output-budget.ts";
import { byteLength } from "../../core/text.ts";
import { configurationErrorResult, type ToolResult } from "../../core/tool.ts";
import { depthHint } from "./glob.ts";
import type { SearchMatch, SearchOutput } from "./schema.ts";
import type { Query, SearchLimits } from "./search.ts";
import type { WalkOutcome } from "./walk.ts";

/**
 * Characters a name may hold that change how the line reads rather than what it says: controls
 * (tab, newline, escape sequences), format characters (bidi overrides such as U+202E, which can
 * turn "txt.md" around, zero-width joiners) and the line and paragraph separators.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
/** The ones JSON.stringify leaves as they are: DEL and the C1 controls (a C1 CSI is an escape), format, separators. */
const UNSAFE_AFTER_JSON = /[\u007f-\u009f\p{Cf}\u2028\u2029]/gu;

/**
 * `path` as one readable token: quoted and escaped (JSON) when it holds an unsafe character, and
 * when it could read as such a quoted form itself (it starts with `"` or holds `\`): a file named
 * `"new\nline"` (quote, backslash, n) would otherwise show the same line as one whose name holds a
 * newline. Other names are shown as they are.
 */
function shownPath(path: string): string {
  if (!UNSAFE.test(path) && !path.startsWith('"') && !path.includes("\\")) return path;
  return quoted(path);
}

/** `text` quoted and escaped (JSON), with what JSON leaves as it is (see UNSAFE_AFTER_JSON) escaped too. */
function quoted(text: string): string {
  return JSON.stringify(text).replace(UNSAFE_AFTER_JSON, (character) =>
    Array.from(
      { length: character.length },
      (_, unit) => `\\u${character.charCodeAt(unit).toString(16).padStart(4, "0")}`,
    ).join(""),
  );
}

export interface Presentation {
  query: Query;
  outcome: WalkOutcome;
  structured: SearchOutput;
  unknownTimeSkipped: number;
  /** Qualifying entries left out because their names are not valid UTF-8. */
  undecodableSkipped: number;
  limits: SearchLimits;
  outputBudget: number;
  /** A cursor continuing right after the first `shown` matches, for a call with the same arguments. */
  cursorAfter(shown: number): string;
}

/**
 * The result: a page is what fits. When the text or the serialized structuredContent of all the
 * matches would pass the output budget, the page itself is shortened (the same first matches in
 * both halves) and its nextCursor continues right after the last match shown, so paging to the end
 * returns every match once, whichever half a client reads (Claude Code and VS Code show a model
 * only structuredContent). The text names the literal cursor, for clients that show only text.
 * When not even the first match fits, with the cursor after it (which carries its path), the
 * result is an error naming the budget that would show it: the output budget's last resort would
 * cut that path and cursor, and a cut cursor cannot continue.
 */
export function presentResult(presentation: Presentation): ToolResult {
  const all = presentation.structured.matches.length;
  // Most pages fit whole: measured once, and the estimate below is only for those that do not.
  const whole = build(presentation, all);
  if (withinBudget(whole, presentation.outputBudget)) return whole;
  let shown = fittingCount(presentation);
  for (;;) {
    const result = build(presentation, shown);
    if (shown === 0 || withinBudget(result, presentation.outputBudget)) return result;
    if (shown === 1)
      return matchTooLong(presentation, whole, (budget) => build({ ...presentation, outputBudget: budget }, 1));
    shown--; // the estimate missed by a cursor's few bytes
  }
  function build(p: Presentation, count: number): ToolResult {
    const shortenedToFit = count < all;
    const page = { ...p, structured: count === all ? p.structured : shortened(p, count) };
    const notes = noticesOf(page, shortenedToFit);
    const summary = summarize(page, notes);
    const content: ToolResult["content"] = [{ type: "text", text: summary }];
    if (count > 0) content.push({ type: "text", text: matchLines(page) });
    return { content, structuredContent: withNotices(page.structured, notes) as unknown as Record<string, unknown> };
  }
}

/**
 * structuredContent with the summary's notices (what limited the search or left entries out), when
 * there are any: Claude Code and VS Code show a model only this half, and without them a search cut
 * short by the time budget would read as complete.
 */
function withNotices(structured: SearchOutput, notes: Notices): SearchOutput {
  const notices = [...notes.beforeCursor, ...notes.afterCursor];
  return notices.length > 0 ? { ...structured, notices } : structured;
}

function shortened(presentation: Presentation, count: number): SearchOutput {
  const { structured } = presentation;
  return {
    ...structured,
    matches: structured.matches.slice(0, count),
    nextCursor: count > 0 ? presentation.cursorAfter(count) : structured.nextCursor,
    stats: { ...structured.stats, returned: count },
  };
}

function withinBudget(result: ToolResult, budget: number): boolean {
  if (textBytes(result) > budget) return false;
  const structured = result.structuredContent as Record<string, unknown>;
  const json = byteLength(JSON.stringify(structured));
  rememberSize(structured, json); // the output budget's last check reuses it
  return json <= budget;
}

/** What a page needs of the budget: the larger of its text and its structuredContent's JSON. */
function pageBytes(result: ToolResult): number {
  return Math.max(textBytes(result), byteLength(JSON.stringify(result.structuredContent)));
}

/** Characters of a path too long to show that the error quotes, so that it stays well within any budget. */
const PATH_HEAD = 40;

/**
 * The error for a page whose first match alone passes the output budget: a page cannot split a
 * path, and cut by the budget's last resort, the path would no longer be one and the cursor (which
 * carries it) could not continue. It names a --max-output-bytes under which a page holds that
 * match, measured: the whole page's size (`whole`, no cursor), or the one-match page's
 * (`pageFor(budget)`, whose notice names the budget) when that is smaller.
 */
function matchTooLong(
  presentation: Presentation,
  whole: ToolResult,
  pageFor: (budget: number) => ToolResult,
): ToolResult {
  let needed = presentation.outputBudget;
  let page = pageFor(needed);
  for (let round = 0; round < 4; round++) {
    const size = pageBytes(page);
    if (size <= needed) break;
    needed = size; // a longer number in the page's notice may add a byte: measured again
    page = pageFor(needed);
  }
  const wholeBytes = pageBytes(whole);
  if (wholeBytes <= needed) {
    needed = wholeBytes;
    page = whole;
  }
  const path = presentation.structured.matches[0].path;
  const characters = Array.from(path);
  const head = characters.length > PATH_HEAD ? `${quoted(characters.slice(0, PATH_HEAD).join(""))}…` : shownPath(path);
  const withCursor = (page.structuredContent as SearchOutput).nextCursor !== null;
  const holder = withCursor
    ? "a page that holds it, with the cursor that continues after it (which carries the path),"
    : "the page that holds it";
  return configurationErrorResult(
    `The next match cannot be shown within the server's output budget of ${presentation.outputBudget} bytes (--max-output-bytes): its path is ${byteLength(path)} bytes long (starting ${head}), and ${holder} needs ${needed} bytes. No argument shortens a path ('path' does not: paths are relative to the root). Ask the user to run mcpkit again with --max-output-bytes ${needed} or more (MCPKIT_MAX_OUTPUT_BYTES), or leave this match out with 'from', 'to' or 'glob' to see the others.`,
  );
}

/** The most matches whose text lines and JSON both fit, estimated from per-match sizes (at least 1). */
function fittingCount(presentation: Presentation): number {
  const { structured, outputBudget } = presentation;
  const matches = structured.matches;
  if (matches.length === 0) return 0;
  const sample = presentation.cursorAfter(matches.length);
  const notes = noticesOf(presentation, true);
  const jsonBase = byteLength(JSON.stringify(withNotices({ ...structured, matches: [], nextCursor: sample }, notes)));
  const textBase = byteLength(summarize(presentation, notes)) + byteLength(sample) + HEADER_ROOM;
  const field = timeFieldOf(presentation);
  let json = jsonBase;
  let text = textBase;
  for (let i = 0; i < matches.length; i++) {
    json += byteLength(JSON.stringify(matches[i])) + 1;
    text += byteLength(matchLine(matches[i], field)) + 1;
    if (json > outputBudget || text > outputBudget) return Math.max(1, i);
  }
  return matches.length;
}

/** Room for the column header line. */
const HEADER_ROOM = 40;

function timeFieldOf({ query }: Presentation): "createdAt" | "modifiedAt" {
  return query.args.timeField === "created" ? "createdAt" : "modifiedAt";
}

function matchLine(match: SearchMatch, field: "createdAt" | "modifiedAt"): string {
  // Names are bytes on disk: what could disguise one (see UNSAFE) is shown escaped.
  const path = shownPath(match.path);
  return `${path}${match.isDirectory ? "/" : ""}\t${match[field] ?? "-"}\t${match.sizeBytes ?? "-"}`;
}

/** `path<TAB>time<TAB>size` per match under a header; directories end in "/" and have size "-". */
function matchLines(presentation: Presentation): string {
  const field = timeFieldOf(presentation);
  return [`path\t${field}\tsizeBytes`, ...presentation.structured.matches.map((match) => matchLine(match, field))].join(
    "\n",
  );
}

/** The summary line: what was found, in which order, anything that limited the search, and the server's time. */
function summarize({ query, structured }: Presentation, notes: Notices): string {
  const { args } = query;
  const count = structured.matches.length;
  const noun =
    args.includeFiles && args.includeDirectories
      ? ["entry", "entries"]
      : args.includeDirectories
        ? ["directory", "directories"]
        : ["file", "files"];
  const order = args.sort === "path_asc" ? "path" : `${args.timeField} ${args.sort === "time_desc" ? "desc" : "asc"}`;
  const parts = [`Found ${count} ${count === 1 ? noun[0] : noun[1]} (sorted by ${order}).`, ...notes.beforeCursor];
  if (structured.nextCursor !== null)
    parts.push(`More results exist: call again with the same arguments and cursor "${structured.nextCursor}".`);
  parts.push(...notes.afterCursor);
  parts.push(`Server time: ${structured.serverTime} (UTC).`);
  return parts.join(" ");
}

/** The summary's sentences on what limited the search or left entries out, each side of the cursor's. */
interface Notices {
  beforeCursor: string[];
  afterCursor: string[];
}

function noticesOf(presentation: Presentation, shortenedToFit: boolean): Notices {
  const { query, structured, outputBudget } = presentation;
  const { args } = query;
  const count = structured.matches.length;
  const beforeCursor: string[] = [];
  if (!args.includeFiles && !args.includeDirectories)
    beforeCursor.push("Both includeFiles and includeDirectories are false, so nothing can match.");
  // The seed's schema allows 0; without a word, "Found 0 files" reads as an empty folder.
  if (args.recursive && args.maxDepth === 0)
    beforeCursor.push(
      "A maxDepth of 0 examines only the start directory itself, so no entry inside it can match; use maxDepth 1 for the entries directly in it (2 adds those of its subdirectories, and so on), or omit maxDepth to search at any depth.",
    );
  if (shortenedToFit)
    beforeCursor.push(
      `This page holds ${count} ${count === 1 ? "match" : "matches"}, fewer than 'limit', so that it fits the server's output budget of ${outputBudget} bytes (--max-output-bytes).`,
    );
  return { beforeCursor, afterCursor: limitNotices(presentation) };
}

/** What the walk ran into: depth, time budget, entries it could not read or name. */
function limitNotices({
  query,
  outcome,
  structured,
  unknownTimeSkipped,
  undecodableSkipped,
  limits,
}: Presentation): string[] {
  const { args } = query;
  const count = structured.matches.length;
  const parts: string[] = [];
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
  if (outcome.unsearchableDirectories > 0) parts.push(unsearchableNotice(outcome));
  const undecodable = outcome.undecodableDirectories + undecodableSkipped;
  if (undecodable > 0) {
    parts.push(
      `${undecodable} ${undecodable === 1 ? "entry was" : "entries were"} left out because ${undecodable === 1 ? "its name is" : "their names are"} not valid UTF-8, so no path can name ${undecodable === 1 ? "it" : "them"} exactly${outcome.undecodableDirectories > 0 ? ` (${outcome.undecodableDirectories} of them directories, skipped with everything below them)` : ""}.`,
    );
  }
  return parts;
}

/**
 * Why entries of directories that could be listed but not searched are missing, and what helps:
 * listing a directory needs read (r) permission, stat'ing its entries search (x) permission.
 */
function unsearchableNotice({
  unsearchableDirectories: directories,
  unsearchableEntries: entries,
}: WalkOutcome): string {
  const one = directories === 1;
  const those = `${entries} ${entries === 1 ? "entry" : "entries"} in ${one ? "it" : "them"}`;
  return `${directories} ${one ? "directory" : "directories"} could be listed but not searched: ${one ? "it lacks" : "they lack"} search (execute, x) permission for the user the server runs as (or a security policy refused it), so the times of ${those} could not be read and ${entries === 1 ? "it was" : "they were"} left out. Grant that permission (chmod +x on ${one ? "the directory" : "those directories"}), or narrow 'path' to avoid ${one ? "it" : "them"}.`;
}
