/**
 * A small, forgiving HTML parser: enough of HTML5's rules (void elements, raw-text elements,
 * implied end tags of `p`, `li`, `dt`/`dd`, table rows and cells) to turn problem statements
 * into a tree. It never throws on any input; malformed markup degrades to text.
 */
import { decodeEntities } from "./entities.ts";

export interface ElementNode {
  type: "element";
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
  parent?: ElementNode;
  depth: number;
}
export interface TextNode {
  type: "text";
  text: string;
}
export type HtmlNode = ElementNode | TextNode;

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "noscript", "template"]);
/** Block elements whose start closes an open `<p>` (HTML5 "close a p element"). */
const CLOSES_P = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "details",
  "div",
  "dl",
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
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "ul",
]);
/** For an implied end tag: which open element a new start tag closes, and where the search stops. */
const IMPLIED: Record<string, { closes: string[]; stopAt: string[] }> = {
  li: { closes: ["li"], stopAt: ["ul", "ol", "table"] },
  dt: { closes: ["dt", "dd"], stopAt: ["dl", "table"] },
  dd: { closes: ["dt", "dd"], stopAt: ["dl", "table"] },
  tr: { closes: ["tr", "td", "th"], stopAt: ["table", "thead", "tbody", "tfoot"] },
  td: { closes: ["td", "th"], stopAt: ["tr", "table"] },
  th: { closes: ["td", "th"], stopAt: ["tr", "table"] },
  thead: { closes: ["thead", "tbody", "tfoot", "tr", "td", "th"], stopAt: ["table"] },
  tbody: { closes: ["thead", "tbody", "tfoot", "tr", "td", "th"], stopAt: ["table"] },
  tfoot: { closes: ["thead", "tbody", "tfoot", "tr", "td", "th"], stopAt: ["table"] },
};

/** Deeper markup is flattened, so rendering (recursive) stays bounded on hostile input. */
const MAX_DEPTH = 256;

const TAG_NAME = /^[A-Za-z][A-Za-z0-9:-]*/;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

export function parseHtml(html: string): ElementNode {
  const root: ElementNode = { type: "element", tag: "#root", attrs: {}, children: [], depth: 0 };
  let current = root;
  let text = "";
  const flushText = () => {
    if (text !== "") current.children.push({ type: "text", text: decodeEntities(text) });
    text = "";
  };

  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      text += html.slice(i);
      break;
    }
    text += html.slice(i, lt);
    i = lt;
    const afterDeclaration = skipDeclaration(html, i);
    if (afterDeclaration !== undefined) {
      i = afterDeclaration;
      continue;
    }
    const closing = html[i + 1] === "/";
    const name = TAG_NAME.exec(html.slice(i + (closing ? 2 : 1), i + (closing ? 2 : 1) + 64))?.[0];
    if (!name) {
      // A `<` that does not start a tag is text (`a < b`).
      text += "<";
      i++;
      continue;
    }
    const end = findTagEnd(html, i + 1);
    if (end === -1) {
      text += html.slice(i);
      break;
    }
    flushText();
    const tag = name.toLowerCase();
    const inside = html.slice(i + (closing ? 2 : 1) + name.length, end);
    i = end + 1;
    if (closing) {
      current = closeOpen(current, [tag], ["#root"], true) ?? current;
      continue;
    }
    const element = openElement(current, tag, parseAttributes(inside));
    // Its parent, not `current`: the start tag may have closed elements (`<hr>` ends an open `<p>`).
    current = !VOID.has(tag) && element.depth < MAX_DEPTH ? element : (element.parent ?? root);
    if (RAW_TEXT.has(tag)) {
      i = readRawText(html, i, element);
      if (current === element) current = element.parent ?? root;
    }
  }
  flushText();
  return root;
}

/** The index after a comment, doctype or processing instruction starting at `i`; undefined when none starts there. */
function skipDeclaration(html: string, i: number): number | undefined {
  if (html.startsWith("<!--", i)) {
    const end = html.indexOf("-->", i + 4);
    return end === -1 ? html.length : end + 3;
  }
  if (html[i + 1] === "!" || html[i + 1] === "?") {
    const end = html.indexOf(">", i);
    return end === -1 ? html.length : end + 1;
  }
  return undefined;
}

/**
 * A new element for `tag` under `current`, after closing what its start tag implicitly ends (an
 * open `<p>`, a `<li>` before the next): the caller descends into it unless it is void or too deep.
 */
function openElement(current: ElementNode, tag: string, attrs: Record<string, string>): ElementNode {
  let parent = current;
  if (tag === "p" || CLOSES_P.has(tag))
    parent = closeOpen(parent, ["p"], ["#root", "td", "th", "li", "blockquote", "dd", "div", "table"]) ?? parent;
  const implied = IMPLIED[tag];
  if (implied) parent = closeOpen(parent, implied.closes, implied.stopAt) ?? parent;
  const element: ElementNode = { type: "element", tag, attrs, children: [], parent, depth: parent.depth + 1 };
  parent.children.push(element);
  return element;
}

/**
 * The content of a raw-text element (`<script>`, `<style>`, `<textarea>`, `<title>`) from `from`
 * up to its end tag, as one text child: markup inside is not parsed. The index after the end tag,
 * or the end of the input when there is none.
 */
function readRawText(html: string, from: number, element: ElementNode): number {
  const { tag } = element;
  const closer = new RegExp(`</${tag}`, "gi");
  closer.lastIndex = from;
  const close = closer.exec(html)?.index ?? -1;
  const raw = html.slice(from, close === -1 ? html.length : close);
  if (raw !== "")
    element.children.push({ type: "text", text: tag === "textarea" || tag === "title" ? decodeEntities(raw) : raw });
  if (close === -1) return html.length;
  const closeEnd = html.indexOf(">", close);
  return closeEnd === -1 ? html.length : closeEnd + 1;
}

/** The `>` that ends the tag starting at `from`, skipping `>` inside quoted attribute values. */
function findTagEnd(html: string, from: number): number {
  let quote: string | undefined;
  for (let j = from; j < html.length; j++) {
    const c = html[j];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      // Only a quote that follows `=` opens a value; a stray quote elsewhere is just a character.
      if (/=\s*$/.test(html.slice(Math.max(from, j - 8), j))) quote = c;
    } else if (c === ">") return j;
  }
  return -1;
}

function parseAttributes(inside: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of inside.matchAll(ATTRIBUTE)) {
    const key = match[1].toLowerCase();
    if (key in attrs) continue;
    attrs[key] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attrs;
}

/**
 * Closes the nearest open element named in `names`, unless an element in `stopAt` comes first.
 * Returns the new current element, or undefined when nothing was closed. For an explicit end
 * tag (`explicit`), an unmatched tag is ignored, as browsers do.
 */
function closeOpen(current: ElementNode, names: string[], stopAt: string[], explicit = false): ElementNode | undefined {
  let steps = 0;
  for (
    let node: ElementNode | undefined = current;
    node && node.tag !== "#root" && steps++ < MAX_DEPTH;
    node = node.parent
  ) {
    if (names.includes(node.tag)) return node.parent;
    if (!explicit && stopAt.includes(node.tag)) return undefined;
  }
  return undefined;
}
