/**
 * One output budget for the text a tool result carries, so that a result fits a model's context
 * (Claude Code cuts tool output past 25,000 tokens; others overflow). Handlers cut their own text
 * where they know the clean boundary and the argument that fetches the rest; `fitResult` is the
 * last resort applied to every result, cutting at a line and saying what happened.
 */
import { byteLength, cutToBytes } from "./text.ts";
import { type ToolResult, constantResult } from "./tool.ts";

/** ≈ 25k tokens of mostly-ASCII text. */
export const DEFAULT_OUTPUT_BUDGET = 100_000;

/** Room kept for the note that says a text was cut. */
const NOTE_ROOM = 600;

/**
 * Cuts `text` to at most `maxBytes` (including the note), at the last `boundary` that fits, and
 * appends `note(shownBytes)` when anything was cut. Returns the text unchanged when it fits.
 */
export function fitText(
  text: string,
  maxBytes: number,
  note: (shownBytes: number, totalBytes: number) => string,
  boundary = "\n",
): { text: string; cut: boolean } {
  const total = byteLength(text);
  if (total <= maxBytes) return { text, cut: false };
  const kept = cutToBytes(text, Math.max(0, maxBytes - NOTE_ROOM), boundary);
  return { text: `${kept}${kept.endsWith("\n") ? "" : "\n"}${note(byteLength(kept), total)}`, cut: true };
}

/** What `fitResult` knows of the tool, to say truthfully what a caller can do about a cut. */
export interface ToolShape {
  /** The tool's argument names ([] for a tool without arguments); undefined when unknown. */
  argumentNames?: readonly string[];
  /**
   * Whether structuredContent may carry a top-level `truncated` field (false when the tool's
   * outputSchema is a strict object without one: the SDK client would refuse the result).
   */
  truncatedAllowed?: boolean;
}

/**
 * What a caller can do to see what a cut result left out, from what is known of the tool: a tool
 * without arguments cannot be narrowed, so only a larger budget shows the rest.
 */
export function restAdvice(argumentNames: readonly string[] | undefined, short = false): string {
  if (argumentNames && argumentNames.length === 0)
    return "this tool has no arguments to narrow it: ask the user to raise --max-output-bytes to see the rest";
  if (argumentNames && !short)
    return `narrow the request (its arguments: ${argumentNames.join(", ")}) or ask the user to raise --max-output-bytes to see the rest`;
  return "narrow the request or ask the user to raise --max-output-bytes to see the rest";
}

/**
 * The last resort for every result: its serialized `structuredContent` fits `maxBytes` (its
 * longest strings cut at a line with a note, or its longest list keeping its first items, recorded
 * in a top-level `truncated` field; Claude Code and VS Code show a model only that half), and so
 * does its text content (the blocks kept in order, the first that does not fit cut at a line with
 * a note, the rest dropped). Tools shorten their own pages first, where they know the clean
 * boundary and the argument for the rest; this only catches what they did not.
 */
export function fitResult(
  result: ToolResult,
  maxBytes: number,
  toolName: string,
  shapeOf: () => ToolShape = () => ({}),
  structuredAtMost?: number,
): ToolResult {
  // A frozen result (`constantResult`: a catalog answered on every call) is fitted once per budget
  // and tool name: measuring it again was half of a cheap call's dispatch (510 → 261 ns a call,
  // `bun scripts/bench/dispatch.ts`; test/core/fit-frozen.test.ts fails if this stops being taken).
  if (!Object.isFrozen(result)) return fit(result, maxBytes, toolName, shapeOf, structuredAtMost);
  const known = fittedFrozen.get(result);
  if (known?.maxBytes === maxBytes && known.toolName === toolName) return known.fitted;
  // A cut of a constant is constant too: frozen, its answers are serialized once as well.
  const fitted = constantResult(fit(result, maxBytes, toolName, shapeOf));
  fittedFrozen.set(result, { maxBytes, toolName, fitted });
  return fitted;
}

/** What `fitResult` made of each frozen result, for the budget and tool name it was fitted for. */
const fittedFrozen = new WeakMap<ToolResult, { maxBytes: number; toolName: string; fitted: ToolResult }>();

