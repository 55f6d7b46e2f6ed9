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
 * Makes a result's text content fit `maxBytes` in total: the blocks are kept in order, and the
 * first block that does not fit is cut at a line with a note, the rest dropped. `structuredContent`
 * is left whole (clients that read it get everything; the text is what a model reads).
 */
export function fitResult(result: ToolResult, maxBytes: number, toolName: string): ToolResult {
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
