/**
 * Upstream text on its way to a client, a terminal or a log (docs/contracts/oj.md §7, "Token and
 * upstream text"). Two dangers:
 *
 * - The bearer token. mcpkit never writes it into a message itself, but an upstream or a proxy may
 *   echo the Authorization header in an error page or a JSON body. Replacing only the whole token
 *   is not enough: any cut (the 1 MiB body cap, the 500-character error excerpt, the 102,400-byte
 *   cap, the output budget) can leave most of it behind as a prefix, and an upstream may itself
 *   split it across fields. So every run of the token's characters at least MIN_FRAGMENT long is
 *   redacted, wherever it stands, in the raw, JSON-escaped and percent-encoded forms (whatever
 *   the letter case of the percent-escapes' hexadecimal digits).
 * - Terminal control sequences (ANSI/OSC). `mcpkit call` prints results to a terminal, and logs go
 *   to one: upstream text is passed through `stripControl` before anything else sees it.
 *
 * Control characters are stripped before redacting, so an escape sequence planted inside the
 * token cannot hide it from the redaction.
 */
import { stripControl } from "../../core/text.ts";
import { ProtocolError, type ToolContext, type ToolMiddleware, type ToolResult } from "../../core/tool.ts";
import { encodeComponent } from "./encode.ts";

export const REDACTED = "[redacted]";
/** No run of this many characters of the token ever leaves the process. */
export const MIN_FRAGMENT = 8;

export interface Sanitizer {
  /** `text` without control sequences and without any run of MIN_FRAGMENT token characters. */
  text(text: string): string;
  /** The same for every string inside a JSON value (keys included); other values are kept. */
  value<T>(value: T): T;
}

export function createSanitizer(token: string | undefined): Sanitizer {
  const redact = token ? fragmentRedactor(token) : (text: string) => text;
  const text = (input: string) => redact(stripControl(input));
  const value = <T>(input: T): T => sanitizeValue(input, text) as T;
  return { text, value };
}

/** The forms in which an upstream could echo the token: as is, JSON-escaped, percent-encoded. */
export function tokenForms(token: string): string[] {
  const jsonEscaped = JSON.stringify(token).slice(1, -1);
  const forms = [
    token,
    jsonEscaped,
    jsonEscaped.replaceAll("/", "\\/"),
    encodeComponent(token),
    encodeURIComponent(token),
  ];
  // A token that is itself valid JSON string content (holding `\"`, say) appears decoded once it
  // has been through JSON.parse, and re-escaped when a result is serialized.
  try {
    const decoded = JSON.parse(`"${token}"`);
    if (typeof decoded === "string") forms.push(decoded);
  } catch {
    // not valid JSON string content: no decoded form
  }
  return [...new Set(forms.filter((form) => form.length > 0))];
}

/**
 * Returns a function that replaces every maximal run of text covered by MIN_FRAGMENT-character
 * windows of the token's forms with REDACTED (a form shorter than that is matched whole). Cutting
 * a text only ever removes characters, so a text without such a run stays without one after any
 * later cut.
 *
 * The text is read once per window length (MIN_FRAGMENT, and the length of any shorter form),
 * whatever the token's length: searching it once per window cost three to five searches per
 * token character per string, and a hostile body of many short strings held the CPU for 14 s with
 * a 4,000-character token.
 */
export function fragmentRedactor(token: string): (text: string) => string {
  const byLength = new Map<number, WindowSet>();
  const forms = tokenForms(token);
  for (const form of new Set([...forms, ...forms.map(upperEscapes)])) {
    const length = Math.min(form.length, MIN_FRAGMENT);
    const set = byLength.get(length) ?? { length, windows: new Set(), hashes: new Set() };
    byLength.set(length, set);
    for (let i = 0; i + length <= form.length; i++) {
      set.windows.add(form.slice(i, i + length));
      set.hashes.add(hashOf(form, i, length));
    }
  }
  const sets = [...byLength.values()];
  const shortest = Math.min(...byLength.keys());

  return (text) => {
    if (text.length < shortest) return text;
    let covered: Uint8Array | undefined;
    for (const set of sets) covered = coverWindows(text, set, covered);
    // Percent-escapes are compared without case (`%2f` is `%2F`): the text is read once more with
    // its escapes upper-cased, which keeps every character where it was.
    const upper = text.includes("%") ? upperEscapes(text) : text;
    if (upper !== text) for (const set of sets) covered = coverWindows(upper, set, covered);
    return covered ? replaceCovered(text, covered) : text;
  };
}

