/**
 * Problem statements to Markdown (docs/contracts/oj.md §6.1), the job `htmd` does in the reference:
 * LeetCode sends HTML; Luogu, AtCoder and Codeforces content is usually Markdown already and is
 * returned untouched, so its line breaks and `$…$` formulas survive.
 */
import { type ElementNode, type HtmlNode, parseHtml } from "./parse.ts";

export const NO_DESCRIPTION = "No description available.";

/**
 * Tags whose presence makes a text HTML. The reference's list plus `b`, `i`, `sup`, `sub` and a
 * few more that LeetCode uses, so that `<b>bold</b>` renders as `**bold**` (tested).
 */
const HTML_TAG =
  /<\/?(?:p|div|ul|ol|li|table|thead|tbody|tr|td|th|br|hr|h[1-6]|pre|code|strong|b|em|i|u|s|del|span|img|a|sup|sub|blockquote|dl|dt|dd|font|section|article|center|small|kbd|var|samp|tt|mark)(?=[\s>/])/i;

export function looksLikeHtml(text: string): boolean {
  return text.includes("<") && HTML_TAG.test(text);
}

/**
 * Empty or blank → `No description available.`; Markdown (no known HTML tag) → unchanged;
 * HTML → Markdown. Never throws: if conversion fails the text is returned with its markup
 * neutralised (the reference's `ammonia::clean_text` fallback).
 */
export function htmlToMarkdown(content: string): string {
  if (content.trim() === "") return NO_DESCRIPTION;
  if (!looksLikeHtml(content)) return content;
  try {
    const markdown = renderBlocks(parseHtml(content).children).join("\n\n").trim();
    return markdown === "" ? NO_DESCRIPTION : markdown;
  } catch {
    return escapeMarkup(content);
  }
}

/** The fallback: text that can never be read as markup (no `<` or `>` survive). */
export function escapeMarkup(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

// ---------------------------------------------------------------------------------------------

const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "center",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);
const DROPPED = new Set([
  "script",
  "style",
  "head",
  "template",
  "noscript",
  "title",
  "meta",
  "link",
  "button",
  "input",
  "textarea",
  "select",
]);

/** Renders a sequence of nodes in block context: paragraphs of inline content between blocks. */
function renderBlocks(nodes: HtmlNode[]): string[] {
  const blocks: string[] = [];
  let inline = "";
  const flush = () => {
    const paragraph = tidyInline(inline);
    if (paragraph !== "") blocks.push(paragraph);
    inline = "";
  };
  for (const node of nodes) {
    if (node.type === "element" && DROPPED.has(node.tag)) continue;
    if (node.type === "element" && (BLOCK.has(node.tag) || containsBlock(node))) {
      flush();
      blocks.push(...renderBlock(node));
    } else {
      inline += renderInline(node);
    }
  }
  flush();
  return blocks;
}

function renderBlock(node: ElementNode): string[] {
  switch (node.tag) {
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6": {
      const text = tidyInline(inlineOf(node)).replaceAll("\n", " ");
      return text === "" ? [] : [`${"#".repeat(Number(node.tag[1]))} ${text}`];
    }
    case "hr":
      return ["---"];
    case "pre":
      return [fencedCode(node)];
    case "ul":
    case "ol":
      return renderList(node);
    case "blockquote": {
      const inner = renderBlocks(node.children).join("\n\n");
      return inner === ""
        ? []
        : [
            inner
              .split("\n")
              .map((line) => (line === "" ? ">" : `> ${line}`))
              .join("\n"),
          ];
    }
    case "table":
      return renderTable(node);
    default:
      // p, div, section, li outside a list, inline elements wrapping blocks, …: their content.
      return renderBlocks(node.children);
  }
}

function renderInline(node: HtmlNode): string {
  if (node.type === "text") return node.text.replace(/[ \t\n\r\f]+/g, " ");
  if (DROPPED.has(node.tag)) return "";
  switch (node.tag) {
    case "br":
      return "\n";
    case "strong":
    case "b":
      return wrap(inlineOf(node), "**");
    case "em":
    case "i":
      return wrap(inlineOf(node), "*");
    case "del":
    case "s":
    case "strike":
      return wrap(inlineOf(node), "~~");
    case "code":
    case "kbd":
    case "tt":
    case "samp":
      return inlineCode(textOf(node));
    case "sup": {
      const text = tidyInline(inlineOf(node));
      return text === "" ? "" : `^${text}`;
    }
    case "sub": {
      const text = tidyInline(inlineOf(node));
      return text === "" ? "" : `_${text}`;
    }
    case "a": {
      const text = tidyInline(inlineOf(node)).replaceAll("\n", " ");
      const href = (node.attrs.href ?? "").trim();
      if (href === "" || /^(?:javascript|data|vbscript):/i.test(href)) return text;
      return `[${text === "" ? href : text}](${linkTarget(href)})`;
    }
    case "img": {
      const src = (node.attrs.src ?? "").trim();
      if (src === "" || /^(?:javascript|vbscript):/i.test(src)) return "";
      return `![${(node.attrs.alt ?? "").replace(/[[\]\n]/g, " ").trim()}](${linkTarget(src)})`;
    }
    default:
      return inlineOf(node);
  }
}

