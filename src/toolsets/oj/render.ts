/**
 * The Markdown the tools return (docs/contracts/oj.md §6) and the matching `structuredContent`
 * shapes, which `tools/list` shows as each tool's `outputSchema`.
 */
import * as v from "valibot";
import { byteLength, cutToBytes } from "../../core/text.ts";
import { formatFixed, formatNumber, truncateOutput } from "./format.ts";
import { htmlToMarkdown } from "./html/to-markdown.ts";
import type { UpstreamProblem } from "./upstream.ts";

// ---------------------------------------------------------------------------------------------
// Structured shapes

export const ProblemShape = v.object({
  source: v.pipe(v.string(), v.description("Platform: leetcode, codeforces, atcoder, luogu or spoj.")),
  id: v.pipe(v.string(), v.description("Problem id on that platform.")),
  title: v.string(),
  slug: v.nullable(v.string()),
  difficulty: v.nullable(v.string()),
  tags: v.array(v.string()),
  link: v.nullable(v.string()),
  ac_rate: v.pipe(v.nullable(v.number()), v.description("Acceptance rate in percent, e.g. 57.08.")),
  rating: v.nullable(v.number()),
  content: v.pipe(v.string(), v.description("The statement as Markdown (converted from HTML when needed).")),
});
export type ProblemView = v.InferOutput<typeof ProblemShape>;

/** Present when the output budget cut a statement in structuredContent: what was cut and where to read the rest. */
export const TruncatedShape = v.optional(
  v.pipe(
    v.object({ continuation: v.string() }),
    v.description(
      "Present when a statement was cut to fit the output budget (--max-output-bytes): what was cut and where to read the rest.",
    ),
  ),
);

export const SimilarShape = v.object({
  query: v.pipe(v.string(), v.description("The query the server searched with (its rewritten query when it has one).")),
  results: v.array(
    v.object({
      rank: v.number(),
      source: v.string(),
      id: v.string(),
      title: v.nullable(v.string()),
      difficulty: v.nullable(v.string()),
      link: v.nullable(v.string()),
      similarity: v.pipe(v.number(), v.description("0 to 1; the text shows it as a percentage.")),
    }),
  ),
});
export type SimilarView = v.InferOutput<typeof SimilarShape>;

export const StatusShape = v.object({
  version: v.string(),
  platforms: v.array(
    v.object({ source: v.string(), total: v.number(), missing_content: v.number(), not_embedded: v.number() }),
  ),
});
export type StatusView = v.InferOutput<typeof StatusShape>;

// ---------------------------------------------------------------------------------------------
// Problems

const blank = (value: string | null | undefined): value is null | undefined | "" =>
  value == null || value.trim() === "";
const oneLine = (value: string | null | undefined): string => (value ?? "").replace(/\s+/g, " ").trim();

/**
 * Fills the gaps the upstream may leave: no `source` on daily payloads (→ `leetcode`), and a
 * `null` title (→ Chinese title, slug, then id). The title becomes a one-line heading whatever it
 * holds, so the text always starts with `# ` and a visible title.
 */
export function toProblemView(problem: UpstreamProblem, fallbackSource = "leetcode"): ProblemView {
  const title =
    [problem.title, problem.title_cn, problem.slug, problem.id].map(oneLine).find((candidate) => candidate !== "") ??
    "Untitled problem";
  const content = blank(problem.content) ? (problem.content_cn ?? "") : problem.content;
  return {
    source: blank(problem.source) ? fallbackSource : problem.source,
    id: problem.id,
    title,
    slug: problem.slug ?? null,
    difficulty: problem.difficulty ?? null,
    tags: problem.tags ?? [],
    link: webLink(problem.link),
    ac_rate: problem.ac_rate ?? null,
    rating: problem.rating ?? null,
    content: truncateOutput(htmlToMarkdown(content)),
  };
}

/**
 * The upstream's `link` when it is an http(s) URL, else null: a `javascript:` or `data:` link
 * (which the HTML converter drops from `<a href>` too) never reaches the header, the cut note or
 * structuredContent, where a client may render it as a link.
 */
