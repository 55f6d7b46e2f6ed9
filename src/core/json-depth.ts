/**
 * How deep a JSON text nests, and how many values it holds, found without parsing it:
 * `JSON.parse` of a line of a million `[` costs hundreds of megabytes (a 14 MB line peaked at
 * 589 MB), and so do millions of small values, so a text that nests deeper or holds more than its
 * reader needs (a stdio line, an upstream's answer) is refused before it is parsed. Brackets and
 * commas inside strings do not count; the text need not be valid JSON (the parser still judges that).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/** Whether the arrays and objects of `bytes` (UTF-8 JSON) nest more than `maxDepth` levels anywhere. */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  return jsonShapeOver(bytes, maxDepth, Number.POSITIVE_INFINITY) === "depth";
}

/**
 * The first limit `bytes` (UTF-8 JSON) passes, if any: arrays and objects nested more than
 * `maxDepth` levels, or more than `maxValues` values. Values are counted as each array and object
 * plus each comma between items or members, which is one short per non-empty array or object.
 */
export function jsonShapeOver(bytes: Uint8Array, maxDepth: number, maxValues: number): "depth" | "values" | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === COMMA) {
      if (++values > maxValues) return "values";
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return "depth";
      if (++values > maxValues) return "values";
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}
