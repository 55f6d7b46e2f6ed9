/**
 * The fast path for constant results, shared by both eras' HTTP answers. A result its tool froze
 * (`constantResult` in core/tool.ts: the same object on every call, unchangeable) is turned into
 * UTF-8 JSON once and kept while the result lives; each answer only writes the envelope around
 * it. Serializing and encoding a 12 KB non-ASCII result is most of a call's server time
 * (`bun scripts/bench/frozen-results.ts` measures what this saves); test/core/frozen-json.test.ts
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

/** `{"jsonrpc":"2.0","id":ID,"result":RESULT}` around a result's ready bytes. */
export function responseBytes(id: string | number | null, result: Uint8Array): Uint8Array {
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  const body = new Uint8Array(head.length + result.length + 1);
  body.set(head);
  body.set(result, head.length);
  body[body.length - 1] = CLOSE;
  return body;
}
