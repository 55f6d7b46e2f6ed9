/**
 * Turning the bytes BOJ sent into text, and deciding what kind of body they are. BOJ answers
 * errors in JSON whatever `format` asked for, CSV in Shift_JIS (lang=jp) or UTF-8 (lang=en), and
 * a gateway in front of it may answer HTML; this module tells them apart before any parsing.
 */
import { isUtf8 } from "node:buffer";
import { stripControl } from "../../../core/text.ts";
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
 * The encoding of a CSV body, decided once for the whole body: a UTF-8 BOM or an explicit charset
 * wins; otherwise valid UTF-8 is UTF-8 and anything else is Shift_JIS. The manual says Shift_JIS
 * for lang=jp and UTF-8 for lang=en, and that is what this finds for BOJ's bodies; checking the
 * bytes instead of trusting `lang` keeps working if BOJ changes its encoding. (Real Shift_JIS
 * text is practically never valid UTF-8, while UTF-8 Japanese often passes as Shift_JIS.)
 * `skip` is the BOM length; the second decoder, if any, is the fallback.
 */
export function csvEncodings(body: RawBody, lang: "jp" | "en"): { skip: number; decoders: TextDecoder[] } {
  void lang;
  if (hasUtf8Bom(body.bytes)) return { skip: 3, decoders: [utf8] };
  const charset = charsetOf(body.contentType);
  if (charset === "utf-8" || charset === "utf8") return { skip: 0, decoders: [utf8, shiftJis] };
  if (charset !== undefined && /^(shift[_-]?jis|sjis|windows-31j|cp932|ms932|x-sjis)$/.test(charset))
    return { skip: 0, decoders: [shiftJis, utf8] };
  return { skip: 0, decoders: [isUtf8(body.bytes) ? utf8 : shiftJis] };
}

/** Decodes bytes with the first decoder that accepts them. */
export function decodeWith(decoders: readonly TextDecoder[], bytes: Uint8Array, what: string): string {
  for (const decoder of decoders) {
    try {
      return decoder.decode(bytes);
    } catch {
      // try the next encoding
    }
  }
  throw decodeError(`${what} is neither valid Shift_JIS nor valid UTF-8.`);
}

/** The whole CSV body as text. */
export function decodeCsvText(body: RawBody, lang: "jp" | "en"): string {
  const { skip, decoders } = csvEncodings(body, lang);
  return decodeWith(decoders, skip ? body.bytes.subarray(skip) : body.bytes, `The CSV body (lang=${lang})`);
}

/**
 * A short, readable excerpt of a non-JSON body (an HTML error page, say): escape sequences and
 * tags dropped, ≤ 500 characters.
 */
export function excerpt(bytes: Uint8Array, limit = 500): string {
  const text = stripControl(utf8Lenient.decode(bytes.subarray(0, 64 * 1024)))
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return "(empty body)";
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