function fit(
  result: ToolResult,
  maxBytes: number,
  toolName: string,
  shapeOf: () => ToolShape,
  structuredAtMost = Number.POSITIVE_INFINITY,
): ToolResult {
  const before = result.structuredContent;
  // Most results fit: what is known of the tool is looked at only for one that does not, and a
  // result well within the budget is not measured at all (`textFits`, the tool's own bound of its
  // structuredContent, `structuredFits`).
  if (textFits(result, maxBytes) && (!before || structuredAtMost <= maxBytes || structuredFits(before, maxBytes)))
    return result;
  const tool = shapeOf();
  const advice = restAdvice(tool.argumentNames);
  const structuredContent =
    before &&
    fitStructured(
      before,
      maxBytes,
      (shown, total) =>
        `[${toolName}: cut at ${shown} of ${total} bytes to fit the server's output budget of ${maxBytes} bytes (--max-output-bytes); ${restAdvice(tool.argumentNames, true)}.]`,
      { advice, marker: tool.truncatedAllowed !== false },
    );
  const structured =
    structuredContent === undefined
      ? "none"
      : structuredContent !== before
        ? "cut"
        : "truncated" in structuredContent
          ? "cut" // the tool shortened it itself and says so
          : "complete";
  const fitted = fitTextContent(result, maxBytes, toolName, advice, structured);
  return structuredContent === before ? fitted : { ...fitted, structuredContent };
}

/** Whether the text content fits: 3 bytes per UTF-16 unit bound its UTF-8, measured only when that bound is over. */
function textFits(result: ToolResult, maxBytes: number): boolean {
  let bound = 0;
  for (const block of result.content) if (block.type === "text") bound += block.text.length * 3;
  return bound <= maxBytes || textBytes(result) <= maxBytes;
}

/**
 * Whether `structured`'s JSON fits. Serializing it just to measure it cost about as much as the
 * tool's own work for an 8 KB catalog (issue 39), and the answer serializes it once more: a bound
 * of its size settles a result well within the budget, and only one near or over it is measured
 * (test/core/fit-bound.test.ts fails if this stops being taken).
 */
function structuredFits(structured: Record<string, unknown>, maxBytes: number): boolean {
  const known = knownSizes.get(structured);
  if (known !== undefined) return known <= maxBytes;
  return jsonBound(structured, maxBytes) <= maxBytes || serializedBytes(structured) <= maxBytes;
}

/** Past this depth the bound gives up and the exact measure decides: JSON this deep is no tool result. */
const BOUND_DEPTH = 64;

/**
 * An upper bound of the UTF-8 size of `JSON.stringify(value)`, or Infinity once it passes `limit`
 * or meets anything but plain data (a toJSON, a class instance or boxed value, a BigInt, more
 * than BOUND_DEPTH levels), which the exact measure then handles as before. A string is at most
 * 6 bytes per UTF-16 unit (`\u001f`) and its quotes, a number at most 24 (`-2.2250738585072014e-308`).
 */
export function jsonBound(value: unknown, limit: number, depth = 0): number {
  if (typeof value === "string") return value.length * 6 + 2;
  if (typeof value !== "object") return scalarBound(value);
  if (value === null) return 4;
  if (depth >= BOUND_DEPTH) return Number.POSITIVE_INFINITY;
  // Strings, most of a result's items and values, are bounded inline: a call per string was a
  // fifth of the bound's time (8 KB catalog: 1.3 → 1.0 µs).
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return Number.POSITIVE_INFINITY;
    let total = 2;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      total += (typeof item === "string" ? item.length * 6 + 2 : jsonBound(item, limit - total, depth + 1)) + 1;
      if (total > limit) return Number.POSITIVE_INFINITY;
    }
    return total;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return Number.POSITIVE_INFINITY;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return Number.POSITIVE_INFINITY;
  let total = 2;
  // for…in also yields inherited enumerable keys, which JSON skips: they only make the bound larger.
  for (const key in value as Record<string, unknown>) {
    const item = (value as Record<string, unknown>)[key];
    total +=
      key.length * 6 + 4 + (typeof item === "string" ? item.length * 6 + 2 : jsonBound(item, limit - total, depth + 1));
    if (total > limit) return Number.POSITIVE_INFINITY;
  }
  return total;
}

