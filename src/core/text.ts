/**
 * Text that came from elsewhere (an upstream's error body, a file name) on its way to a client or
 * a terminal: escape sequences in it could repaint or retitle the terminal that `mcpkit call`
 * prints to, and bidi or zero-width characters could make it read as something else, so they are
 * removed before the text is shown anywhere.
 */

// ESC-introduced sequences first (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`, two-byte ESC x),
// then the 8-bit C1 forms of CSI/OSC, then any remaining C0/C1 control except tab and newline.
const ESCAPE_SEQUENCES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u009c]*[\u0007\u009c]?/g;
/**
 * C0/C1 controls but tab and newline, and the Unicode format characters (\p{Cf}): bidi embeddings,
 * overrides and isolates (U+202E can turn "gnp.exe" into what reads as "exe.png"), zero-width
 * spaces and joiners, the BOM. Invisible, yet they change what a reader sees, so they go; the
 * line and paragraph separators become newlines.
 */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}]/gu;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * Removes terminal escape sequences, control characters and invisible format characters; keeps
 * tabs and newlines (CR too, as part of CRLF).
 */
export function stripControl(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(ESCAPE_SEQUENCES, "")
    .replace(CONTROL_CHARACTERS, "")
    .replace(LINE_SEPARATORS, "\n");
}

const encoder = new TextEncoder();

/** UTF-8 length in bytes. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * The longest prefix of `text` within `maxBytes` UTF-8 bytes that ends at a clean boundary: the
 * last `boundary` (default a newline) inside the limit when there is one in its second half,
 * else the last whole character. Never splits a character or a surrogate pair.
 */
export function cutToBytes(text: string, maxBytes: number, boundary = "\n"): string {
  if (maxBytes <= 0) return "";
  if (text.length * 3 <= maxBytes || byteLength(text) <= maxBytes) return text;
  const bytes = encoder.encode(text);
  let end = maxBytes;
  // Step back to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx).
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  const prefix = new TextDecoder().decode(bytes.subarray(0, end));
  const at = boundary ? prefix.lastIndexOf(boundary) : -1;
  return at >= prefix.length / 2 ? prefix.slice(0, at + boundary.length) : prefix;
}

/** A client's text as a log line shows it: at most `max` characters (cut with "…"), whatever length it was sent. */
export function shortened(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A value a client sent, as an error message repeats it: JSON, at most `max` characters (cut with
 * "…"). A client chooses the value, so neither its size nor its depth may reach the answer, the
 * log or the CPU: a 900 KB value was echoed whole, and JSON.stringify of one nested 60,000 deep
 * spent 1.6 s of CPU before overflowing its stack, which turned a bad argument into an internal
 * error. So the value is written here, and the writing stops at `max` characters, whatever it holds.
 */
export function shownValue(value: unknown, max = 80): string {
  const out: string[] = [];
  let room = max + 1;
  const put = (text: string) => {
    out.push(text.slice(0, room));
    room -= text.length;
  };
  const write = (item: unknown): void => {
    if (room <= 0) return;
    if (typeof item === "string") {
      put(JSON.stringify(item.slice(0, room)));
    } else if (item === null || typeof item !== "object") {
      put(String(JSON.stringify(item) ?? item));
    } else if (Array.isArray(item)) {
      put("[");
      for (let i = 0; i < item.length && room > 0; i++) {
        if (i > 0) put(",");
        write(item[i]);
      }
      put("]");
    } else {
      writeObject(item);
    }
  };
  const writeObject = (item: object): void => {
    put("{");
    // All keys are listed first (for…in does the same in Bun), which costs less than parsing them did.
    const keys = Object.keys(item);
    for (let i = 0; i < keys.length && room > 0; i++) {
      put(`${i > 0 ? "," : ""}${JSON.stringify(keys[i].slice(0, room))}:`);
      write((item as Record<string, unknown>)[keys[i]]);
    }
    put("}");
  };
  write(value);
  const text = out.join("");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
