/**
 * Small, locale-free formatting helpers that reproduce the reference server's Rust output
 * (docs/contracts/oj.md §6): output truncation, `{:.1}` decimals and thousands separators.
 */

/** The Markdown text is cut at this many UTF-8 bytes (§6.4)... */
export const MAX_OUTPUT_BYTES = 102_400;
/** ...and this suffix is appended outside the cap. */
export const TRUNCATION_SUFFIX = "\n\n... (truncated)";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SUFFIX_BYTES = encoder.encode(TRUNCATION_SUFFIX).byteLength;

/**
 * Cuts at the last UTF-8 character boundary at or before byte 102,400, then adds the suffix.
 * Idempotent: a text that is already a cut (at most `maxBytes` bytes followed
 * by the suffix) is returned as it is, so cutting twice never stacks suffixes or loses bytes.
 */
export function truncateOutput(text: string, maxBytes = MAX_OUTPUT_BYTES): string {
  // Cheap exit: a UTF-16 code unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  if (bytes.byteLength <= maxBytes + SUFFIX_BYTES && text.endsWith(TRUNCATION_SUFFIX)) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that straddles the cap.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end)) + TRUNCATION_SUFFIX;
}

/** The byte length of `text` in UTF-8. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * `1234567` → `1,234,567`: ASCII commas every three digits from the right, whatever the locale.
 * Takes a bigint too, so counts above 2^53 keep every digit.
 */
export function formatNumber(value: number | bigint): string {
  const digits = typeof value === "bigint" ? value.toString() : Math.trunc(value).toString();
  const negative = digits.startsWith("-");
  const plain = negative ? digits.slice(1) : digits;
  let out = "";
  for (let i = 0; i < plain.length; i++) {
    if (i > 0 && (plain.length - i) % 3 === 0) out += ",";
    out += plain[i];
  }
  return negative ? `-${out}` : out;
}

/**
 * Rust's `format!("{:.N}", x)`: the exact binary value rounded to N decimals, ties to even
 * (`0.25` → `0.2`). JavaScript's `toFixed` rounds exact ties away from zero instead, so the tie
 * is settled here from the exact decimal expansion (`toFixed(100)` is exact for these magnitudes).
 */
export function formatFixed(value: number, decimals: number): string {
  if (!Number.isFinite(value)) return value > 0 ? "inf" : value < 0 ? "-inf" : "NaN";
  if (Math.abs(value) >= 1e21) return value.toFixed(decimals);
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf(".");
  const kept = exact.slice(0, point + 1 + decimals).replace(".", "");
  const rest = exact.slice(point + 1 + decimals);
  const roundUp = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || Number(kept.at(-1)) % 2 === 1));
  let digits = roundUp ? incrementDecimalString(kept) : kept;
  digits = digits.padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  return decimals === 0 ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

function incrementDecimalString(digits: string): string {
  const chars = digits.split("");
  for (let i = chars.length - 1; i >= 0; i--) {
    if (chars[i] === "9") chars[i] = "0";
    else {
      chars[i] = String(Number(chars[i]) + 1);
      return chars.join("");
    }
  }
  return `1${chars.join("")}`;
}

/**
 * A float as Rust's `Display` writes it in a query string: `0` not `0.0`, `0.5`, and never an
 * exponent (`1e-7` → `0.0000001`), so the upstream sees what the reference server would send.
 */
export function formatDecimal(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  const [mantissa, exponentText] = text.toLowerCase().split("e");
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const [intPart, fracPart = ""] = (negative ? mantissa.slice(1) : mantissa).split(".");
  const digits = intPart + fracPart;
  const pointAt = intPart.length + exponent;
  let out: string;
  if (pointAt <= 0) out = `0.${"0".repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) out = digits + "0".repeat(pointAt - digits.length);
  else out = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return negative ? `-${out}` : out;
}