/**
 * `text` with the hexadecimal digits of its percent-escapes upper-cased (`%2f` → `%2F`), as
 * `encodeComponent` writes them: an upstream that percent-encodes the token itself may write
 * them in lower case (RFC 3986 makes the two equal). The length and every position are kept.
 */
export function upperEscapes(text: string): string {
  return text.replace(/%[0-9a-fA-F]{2}/g, (hex) => hex.toUpperCase());
}

/** `text` with its percent-escapes in lower case (`%2F` → `%2f`): the other way an upstream may write them. */
export function lowerEscapes(text: string): string {
  return text.replace(/%[0-9a-fA-F]{2}/g, (hex) => hex.toLowerCase());
}

/** The windows of one length, and their rolling hashes, which spare a substring at every position. */
interface WindowSet {
  length: number;
  windows: Set<string>;
  hashes: Set<number>;
}

const HASH_BASE = 31;

/** A polynomial hash of `text[from, from + length)` modulo 2^32, as `coverWindows` rolls it. */
function hashOf(text: string, from: number, length: number): number {
  let hash = 0;
  for (let i = from; i < from + length; i++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Marks in `covered` (made on the first match) every occurrence in `text` of a window of `set`:
 * one pass rolling the hash along the text; a hash that matches is checked against the windows
 * themselves, so a collision costs one comparison and never redacts.
 */
function coverWindows(text: string, set: WindowSet, covered: Uint8Array | undefined): Uint8Array | undefined {
  const { length, windows, hashes } = set;
  if (text.length < length) return covered;
  let highest = 1; // HASH_BASE^(length − 1): the weight of the character leaving the window
  for (let i = 1; i < length; i++) highest = Math.imul(highest, HASH_BASE);
  let hash = hashOf(text, 0, length);
  for (let at = 0; ; at++) {
    if (hashes.has(hash) && windows.has(text.slice(at, at + length))) {
      covered ??= new Uint8Array(text.length);
      covered.fill(1, at, at + length);
    }
    if (at + length >= text.length) return covered;
    const leaving = Math.imul(text.charCodeAt(at), highest);
    hash = (Math.imul(hash - leaving, HASH_BASE) + text.charCodeAt(at + length)) | 0;
  }
}

/** `text` with each maximal run of covered characters replaced by one REDACTED. */
function replaceCovered(text: string, covered: Uint8Array): string {
  let out = "";
  let start = 0;
  for (let i = 0; i < text.length; ) {
    if (covered[i] === 0) {
      i++;
      continue;
    }
    out += text.slice(start, i) + REDACTED;
    while (i < text.length && covered[i] === 1) i++;
    start = i;
  }
  return out + text.slice(start);
}

function sanitizeValue(value: unknown, text: (input: string) => string): unknown {
  if (typeof value === "string") return text(value);
  if (Array.isArray(value)) return value.map((item) => sanitizeValue(item, text));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [text(key), sanitizeValue(item, text)]));
  }
  return value;
}

/**
 * The last pass over everything a tool hands back: result texts, structured content, error
 * messages and the notifications it sends. The HTTP layer already sanitizes upstream text before
 * any cut; this catches what the handlers build from it (and arguments that echo the token). A
 * protocol error is also reported to the client's log, unless `notifyFailures` is off.
 */
export function sanitizedOutput(sanitize: Sanitizer, { notifyFailures = true } = {}): ToolMiddleware {
  return (next) => async (args, context) => {
    const notify: ToolContext["notify"] = (level, logger, message, data) => {
      // `mcpkit call` prints the failure itself (result or error): a warning about it would say it twice.
      if (!notifyFailures && (level === "warning" || level === "error")) return;
      context.notify(level, logger, sanitize.text(message), data === undefined ? undefined : sanitize.value(data));
    };
    try {
      return sanitizeResult(await next(args, { ...context, notify }), sanitize);
    } catch (error) {
      if (error instanceof ProtocolError) {
        const message = sanitize.text(error.message);
        notify("error", "oj", `${context.calledAs} failed: ${message}`);
        throw new ProtocolError(error.code, message, error.data === undefined ? undefined : sanitize.value(error.data));
      }
      // invokeTool logs the message of an unexpected error: keep that line clean too.
      if (error instanceof Error) error.message = sanitize.text(error.message);
      throw error;
    }
  };
}

function sanitizeResult(result: ToolResult, sanitize: Sanitizer): ToolResult {
  return {
    ...result,
    content: result.content.map((item) => (item.type === "text" ? { ...item, text: sanitize.text(item.text) } : item)),
    ...(result.structuredContent === undefined ? {} : { structuredContent: sanitize.value(result.structuredContent) }),
  };
}