export function webLink(link: string | null | undefined): string | null {
  if (link == null || !URL.canParse(link)) return null;
  const { protocol } = new URL(link);
  return protocol === "http:" || protocol === "https:" ? link : null;
}

/**
 * §6.1, no trailing newline. Header values are put on one line each (an upstream value holding a
 * line break would otherwise shift the header's lines).
 */
export function renderProblem(problem: ProblemView): string {
  const tags = problem.tags.length > 0 ? oneLine(problem.tags.join(", ")) : "N/A";
  const acRate = problem.ac_rate === null ? "N/A" : `${formatFixed(problem.ac_rate, 1)}%`;
  return [
    `# ${problem.title}`,
    "",
    `- Source: ${oneLine(problem.source)} | ID: ${oneLine(problem.id)} | Difficulty: ${problem.difficulty === null ? "N/A" : oneLine(problem.difficulty)}`,
    `- Tags: ${tags}`,
    `- Link: ${problem.link === null ? "N/A" : oneLine(problem.link)}`,
    `- AC Rate: ${acRate}`,
    "",
    "---",
    "",
    problem.content,
  ].join("\n");
}

/** The cut note names at most this many links... */
export const NOTE_LINKS = 2;
/** ...each shown with at most this many bytes, so that the note fits the room the output budget keeps for it (600 bytes). */
export const NOTE_LINK_BYTES = 120;

/**
 * What a text cut to the output budget tells the reader about the statements it could not show.
 * The links come from the upstream and may be of any length: the note names the first
 * NOTE_LINKS, each cut to NOTE_LINK_BYTES with `…` (the whole link stays on the Link line and in
 * `link`). A longer note pushed the text over the budget, and the last resort cut it again.
 */
export function readRestOf(problems: readonly ProblemView[]): string {
  const links = problems.map((problem) => problem.link).filter((link): link is string => link !== null);
  // structuredContent is held to the same budget (issue 19), so the rest is only at the source.
  if (links.length === 0)
    return "the rest of the statement is not available within this budget: start mcpkit with a larger --max-output-bytes";
  const named = links.slice(0, NOTE_LINKS).map(oneLine);
  const shown = named.map((link) =>
    byteLength(link) <= NOTE_LINK_BYTES ? link : `${cutToBytes(link, NOTE_LINK_BYTES - 3, "")}…`,
  );
  const more = links.length - named.length;
  const cut = shown.some((link, index) => link !== named[index]);
  return (
    `read the whole statement at ${shown.join(", ")}` +
    (more > 0 ? ` (and ${more} more link${more > 1 ? "s" : ""}: see the Link lines)` : "") +
    (cut ? " (cut with …: the whole link is on the Link line and in the link field)" : "")
  );
}

// ---------------------------------------------------------------------------------------------
// Similar problems and platform status

/** §6.2: rows numbered from 1, each ending in a newline; similarity as `{:.1}%`. */
export function renderSimilar(similar: SimilarView): string {
  let out = `# Similar Problems\n\nQuery: ${oneLine(similar.query)}\n\n`;
  out += "| # | Source | ID | Title | Difficulty | Similarity | Link |\n";
  out += "|---|--------|----|-------|------------|------------|------|\n";
  for (const row of similar.results) {
    const similarity = `${formatFixed(row.similarity * 100, 1)}%`;
    out += `| ${row.rank} | ${cell(row.source)} | ${cell(row.id)} | ${cell(row.title ?? "N/A")} | ${cell(row.difficulty ?? "N/A")} | ${similarity} | ${cell(row.link ?? "N/A")} |\n`;
  }
  return out;
}

/** §6.3. */
export function renderStatus(status: StatusView): string {
  let out = `# OJ Platform Status (v${status.version})\n\n`;
  out += "| Platform | Problems | Missing Content | Not Embedded |\n";
  out += "|----------|----------|-----------------|--------------|\n";
  for (const p of status.platforms) {
    out += `| ${cell(p.source)} | ${formatNumber(p.total)} | ${formatNumber(p.missing_content)} | ${formatNumber(p.not_embedded)} |\n`;
  }
  return out;
}

/** A cell with `|` or a line break would break the table (the reference did not escape it). */
function cell(value: string): string {
  return oneLine(value).replaceAll("|", "\\|");
}
