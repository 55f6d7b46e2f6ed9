/**
 * Raw 2026-07-28 requests, as a modern client puts them on the wire: the `_meta` envelope in the
 * body and, over HTTP, the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers that mirror it.
 */
import { expect } from "bun:test";
import { resolve } from "node:path";
import { messagesOf } from "../http/support.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import type { RawServer } from "../support/raw-stdio.ts";

export const MODERN = "2026-07-28";
export const PROBE = resolve(REPO_ROOT, "test/modern/fixtures/probe.ts");

export type Json = Record<string, any>;

/** The per-request envelope; `extra` adds or replaces keys (undefined removes one). */
export function meta(extra: Json = {}): Json {
  const envelope: Json = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "mcpkit-modern-tests", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
  for (const key of Object.keys(envelope)) if (envelope[key] === undefined) delete envelope[key];
  return envelope;
}

/** The standard headers of a modern POST for this body (the name header for the three methods that need one). */
export function headersFor(body: Json): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": body.params?._meta?.["io.modelcontextprotocol/protocolVersion"] ?? MODERN,
    "mcp-method": body.method,
  };
  const name = body.method === "resources/read" ? body.params?.uri : body.params?.name;
  if (["tools/call", "prompts/get", "resources/read"].includes(body.method) && typeof name === "string") {
    headers["mcp-name"] = name;
  }
  return headers;
}

let nextId = 1;

export function request(method: string, params: Json = {}, id: number | string = nextId++): Json {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: params._meta ?? meta() } };
}

export interface Answer {
  status: number;
  contentType: string | null;
  headers: Headers;
  /** Every JSON-RPC message of the body (one for JSON, the events of a stream). */
  messages: Json[];
  /** The response among them (the message with the request's id). */
  response: Json;
}

/** POSTs one modern request; `headers` override the standard ones (a null value removes one). */
export async function post(url: string, body: Json, headers: Record<string, string | null> = {}): Promise<Answer> {
  const merged: Record<string, string> = headersFor(body);
  for (const [key, value] of Object.entries(headers)) {
    if (value === null) delete merged[key.toLowerCase()];
    else merged[key.toLowerCase()] = value;
  }
  const reply = await fetch(url, { method: "POST", headers: merged, body: JSON.stringify(body) });
  const text = await reply.text();
  const contentType = reply.headers.get("content-type");
  const messages = messagesOf(text, contentType);
  const response = messages.find((message) => "id" in message && message.id === body.id) ?? messages.at(-1) ?? {};
  return { status: reply.status, contentType, headers: reply.headers, messages, response };
}

/**
 * POSTs one modern request whose answer stays open (a `subscriptions/listen` stream, a call that
 * waits): the response as soon as its head arrives, and the controller that leaves it.
 */
export async function openStream(url: string, body: Json): Promise<{ response: Response; aborter: AbortController }> {
  const aborter = new AbortController();
  const response = await fetch(url, {
    method: "POST",
    headers: headersFor(body),
    body: JSON.stringify(body),
    signal: aborter.signal,
  });
  return { response, aborter };
}

/**
 * Reads `reader` onto `text` until `done` holds of what was read; throws if the stream ends first.
 * A bare `while (!done) text += …(await reader.read()).value` spins on an ended stream without
 * yielding to a timer, so its test could never time out.
 */
export async function readUntil(
  reader: Pick<ReadableStreamDefaultReader<Uint8Array>, "read">,
  done: (text: string) => boolean,
  text = "",
): Promise<string> {
  const decoder = new TextDecoder();
  while (!done(text)) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the stream ended before what was awaited; it held: ${text.slice(0, 500)}`);
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text;
}

/** Sends a modern request on a raw stdio connection and waits for its response. */
export async function stdioCall(raw: RawServer, method: string, params: Json = {}): Promise<Json> {
  const body = request(method, params);
  raw.send(body);
  return raw.response(body.id);
}

/** The stdout lines of a raw stdio server, parsed. */
export function stdioMessages(raw: RawServer): Json[] {
  return raw.lines().map((line) => JSON.parse(line) as Json);
}

/** Resolves once `condition` holds (checked every few ms: a line on stderr, a file), or fails after `ms`. */
export async function until(condition: () => boolean, what = "the condition", ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

/**
 * A roots/list answer mixing roots that name a local directory (1 and 6) with each kind that
 * names none, for both eras' tests: they must treat it alike.
 */
export const MIXED_ROOTS: Json[] = [
  { uri: "file://evil/x" },
  { uri: "file:///srv/data", name: "data" },
  { uri: "file:///a%2Fb" },
  { uri: "https://example.invalid/" },
  { uri: "file:///%FF" },
  { name: "no uri" },
  { uri: "file:///srv/other" },
];

/** The roots of MIXED_ROOTS that are skipped, by index, with a word of the reason the log gives. */
export const MIXED_IGNORED: [number, string][] = [
  [0, "host"],
  [2, "encoded /"],
  [3, "not a file:// URI"],
  [4, "does not decode to an absolute path"],
  [5, '"uri" is not a string'],
];

/**
 * The "ignoring a client root" warnings in a server's stderr as [root, reason] pairs, each
 * checked to carry the fix; the reasons are matched on a word (`MIXED_IGNORED`), since the
 * runtime words some of them.
 */
export function ignoredRoots(stderr: string): [string, unknown][] {
  const lines = stderr.split("\n").filter((line) => line.includes("ignoring a client root"));
  return lines.map((line) => {
    const field = (name: string) => {
      const found = line.match(new RegExp(` ${name}=("(?:[^"\\\\]|\\\\.)*")`));
      return found ? JSON.parse(found[1]) : undefined;
    };
    if (!String(field("fix")).includes("file:///absolute/path")) throw new Error(`no fix in: ${line}`);
    return [field("root"), field("reason")];
  });
}

/** MIXED_IGNORED as `ignoredRoots` should find it, the roots named under `field`. */
export function expectedIgnored(field: string): [string, unknown][] {
  return MIXED_IGNORED.map(([index, word]) => [`${field}[${index}]`, expect.stringContaining(word)]);
}