/** The bound of anything but a string or an object. */
function scalarBound(value: unknown): number {
  switch (typeof value) {
    case "number":
      return 24;
    case "boolean":
      return 5;
    case "bigint":
      return Number.POSITIVE_INFINITY;
    default:
      return 4; // undefined, a function, a symbol: "null" in an array, nothing in an object
  }
}

/** The UTF-8 size of a result's text content (its text blocks together). */
export function textBytes(result: ToolResult): number {
  let used = 0;
  for (const block of result.content) if (block.type === "text") used += byteLength(block.text);
  return used;
}

function fitTextContent(
  result: ToolResult,
  maxBytes: number,
  toolName: string,
  advice: string,
  structured: "none" | "cut" | "complete",
): ToolResult {
  if (textBytes(result) <= maxBytes) return result;
  let used = 0;
  let overflow = false;
  const other =
    structured === "complete"
      ? "; structuredContent holds the complete result"
      : structured === "cut"
        ? "; structuredContent is shortened too"
        : "";
  const content: ToolResult["content"] = [];
  for (const block of result.content) {
    if (overflow) break;
    if (block.type !== "text") {
      content.push(block);
      continue;
    }
    const room = maxBytes - used;
    const fitted = fitText(
      block.text,
      room,
      (shown, total) =>
        `[${toolName}: output cut at ${shown} of ${total} bytes to fit the server's output budget of ${maxBytes} bytes (--max-output-bytes); ${advice}${other}.]`,
    );
    content.push({ type: "text", text: fitted.text });
    used += byteLength(fitted.text);
    overflow = fitted.cut;
  }
  return { ...result, content };
}

interface FitOptions {
  /** What to do about items a cut list left out (default: `restAdvice(undefined)`). */
  advice?: string;
  /** Record a cut list in a top-level `truncated` field (default true; false when the outputSchema forbids it). */
  marker?: boolean;
}

/** A list `fitStructured` shortened: where it is and how many items it had. */
interface CutList {
  path: string;
  total: number;
  items: unknown[];
}

/**
 * `structured` with its longest strings cut (at a line, each ending with `note`) until its JSON
 * fits `maxBytes`; the same object when it already fits. When strings are not enough (many small
 * items), the longest list keeps its first items, and a top-level `truncated` field (the shape of
 * BOJ data pages: `{list, shown_items, total_items, continuation}`) says which list was cut, how
 * many of its items are left and what to do for the rest; its room is reserved before the fit is
 * checked. Tools page their own results where they can say exactly how to continue; this is the
 * bound for everything else.
 */
export function fitStructured(
  structured: Record<string, unknown>,
  maxBytes: number,
  note: (shownBytes: number, totalBytes: number) => string,
  options: FitOptions = {},
): Record<string, unknown> {
  let size = serializedBytes(structured);
  if (size <= maxBytes) return structured;
  const copy = structuredClone(structured);
  const advice = options.advice ?? restAdvice(undefined);
  const marker = options.marker !== false;
  const existing = copy.truncated;
  const cut: CutList[] = [];
  let compact = false;
  // The longest string is cut at a line (with the note) or, when a list weighs more or the rest
  // of the result leaves the string no room, the longest list keeps its first items (many small
  // items: a catalog under a tiny budget).
  for (let round = 0; round < 64 && size > maxBytes; round++) {
    // Once this function has written `truncated`, that record of what was cut is never cut itself.
    const skip = marker && cut.length > 0;
    const longest = longestString(copy, skip);
    const list = largestArray(copy, skip);
    // Measured only for a string long enough to be cut rather than halved.
    const room = longest && longest.bytes >= 120 ? maxBytes - (size - jsonBytes(longest.value)) : 0;
    if (longest && longest.bytes >= 120 && (!list || (longest.bytes * 2 >= list.bytes && room > 0))) {
      const cutString = cutToRoom(longest, room, note);
      // A note longer than what it replaces saves nothing: halve the string instead.
      longest.set(byteLength(cutString) < longest.bytes ? cutString : halved(longest));
    } else if (list) {
      if (!cut.some((entry) => entry.items === list.items))
        cut.push({ path: list.path, total: list.items.length, items: list.items });
      // The record is written before the room is measured: it only gets shorter with fewer items.
      if (marker) copy.truncated = truncation(cut, existing, maxBytes, advice, compact);
      const rest = (marker ? jsonBytes(copy) : size) - list.bytes;
      list.items.splice(itemsFitting(list.items, maxBytes - rest));
      if (marker) copy.truncated = truncation(cut, existing, maxBytes, advice, compact);
    } else if (marker && cut.length > 0 && !compact) {
      // Only short strings left (a tiny budget): the record of the cut says the same in fewer
      // words before what the tool said is halved.
      compact = true;
      copy.truncated = truncation(cut, existing, maxBytes, advice, true);
    } else if (longest && longest.bytes > 16) {
      // Only short strings left: halve the longest (a note would be longer than what it saves).
      longest.set(halved(longest));
    } else break;
    size = jsonBytes(copy);
  }
  // Out of rounds (a tiny budget): the record of the cut says the same in fewer words.
  if (size > maxBytes && marker && cut.length > 0 && !compact)
    copy.truncated = truncation(cut, existing, maxBytes, advice, true);
  return copy;
}

