/**
 * The contract between toolsets and the servers that expose them.
 *
 * A toolset is plain code: a list of tool definitions whose handlers build MCP results directly
 * (no adapter layer). Nothing here imports the MCP SDK; `src/mcp/protocol/` serves these shapes in both eras, and
 * `mcpkit call` runs the same definitions without any protocol at all.
 */
import * as v from "valibot";
import type { Logger } from "./log.ts";

// ---------------------------------------------------------------------------------------------
// Results (the MCP 2025-11-25 shapes, restated so toolsets stay SDK-free)

// Type aliases rather than interfaces: they stay assignable to the SDK's index-signature types.
export type TextContent = {
  type: "text";
  text: string;
};
export type ResourceLinkContent = {
  type: "resource_link";
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
};
export type Content = TextContent | ResourceLinkContent;

export type ToolResult = {
  content: Content[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** JSON-RPC error codes used across mcpkit (docs/contracts/http.md). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * JSON-RPC's first implementation-defined server error: a refusal that is not about the request
   * itself (the body of an HTTP 4xx/5xx from the transport, a call admission control turned away),
   * or a connection closed before the answer (the SDK's ConnectionClosed).
   */
  ServerError: -32000,
  /**
   * The caller may not (no valid token, a scope missing); the SDK answers a session that is gone
   * and a request the other side did not answer in time (its RequestTimeout) with it too.
   */
  Unauthorized: -32001,
  ResourceNotFound: -32002,
  /** A request the server withdrew itself (LSP's RequestCancelled): it rejects the server's own wait, never sent. */
  RequestCancelled: -32800,
} as const;

/**
 * Thrown by a handler when the toolset's contract demands a JSON-RPC error instead of an
 * `isError` result (for example `boj` validation errors, or `oj` network failures).
 * `message` is shown to the client, so it must never contain a secret.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** A request the server asks its client to answer before it can finish a call (MCP 2026-07-28 MRTR). */
export type InputRequest = { method: string; params?: Record<string, unknown> };

/**
 * Thrown from a `ToolContext` method (never by a tool itself) when the call cannot go on without
 * an answer from the client, in eras where the server may not send the client requests of its own
 * (MCP 2026-07-28): the edge answers `input_required` with these requests, and the client retries
 * the call with the answers. Tools let it pass, as they let a ProtocolError pass.
 */
export class InputRequired extends Error {
  constructor(readonly inputRequests: Record<string, InputRequest>) {
    super(`the call needs input from the client first: ${Object.keys(inputRequests).join(", ")}`);
    this.name = "InputRequired";
  }
}

// ---------------------------------------------------------------------------------------------
// What a handler sees

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** MCP logging levels (RFC 5424 order, least severe first). */
export const CLIENT_LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;
export type ClientLogLevel = (typeof CLIENT_LOG_LEVELS)[number];

/**
 * Whether a notification at `level` tells the call's own failure (ToolContext.notify): `mcpkit call`,
 * which prints that failure itself, leaves these out so a person reads it once.
 */
export const isCallFailureLevel = (level: ClientLogLevel): boolean =>
  level === "notice" || CLIENT_LOG_LEVELS.indexOf(level) >= CLIENT_LOG_LEVELS.indexOf("error");

/** Whether a client sent one of the levels above (logging/setLevel, or the 2026-07-28 envelope). */
export const isClientLogLevel = (value: unknown): value is ClientLogLevel =>
  (CLIENT_LOG_LEVELS as readonly unknown[]).includes(value);

export interface ToolContext {
  /** Fires when the client cancels the request (`notifications/cancelled`) or the session ends. */
  signal: AbortSignal;
  /** The name the caller used: the listed name or the tool's `seedName`. Messages should use it. */
  calledAs: string;
  /**
   * Bytes of text content one result may carry (--max-output-bytes, about 25k tokens by default).
   * A handler that could exceed it cuts its text at a clean boundary and says how to get the rest;
   * `invokeTool` cuts whatever still exceeds it as a last resort.
   */
  outputBudget: number;
  /**
   * Tells the user's client something worth seeing (a retry, a skipped directory, partial results):
   * `notifications/message` when the client's `logging/setLevel` admits the level, and the stderr
   * log too. `logger` names the toolset. Never pass a secret; text from upstreams must be stripped
   * of control characters first. The call's own failure, which the caller also gets as its error,
   * is told at `notice` (the caller's to fix) or `error` and above (`isCallFailureLevel`); `debug`,
   * `info` and `warning` tell what happened on the way (a retry, a wait, a skipped directory).
   */
  notify(level: ClientLogLevel, logger: string, message: string, data?: Record<string, unknown>): void;
  /** Sends `notifications/progress` when the request carried a progressToken; otherwise a no-op. */
  reportProgress(progress: Progress): void;
  /**
   * The client's roots as absolute local paths (file:// URIs only), or `undefined` when the client
   * does not offer roots (or there is no client, as in `mcpkit call`). Cached per session and
   * refreshed on `notifications/roots/list_changed` (2025 era); asked for with `input_required`
   * and read from the client's retry (2026-07-28 era), in which case it throws `InputRequired`
   * on the first attempt, so call it before doing anything that must not run twice.
   */
  clientRoots(): Promise<string[] | undefined>;
  log: Logger;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export type AnySchema = v.GenericSchema<any, any, any>;

export interface ToolDefinition<Input extends AnySchema = AnySchema> {
  /** The listed name; must match PORTABLE_TOOL_NAME (Claude Desktop refuses a whole server otherwise). */
  name: string;
  /**
   * The name the toolset's contract gives, when it is not portable (e.g. `fs.search_by_time`).
   * Always accepted on call; listed instead of `name` with `--tool-names seed`.
   */
  seedName?: string;
  title: string;
  /** What the tool does, written for a language model: when to use it, what comes back. */
  description: string;
  /** Arguments schema. Its input type is what `tools/list` shows; its output type is what the handler gets. */
  input: Input;
  /** Shape of `structuredContent`; `tools/list` shows it as `outputSchema`. */
  output?: AnySchema;
  /**
   * For a tool whose results are cut from embedded data (a catalogue): an upper bound of the UTF-8
   * size of every result's `structuredContent` as JSON. Within the output budget, a result is not
   * measured for it (core/output-budget.ts `fitResult`): bounding 5 KB of JSON was a sixth of
   * what the HTTP stack added to such a call. Read at each call, so a getter can compute it at the first.
   */
  structuredBytesAtMost?: number;
  annotations: ToolAnnotations;
  /** The OAuth scope a caller needs over HTTP, e.g. `fs:read`. */
  scope: string;
  /**
   * An MCP Apps view (`ui://…` resource) that hosts rendering apps show beside this tool's result.
   * Listed (as `_meta.ui.resourceUri`) only to clients that declare the UI extension.
   */
  ui?: { resourceUri: string };
  /**
   * How `mcpkit call TOOL --chart` draws a successful result in a terminal: `columns` wide, plain
   * lines when stdout is not a terminal (`tty` false). Only the command line runs it; the tool
   * loads its drawing code then.
   */
  terminalChart?: (structured: Record<string, unknown>, screen: TerminalScreen) => Promise<string>;
  handler(args: v.InferOutput<Input>, context: ToolContext): Promise<ToolResult>;
}

/** The terminal a chart is drawn for. */
export interface TerminalScreen {
  columns: number;
  tty: boolean;
}

/** The MCP Apps extension: the capability key a client declares and the view's mime type. */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
export const UI_MIME_TYPE = "text/html;profile=mcp-app";

/** Tool names every mainstream client accepts (Claude Desktop, Codex CLI, Copilot CLI). */
export const PORTABLE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool's handler as a toolset's middleware sees it: arguments already validated. */
export type ToolHandler = ToolDefinition["handler"];

/**
 * One step around every handler of a toolset (error mapping, sanitizing output), as
 * github-mcp-server's tool middleware: it receives the next handler and returns the one to call.
 */
export type ToolMiddleware = (next: ToolHandler, tool: ToolDefinition) => ToolHandler;

/** The tools with each handler wrapped by the middleware, the first step outermost. */
export function withMiddleware(
  tools: readonly ToolDefinition[],
  middleware: readonly ToolMiddleware[],
): ToolDefinition[] {
  return tools.map((tool) => ({
    ...tool,
    handler: middleware.reduceRight<ToolHandler>((next, step) => step(next, tool), tool.handler),
  }));
}

/** Identity function that keeps the handler's argument type tied to its schema. */
export function defineTool<Input extends AnySchema>(tool: ToolDefinition<Input>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

// ---------------------------------------------------------------------------------------------
// Resources, prompts and completions (only toolsets that offer them declare these)

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Record<string, unknown>;
}

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** An MCP Apps view: listed and readable only by clients that declare the UI extension. */
  ui?: true;
  read(): Promise<ResourceContents[]> | ResourceContents[];
}

export interface ResourceTemplateDefinition {
  /** RFC 6570 level-1 template, e.g. `boj://catalog/parameters/{endpoint}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Concrete resources to list in `resources/list` (may be empty). */
  list?(): ResourceDefinition[];
  /** Returns the contents for a URI matching the template, or `undefined` when no such resource exists (→ -32002). */
  read(
    variables: Record<string, string>,
    uri: string,
  ): Promise<ResourceContents[] | undefined> | ResourceContents[] | undefined;
  /** Completion values per template variable. */
  complete?: Record<string, (value: string) => string[]>;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: TextContent;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments: PromptArgument[];
  /** Throw `ProtocolError(InvalidParams, …)` for a missing or bad argument. */
  get(args: Record<string, string>): { description?: string; messages: PromptMessage[] };
  /** Completion values per argument name. */
  complete?: Record<string, (value: string) => string[]>;
}

// ---------------------------------------------------------------------------------------------
// Toolsets

export interface Toolset {
  name: string;
  tools: ToolDefinition[];
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
  prompts?: PromptDefinition[];
  /**
   * How this toolset answers arguments that break a tool's input schema. Default: an `isError`
   * result carrying `message` (MCP 2025-11-25; docs/contracts/oj.md and fs-search-by-time.md). `boj` throws a ProtocolError
   * instead (docs/contracts/boj.md).
   */
  rejectArguments?(message: string, tool: ToolDefinition, field?: string): ToolResult;
  /**
   * How an error of this toolset's own leaves a tool call (docs/contracts/boj.md "Errors": each
   * BojError is the JSON-RPC error it prescribes): the ProtocolError to throw instead, or
   * undefined for an unexpected failure. A hook in `invokeTool`'s catch rather than middleware
   * wrapped around every handler: that async wrapper cost every call a promise and an await
   * (0.1–0.2 µs of a cheap call's dispatch, `bun scripts/bench/dispatch.ts`).
   */
  mapError?(error: unknown, calledAs: string): ProtocolError | undefined;
  /** One line for the start-up log when the toolset runs in a reduced way (e.g. fs without --root). */
  warning?: string;
  /** Releases timers, sockets and the like when the process shuts down. */
  close?(): void | Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Small builders that every handler uses

export function textResult(text: string, structuredContent?: Record<string, unknown>): ToolResult {
  return structuredContent === undefined
    ? { content: [{ type: "text", text }] }
    : { content: [{ type: "text", text }], structuredContent };
}

/**
 * A result that is the same for every call (a static catalog), built once and frozen through and
 * through so calls can share it: nothing can change it, so a transport may serialize it once
 * (the HTTP session transport does; see docs/contracts/http.md).
 */
export function constantResult(result: ToolResult): ToolResult {
  return deepFreeze(result);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Marks a result whose error is the caller's arguments. A symbol: it never reaches the wire. */
const BLAMES_ARGUMENTS = Symbol("mcpkit.blamesArguments");

/**
 * An `isError` result that blames the arguments: they break the schema, or are wrong in meaning
 * (a backwards range, a root that is not allowed, a cursor from another query). The caller must
 * change the call; retrying it cannot help, so `mcpkit call` exits 2 (usage) for it, not 1.
 */
export function argumentErrorResult(text: string): ToolResult {
  return Object.assign(errorResult(text), { [BLAMES_ARGUMENTS]: true });
}

export function blamesArguments(result: ToolResult): boolean {
  return (result as { [BLAMES_ARGUMENTS]?: boolean })[BLAMES_ARGUMENTS] === true;
}

/** Marks a result whose error is configuration mcpkit was started without. A symbol, as above. */
const BLAMES_CONFIGURATION = Symbol("mcpkit.blamesConfiguration");

/**
 * An `isError` result for a tool that cannot run without configuration mcpkit lacks (a token, a
 * root). Only mcpkit started again with it helps, so the text names the flag and its variable,
 * and `mcpkit call` exits 2 (usage: the command must change), not 1 ("may work later").
 */
export function configurationErrorResult(text: string): ToolResult {
  return Object.assign(errorResult(text), { [BLAMES_CONFIGURATION]: true });
}

export function blamesConfiguration(result: ToolResult): boolean {
  return (result as { [BLAMES_CONFIGURATION]?: boolean })[BLAMES_CONFIGURATION] === true;
}

/** The tool `name` stands for among `toolsets`: its listed name or its `seedName`. */
export function toolNamed(
  toolsets: readonly Toolset[],
  name: string,
): { toolset: Toolset; tool: ToolDefinition } | undefined {
  for (const toolset of toolsets) {
    const tool = toolset.tools.find((candidate) => candidate.name === name || candidate.seedName === name);
    if (tool) return { toolset, tool };
  }
  return undefined;
}

/**
 * The arguments without the top-level `null`s that stand for "not given": models and some clients
 * send `"root": null` for an optional argument they leave out, which the schema's
 * `Expected string but received null` would refuse (issue 35). Only a key whose schema entry may be
 * absent and does not itself take `null` is dropped, so a required argument given as `null` is still
 * refused naming it, and the JSON Schema that `tools/list` shows is unchanged. Returns `args` itself
 * when there is nothing to drop (the usual call pays for one pass over its keys).
 */
export function withoutNullForAbsent(input: AnySchema, args: object): object {
  let kept: Record<string, unknown> | undefined;
  // for…in, not Object.entries: no array per call on the path every tool call takes.
  for (const key in args) {
    if ((args as Record<string, unknown>)[key] !== null) continue;
    const entry = entriesOf(input)?.[key];
    if (entry === undefined || !v.is(entry, undefined) || v.is(entry, null)) continue;
    kept ??= { ...args };
    delete kept[key];
  }
  return kept ?? args;
}

/** An object schema's entries, also through a pipe (`v.pipe(v.strictObject(…), v.check(…))`). */
function entriesOf(schema: AnySchema): Record<string, AnySchema> | undefined {
  const object = schema as {
    entries?: Record<string, AnySchema>;
    pipe?: readonly { entries?: Record<string, AnySchema> }[];
  };
  return object.entries ?? object.pipe?.[0]?.entries;
}