function inlineOf(node: ElementNode): string {
  let out = "";
  for (const child of node.children) out += renderInline(child);
  return out;
}

/** Plain text content, as inside `<pre>` and `<code>`; `10<sup>4</sup>` keeps its meaning as `10^4`. */
function textOf(node: HtmlNode): string {
  if (node.type === "text") return node.text;
  if (DROPPED.has(node.tag)) return "";
  if (node.tag === "br") return "\n";
  let out = "";
  for (const child of node.children) out += textOf(child);
  if (node.tag === "sup" && out.trim() !== "") return `^${out.trim()}`;
  if (node.tag === "sub" && out.trim() !== "") return `_${out.trim()}`;
  return out;
}

function containsBlock(node: ElementNode): boolean {
  return node.children.some((child) => child.type === "element" && (BLOCK.has(child.tag) || containsBlock(child)));
}

/** Collapses the spaces of an inline run and trims each of its lines (lines come from `<br>`). */
function tidyInline(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/ {2,}/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replaceAll("\u00a0", " ")
    .trim();
}

/** `**x**` around the trimmed text, with the surrounding spaces kept outside the markers. */
function wrap(text: string, marker: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(text) as RegExpExecArray;
  return match[2] === "" ? text : `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

function inlineCode(raw: string): string {
  const text = raw.replace(/\s+/g, " ");
  if (text.trim() === "") return text;
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

function fencedCode(node: ElementNode): string {
  const text = textOf(node)
    .replace(/^\r?\n/, "")
    .replace(/\s+$/, "");
  const longestRun = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  const code = node.children.find((child) => child.type === "element" && child.tag === "code") as
    | ElementNode
    | undefined;
  const language = /(?:^|\s)(?:language|lang)-([\w+#-]+)/.exec(code?.attrs.class ?? node.attrs.class ?? "")?.[1] ?? "";
  return `${fence}${language}\n${text}\n${fence}`;
}

function linkTarget(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
}

function renderList(list: ElementNode): string[] {
  const ordered = list.tag === "ol";
  let number = Math.max(0, Number.parseInt(list.attrs.start ?? "1", 10) || 1);
  const items: string[] = [];
  let pendingInline = "";
  for (const child of list.children) {
    if (child.type === "element" && (child.tag === "li" || child.tag === "ul" || child.tag === "ol")) {
      if (child.tag !== "li") {
        // A list nested directly in a list (invalid but common): indent it under the previous item.
        const nested = renderList(child).join("\n");
        if (nested !== "") items.push(indent(nested, "  "));
        continue;
      }
      const marker = ordered ? `${number++}. ` : "- ";
      const body = renderBlocks(child.children).join("\n");
      items.push(`${marker}${indent(body, " ".repeat(marker.length)).trimStart()}`);
    } else if (child.type === "text" ? child.text.trim() !== "" : !DROPPED.has(child.tag)) {
      pendingInline += renderInline(child);
    }
  }
  const stray = tidyInline(pendingInline);
  if (stray !== "") items.unshift(stray);
  return items.length === 0 ? [] : [items.join("\n")];
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : prefix + line))
    .join("\n");
}

function renderTable(table: ElementNode): string[] {
  const rows: string[][] = [];
  const collect = (node: ElementNode) => {
    for (const child of node.children) {
      if (child.type !== "element") continue;
      if (child.tag === "tr") {
        const cells = child.children
          .filter((cell): cell is ElementNode => cell.type === "element" && (cell.tag === "td" || cell.tag === "th"))
          .map((cell) => cellText(cell));
        if (cells.length > 0) rows.push(cells);
      } else if (child.tag === "thead" || child.tag === "tbody" || child.tag === "tfoot") {
        collect(child);
      }
    }
  };
  collect(table);
  if (rows.length === 0) return [];
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
  const [header, ...body] = rows;
  return [[line(header), `|${" --- |".repeat(width)}`, ...body.map(line)].join("\n")];
}

function cellText(cell: ElementNode): string {
  return renderBlocks(cell.children)
    .join(" ")
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("|", "\\|")
    .trim();
}
