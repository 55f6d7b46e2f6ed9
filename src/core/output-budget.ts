/**
 * One output budget for the text a tool result carries, so that a result fits a model's context
 * (Claude Code cuts tool output past 25,000 tokens; others overflow). Handlers cut their own text
 * where they know the clean boundary and the argument that fetches the rest; `fitResult` is the
 * last resort applied to every result, cutting at a line and saying what happened.
 */
import { byteLength, cutToBytes } from "./text.ts";
import type { ToolResult } from "./tool.ts";

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

/**
 * The last resort for every result: its text content fits `maxBytes` in total (the blocks kept in
 * order, the first that does not fit cut at a line with a note, the rest dropped), and so does its
 * serialized `structuredContent` (its longest strings cut at a line with the same kind of note;
 * Claude Code and VS Code show a model only that half). Tools shorten their own pages first, where
 * they know the clean boundary and the argument for the rest; this only catches what they did not.
 */
export function fitResult(result: ToolResult, maxBytes: number, toolName: string): ToolResult {
  const fitted = fitTextContent(result, maxBytes, toolName);
  if (!fitted.structuredContent) return fitted;
  const structuredContent = fitStructured(
    fitted.structuredContent,
    maxBytes,
    (shown, total) =>
      `[${toolName}: cut at ${shown} of ${total} bytes to fit the server's output budget of ${maxBytes} bytes (--max-output-bytes); narrow the request to see the rest.]`,
  );
  return structuredContent === fitted.structuredContent ? fitted : { ...fitted, structuredContent };
}

function fitTextContent(result: ToolResult, maxBytes: number, toolName: string): ToolResult {
  let used = 0;
  let overflow = false;
  for (const block of result.content) if (block.type === "text") used += byteLength(block.text);
  if (used <= maxBytes) return result;
  used = 0;
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
        `[${toolName}: output cut at ${shown} of ${total} bytes to fit the server's output budget of ${maxBytes} bytes (--max-output-bytes). Narrow the request (a smaller limit, a filter or a shorter range) to see the rest${result.structuredContent ? "; structuredContent holds the complete result" : ""}.]`,
    );
    content.push({ type: "text", text: fitted.text });
    used += byteLength(fitted.text);
    overflow = fitted.cut;
  }
  return { ...result, content };
}

/**
 * `structured` with its longest strings cut (at a line, each ending with `note`) until its JSON
 * fits `maxBytes`; the same object when it already fits. Only strings shrink, so the shape still
 * matches the tool's outputSchema; when that is not enough (many small items), the longest list
 * keeps its first items. Tools page their own results where they can say exactly how to continue;
 * this is the bound for everything else.
 */
export function fitStructured(
  structured: Record<string, unknown>,
  maxBytes: number,
  note: (shownBytes: number, totalBytes: number) => string,
): Record<string, unknown> {
  let size = serializedBytes(structured);
  if (size <= maxBytes) return structured;
  const copy = structuredClone(structured);
  // The longest string is cut at a line (with the note) or, when a list weighs more, the longest
  // list keeps its first items (many small items: a catalog under a tiny budget).
  for (let round = 0; round < 64 && size > maxBytes; round++) {
    const longest = longestString(copy);
    const list = largestArray(copy);
    if (longest && longest.bytes >= 120 && (!list || longest.bytes * 2 >= list.bytes)) {
      const excess = size - maxBytes;
      // JSON escapes can make a string's serialized form longer than its bytes: cut a little more.
      const keep = Math.max(0, longest.bytes - Math.ceil(excess * 1.1) - NOTE_ROOM);
      const kept = cutToBytes(longest.value, keep, "\n");
      longest.set(`${kept}${kept.endsWith("\n") || kept === "" ? "" : "\n"}${note(byteLength(kept), longest.bytes)}`);
    } else if (list) {
      const share = Math.min(0.9, (size - maxBytes) / list.bytes + 0.05);
      list.items.splice(Math.max(1, Math.floor(list.items.length * (1 - share))));
    } else if (longest && longest.bytes > 40) {
      // Only short strings left: halve the longest (a note would be longer than what it saves).
      longest.set(`${cutToBytes(longest.value, Math.floor(longest.bytes / 2), " ")}…`);
    } else break;
    size = byteLength(JSON.stringify(copy));
  }
  return copy;
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

function largestArray(value: unknown): { items: unknown[]; bytes: number } | undefined {
  let best: { items: unknown[]; bytes: number } | undefined;
  const visit = (item: unknown) => {
    if (!item || typeof item !== "object") return;
    if (Array.isArray(item)) {
      const bytes = byteLength(JSON.stringify(item));
      if (item.length > 1 && (!best || bytes > best.bytes)) best = { items: item, bytes };
    }
    for (const child of Object.values(item)) visit(child);
  };
  visit(value);
  return best;
}

interface StringSlot {
  value: string;
  bytes: number;
  set(value: string): void;
}

function longestString(value: unknown): StringSlot | undefined {
  let best: StringSlot | undefined;
  const visit = (container: Record<string, unknown> | unknown[]) => {
    for (const [key, item] of Object.entries(container)) {
      if (typeof item === "string") {
        const bytes = byteLength(item);
        if (!best || bytes > best.bytes)
          best = { value: item, bytes, set: (next) => void ((container as Record<string, unknown>)[key] = next) };
      } else if (item && typeof item === "object") visit(item as Record<string, unknown>);
    }
  };
  if (value && typeof value === "object") visit(value as Record<string, unknown>);
  return best;
}