/** The UTF-8 size of `value`'s JSON. */
function jsonBytes(value: unknown): number {
  return byteLength(JSON.stringify(value) ?? "null");
}

/**
 * `slot`'s string cut at a line, ending with the note, so that its JSON takes at most `room`
 * bytes: what is kept comes from the room the rest of the result leaves, scaled by how much JSON
 * escapes grow this string, then corrected against the measured cut. (Cutting the excess plus a
 * tenth from the string's length cut a statement that was most of the result to nothing: under a
 * 2,000-byte budget a 100 KB statement kept 0 bytes while the text kept 1,400.)
 */
function cutToRoom(slot: StringSlot, room: number, note: (shown: number, total: number) => string): string {
  const withNote = (kept: string) =>
    `${kept}${kept.endsWith("\n") || kept === "" ? "" : "\n"}${note(byteLength(kept), slot.bytes)}`;
  const growth = Math.max(1, (jsonBytes(slot.value) - 2) / Math.max(1, slot.bytes));
  // The note with the largest number it can say, plus its line break, escaped as JSON.
  let keep = Math.floor((room - jsonBytes(`\n${note(slot.bytes, slot.bytes)}`)) / growth);
  let cutString = withNote(cutToBytes(slot.value, keep, "\n"));
  // A kept part with more escapes than the whole needs a second look; each look keeps less.
  for (let attempt = 0; attempt < 8 && keep > 0; attempt++) {
    const over = jsonBytes(cutString) - room;
    if (over <= 0) break;
    keep = Math.min(keep - 1, keep - Math.ceil(over / growth));
    cutString = withNote(cutToBytes(slot.value, keep, "\n"));
  }
  return cutString;
}

/**
 * How many of `items`' first items a list keeps so that its JSON takes at most `room` bytes: at
 * least one, and at least a tenth of them in one round, so that a list cut first does not lose
 * everything to another that is cut next (the loop shortens it again if it must).
 */
function itemsFitting(items: unknown[], room: number): number {
  let used = 2; // the brackets
  let count = 0;
  while (count < items.length) {
    used += jsonBytes(items[count]) + (count > 0 ? 1 : 0);
    if (used > room) break;
    count++;
  }
  return Math.min(items.length - 1, Math.max(1, Math.floor(items.length / 10), count));
}

/** A string's first half (cut at a space when one is near), marked as cut. */
function halved(slot: StringSlot): string {
  return `${cutToBytes(slot.value, Math.floor(slot.bytes / 2), " ")}…`;
}

/** At most this many cut lists are named one by one in `truncated.lists`; the rest are counted. */
const NAMED_LISTS = 16;

