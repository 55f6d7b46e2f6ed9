/**
 * The `requestState` of an `input_required` answer (MCP 2026-07-28 MRTR): the client echoes it
 * on the retry, and the spec says to treat it as attacker-controlled. mcpkit's state carries no
 * secret and no data the retry needs (the answers come in `inputResponses`); it binds the answers
 * to the call that asked for them, so a retry is accepted only when
 *   - its HMAC-SHA256 verifies (the key is random per process),
 *   - it has not expired (10 minutes),
 *   - it is the same method with the same salient params (tool name and arguments, digested), and
 *   - it comes from the same principal (the token's owner over HTTP; nobody on stdio).
 *
 * A per-process key is enough because mcpkit asks for input only on stdio (the client's roots;
 * over HTTP roots are server-configured), where the retry reaches the process that asked. Over
 * HTTP no state is ever issued, so any instance can answer any request; a state presented there
 * fails verification like any forged one.
 *
 * Bun's hashes and random bytes, not node:crypto's: loading that module cost a stdio start-up
 * ~2 ms of CPU (issue 39).
 */

const TTL_MS = 10 * 60_000;
const FORMAT = 1;

interface Payload {
  v: number;
  /** The method and a digest of its salient params. */
  m: string;
  d: string;
  /** The keys of the input requests this state answers. */
  k: string[];
  /** Who asked (absent without authorization). */
  p?: string;
  /** Expiry, epoch milliseconds. */
  e: number;
}

export interface StateBinding {
  method: string;
  params: Record<string, unknown>;
  principal: string | undefined;
}

export interface RequestStateCodec {
  issue(binding: StateBinding, inputKeys: string[]): string;
  /** The input request keys the state was issued for, or a sentence saying why it is refused. */
  verify(state: string, binding: StateBinding): string[] | string;
}

export function createRequestStateCodec(
  key: Uint8Array = crypto.getRandomValues(new Uint8Array(32)),
  now: () => number = Date.now,
): RequestStateCodec {
  const sign = (text: string) => new Bun.CryptoHasher("sha256", key).update(text).digest();
  return {
    issue(binding, inputKeys) {
      const payload: Payload = {
        v: FORMAT,
        m: binding.method,
        d: digest(binding.params),
        k: inputKeys,
        e: now() + TTL_MS,
      };
      if (binding.principal !== undefined) payload.p = binding.principal;
      const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
      return `${body}.${sign(body).toString("base64url")}`;
    },
    verify(state, binding) {
      const [body, mac, extra] = state.split(".");
      if (!body || !mac || extra !== undefined) return "it is not a state this server issued";
      const expected = sign(body);
      const given = Buffer.from(mac, "base64url");
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
        return "its signature does not verify (it was changed, or another server issued it)";
      }
      const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
      if (payload.v !== FORMAT) return "it is not a state this server issued";
      if (payload.e <= now()) return "it has expired";
      if (payload.m !== binding.method || payload.d !== digest(binding.params)) {
        return "it was issued for another request (a different method, tool or arguments)";
      }
      if (payload.p !== binding.principal) return "it was issued to another caller";
      return payload.k;
    },
  };
}

/** The params that identify a request, without what changes between its attempts. */
function digest(params: Record<string, unknown>): string {
  const { _meta, inputResponses, requestState, ...salient } = params;
  return new Bun.CryptoHasher("sha256").update(canonical(salient)).digest("base64url");
}

/** JSON with object keys sorted, so two clients' serializations of the same value digest alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
