/**
 * The fast path for constant results, shared by both eras' HTTP answers. A result its tool froze
 * (`constantResult` in core/tool.ts: the same object on every call, unchangeable) is turned into
 * UTF-8 JSON once and kept while the result lives; each answer only writes the envelope around
 * it. Serializing and encoding a 12 KB non-ASCII result is most of a call's server time
 * (`bun scripts/bench/frozen-results.ts` measures what this saves); test/protocol/frozen-json.test.ts
 * fails if the path stops being taken.
 */
const encoder = new TextEncoder();
const frozenJson = new WeakMap<object, string>();
const frozenBytes = new WeakMap<object, Uint8Array>();
const CLOSE = 0x7d; // "}"

const isFrozenObject = (result: unknown): result is object =>
  result !== null && typeof result === "object" && Object.isFrozen(result);

/** The result's JSON when it is frozen (computed once), otherwise undefined: for a line of stdio. */
export function frozenResultJson(result: unknown): string | undefined {
  if (!isFrozenObject(result)) return undefined;
  let json = frozenJson.get(result);
  if (json === undefined) {
    json = JSON.stringify(result);
    frozenJson.set(result, json);
  }
  return json;
}

/** The result's JSON as UTF-8 when it is frozen (computed once), otherwise undefined: for an HTTP body. */
export function frozenResultBytes(result: unknown): Uint8Array | undefined {
  if (!isFrozenObject(result)) return undefined;
  let bytes = frozenBytes.get(result);
  if (!bytes) {
    bytes = encoder.encode(frozenResultJson(result));
    frozenBytes.set(result, bytes);
  }
  return bytes;
}

/**
 * Room before a result's bytes for the envelope's head, `{"jsonrpc":"2.0","id":ID,"result":`;
 * an id too long for it gets a fresh array instead.
 */
const HEAD_ROOM = 96;
/** Per frozen result's bytes: one buffer, [room for the head][the result]["}"], reused by every answer. */
const framed = new WeakMap<Uint8Array, Uint8Array>();

/**
 * `{"jsonrpc":"2.0","id":ID,"result":RESULT}` around a result's ready bytes, as a view into one
 * buffer kept per result: only the head is written per answer, not the whole result (a 15 KB
 * copy and allocation per call). The view is valid until the next call for the same result, so
 * it must be copied at once: `new Response(view)` does (test/protocol/frozen-json.test.ts checks that
 * Bun still copies, and that the view is reused).
 */
export function responseBytes(id: string | number | null, result: Uint8Array): Uint8Array {
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  if (head.length > HEAD_ROOM) return freshResponseBytes(head, result);
  let buffer = framed.get(result);
  if (!buffer) {
    buffer = new Uint8Array(HEAD_ROOM + result.length + 1);
    buffer.set(result, HEAD_ROOM);
    buffer[buffer.length - 1] = CLOSE;
    framed.set(result, buffer);
  }
  buffer.set(head, HEAD_ROOM - head.length);
  return buffer.subarray(HEAD_ROOM - head.length);
}

function freshResponseBytes(head: Uint8Array, result: Uint8Array): Uint8Array {
  const body = new Uint8Array(head.length + result.length + 1);
  body.set(head);
  body.set(result, head.length);
  body[body.length - 1] = CLOSE;
  return body;
}