/**
 * The `truncated` field for the lists cut so far (added to what the tool itself said, if anything).
 * The first list keeps its fields (`list`, `shown_items`, `total_items`); when more were cut,
 * `lists` names each of the others with its counts, since a client showing only structuredContent leaves a
 * model no other way to know that `["json"]` is the first of two formats and not all of them.
 */
function truncation(
  cut: CutList[],
  existing: unknown,
  maxBytes: number,
  advice: string,
  compact = false,
): Record<string, unknown> {
  const [first] = cut;
  const more = cut.length - 1;
  const unnamed = Math.max(0, more - NAMED_LISTS);
  const others = more ? ` (${more} more list${more > 1 ? "s" : ""} shortened too, named in lists)` : "";
  const continuation = compact
    ? `${more ? "Lists" : first.path} cut to fit --max-output-bytes ${maxBytes}; raise it to see the rest.`
    : `${first.path} keeps its first ${first.items.length} of ${first.total} items${others} to fit the output budget of ${maxBytes} bytes (--max-output-bytes); ${advice}.`;
  const own = existing && typeof existing === "object" && !Array.isArray(existing) ? existing : undefined;
  const before = own && typeof (own as { continuation?: unknown }).continuation === "string";
  return {
    ...own,
    list: first.path,
    shown_items: first.items.length,
    total_items: first.total,
    // The other lists, as "path: shown of total", a third of the bytes of an object each: these
    // count most under a tiny budget.
    ...(more > 0 && {
      lists: [
        ...cut.slice(1, NAMED_LISTS + 1).map((entry) => `${entry.path}: ${entry.items.length} of ${entry.total}`),
        ...(unnamed > 0 ? [`${unnamed} more`] : []),
      ],
    }),
    continuation: before ? `${(own as { continuation: string }).continuation} ${continuation}` : continuation,
  };
}

/**
 * Serialized sizes already known: a frozen result (constant catalogs) is measured once, not on
 * every call (`constantResult`), and a tool that fitted its own page says what it measured, so a
 * page of 100 KB is not serialized a second time here on every call.
 */
const knownSizes = new WeakMap<object, number>();

/** Records the measured UTF-8 size of `structured`'s JSON (it must not change afterwards). */
export function rememberSize(structured: object, bytes: number): void {
  knownSizes.set(structured, bytes);
}

function serializedBytes(structured: Record<string, unknown>): number {
  const known = knownSizes.get(structured);
  if (known !== undefined) return known;
  const size = byteLength(JSON.stringify(structured));
  if (Object.isFrozen(structured)) knownSizes.set(structured, size);
  return size;
}

function largestArray(
  value: unknown,
  skipTruncated: boolean,
): { items: unknown[]; bytes: number; path: string } | undefined {
  let best: { items: unknown[]; bytes: number; path: string } | undefined;
  const visit = (item: unknown, path: string) => {
    if (!item || typeof item !== "object") return;
    if (Array.isArray(item)) {
      const bytes = byteLength(JSON.stringify(item));
      if (item.length > 1 && (!best || bytes > best.bytes)) best = { items: item, bytes, path };
      for (const [index, child] of item.entries()) visit(child, `${path}[${index}]`);
      return;
    }
    for (const [key, child] of Object.entries(item)) {
      if (skipTruncated && path === "" && key === "truncated") continue;
      visit(child, path === "" ? key : `${path}.${key}`);
    }
  };
  visit(value, "");
  return best;
}

interface StringSlot {
  value: string;
  bytes: number;
  set(value: string): void;
}

function longestString(value: unknown, skipTruncated: boolean): StringSlot | undefined {
  let best: StringSlot | undefined;
  const visit = (container: Record<string, unknown> | unknown[], top = false) => {
    for (const [key, item] of Object.entries(container)) {
      if (top && skipTruncated && key === "truncated") continue;
      if (typeof item === "string") {
        const bytes = byteLength(item);
        if (!best || bytes > best.bytes)
          best = { value: item, bytes, set: (next) => void ((container as Record<string, unknown>)[key] = next) };
      } else if (item && typeof item === "object") visit(item as Record<string, unknown>);
    }
  };
  if (value && typeof value === "object") visit(value as Record<string, unknown>, !Array.isArray(value));
  return best;
}
