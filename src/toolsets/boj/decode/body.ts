/**
 * Turning the bytes BOJ sent into text, and deciding what kind of body they are. BOJ answers
 * errors in JSON whatever `format` asked for, CSV in Shift_JIS (lang=jp) or UTF-8 (lang=en), and
 * a gateway in front of it may answer HTML; this module tells them apart before any parsing.
 */
import { decodeError } from "../errors.ts";

export interface RawBody {
  bytes: Uint8Array;
  /** HTTP status of the response (BOJ mirrors STATUS in it, a gateway may not). */
  httpStatus: number;
  contentType: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const utf8Lenient = new TextDecoder("utf-8", { fatal: false });
// WHATWG "shift_jis" is Windows-31J (CP932), which includes the vendor extensions BOJ may use.
const shiftJis = new TextDecoder("shift_jis", { fatal: true });

/** True when the first non-blank byte opens a JSON object or array (after an optional UTF-8 BOM). */
export function looksLikeJson(bytes: Uint8Array): boolean {
  let i = hasUtf8Bom(bytes) ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i] === 0x7b || bytes[i] === 0x5b;
}

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw decodeError(`${what} is not valid UTF-8.`);
  }
}

function charsetOf(contentType: string): string | undefined {
  return /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1]?.toLowerCase();
}

/**
 * CSV text: a UTF-8 BOM or an explicit charset wins; otherwise Shift_JIS for jp and UTF-8 for en
 * (manual p.12-13). If the expected encoding does not fit, the other one is tried before giving
 * up, so a server that changes its encoding does not break the tool.
 */
export function decodeCsvText(body: RawBody, lang: "jp" | "en"): string {
  if (hasUtf8Bom(body.bytes)) return decodeUtf8(body.bytes, "The CSV body");
  const charset = charsetOf(body.contentType);
  const declaredUtf8 = charset === "utf-8" || charset === "utf8";
  const declaredSjis = charset !== undefined && /^(shift[_-]?jis|sjis|windows-31j|cp932|ms932|x-sjis)$/.test(charset);
  const order = declaredUtf8 ? [utf8, shiftJis] : declaredSjis || lang === "jp" ? [shiftJis, utf8] : [utf8, shiftJis];
  for (const decoder of order) {
    try {
      return decoder.decode(body.bytes);
    } catch {
      // try the next encoding
    }
  }
  throw decodeError(`The CSV body is neither valid Shift_JIS nor valid UTF-8 (lang=${lang}).`);
}

/** A short, readable excerpt of a non-JSON body (an HTML error page, say): tags dropped, ≤ 500 characters. */
export function excerpt(bytes: Uint8Array, limit = 500): string {
  const text = utf8Lenient
    .decode(bytes.subarray(0, 64 * 1024))
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return "(empty body)";
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
