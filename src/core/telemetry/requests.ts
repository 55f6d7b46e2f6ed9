/**
 * The SERVER span of one MCP request and the record of one session, by the MCP semantic
 * conventions (docs/gen-ai/mcp.md in open-telemetry/semantic-conventions-genai):
 *
 *   name        `{mcp.method.name} {target}`: the tool's or prompt's name as target, else the method
 *               alone; `_OTHER` for a method mcpkit does not know, no target for a name it refused
 *   attributes  mcp.method.name, mcp.protocol.version, jsonrpc.request.id, mcp.session.id (2025
 *               era over HTTP; a hash of the id, see `sessionTag`), network.transport (pipe on stdio, tcp over HTTP), gen_ai.tool.name
 *               and gen_ai.operation.name=execute_tool on tools/call, gen_ai.prompt.name on
 *               prompts/get, mcp.resource.uri on resources/read; on failure error.type (the
 *               JSON-RPC code, or `tool_error` for a result with isError) and rpc.response.status_code
 *   parent      the caller's `params._meta.traceparent`/`tracestate` (SEP-414), else the HTTP
 *               request's `traceparent` header (linked when both are present)
 *
 * What a client names (a method, a tool) goes on the span as sent, cut to a bounded length; the
 * metrics take it only when the server knows it, so a client cannot grow them without bound.
 */
import {
  type Attributes,
  type Context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
  context,
  createContextKey,
  trace,
} from "@opentelemetry/api";
import { sessionTag } from "../session-tag.ts";
import { shownValue } from "../text.ts";
import { ErrorCode } from "../tool.ts";
import type { AnsweredReply, RequestId, RequestSpan, SessionRecord } from "./index.ts";
import type { Instruments } from "./instruments.ts";

export interface Recorder {
  tracer: Tracer;
  instruments: Instruments;
  propagator: TextMapPropagator;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: tool arguments and results go on the span. */
  captureContent: boolean;
}

/** What the HTTP edge knows of the request it is answering. */
interface HttpScope {
  /** The 2025 session's `sessionTag`, never its id. */
  session: string | undefined;
  protocolVersion: string | undefined;
  /** The span context the `traceparent` header carried, when it did. */
  remote: Context | undefined;
}

const HTTP_SCOPE = createContextKey("mcpkit http request");

/** The methods of either era; anything else is `_OTHER` in metrics (semconv's value for an unknown method). */
const KNOWN_METHODS = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);
/** Longest client-given name or URI put on a span. */
const MAX_NAME = 128;
const MAX_URI = 2048;
/** Captured arguments and results (opt-in) are cut here. */
const MAX_CONTENT = 8192;
/** JSON-RPC code of an admission-control refusal (src/mcp/protocol/admission.ts CALL_REFUSED). */
const CALL_REFUSED = ErrorCode.ServerError;

const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

const metaGetter: TextMapGetter<Record<string, unknown>> = {
  get: (meta, key) => {
    const value = meta[key];
    return typeof value === "string" ? value : undefined;
  },
  keys: (meta) => Object.keys(meta),
};

const tagOf = (sessionId: string | null): string | undefined => (sessionId ? sessionTag(sessionId) : undefined);

/** The context an HTTP request is served in: its `traceparent` and what identifies its session. */
export function httpScope(recorder: Recorder, request: Request): Context {
  const headers = request.headers;
  const active = context.active();
  const remote = headers.has("traceparent") ? recorder.propagator.extract(active, headers, headerGetter) : undefined;
  const scope: HttpScope = {
    session: tagOf(headers.get("mcp-session-id")),
    protocolVersion: bounded(headers.get("mcp-protocol-version"), MAX_NAME),
    remote,
  };
  return (remote ?? active).setValue(HTTP_SCOPE, scope);
}

function bounded(value: unknown, max: number): string | undefined {
  return typeof value === "string" && value.length > 0 ? value.slice(0, max) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Arguments and results as a span keeps them: JSON cut at MAX_CONTENT, however large or deep (a client chooses the arguments). */
function captured(value: unknown): string {
  return value === undefined ? "null" : shownValue(value, MAX_CONTENT);
}

/** A failed span: `error.type` on it and on the attributes its duration is recorded with, and status ERROR. */
export function recordFailure(span: Span, metric: Attributes, type: string): void {
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR });
  metric["error.type"] = type;
}

export class McpRequestSpan implements RequestSpan {
  private readonly span: Span;
  private readonly context: Context;
  private readonly started = performance.now();
  /** The low-cardinality attributes `mcp.server.operation.duration` is recorded with. */
  private readonly metric: Attributes;
  /** The tool or prompt named, as the metric attribute it becomes once answered. */
  private target: [string, string] | undefined;
  /** The method as the span shows it; an unknown one is `_OTHER` in the span's name. */
  private readonly shownMethod: string;

  constructor(
    private readonly recorder: Recorder,
    private readonly method: string,
    params: unknown,
    id: RequestId,
    protocolVersion: string | undefined,
  ) {
    const active = context.active();
    const http = active.getValue(HTTP_SCOPE) as HttpScope | undefined;
    const args = isRecord(params) ? params : {};
    const transport = http ? "tcp" : "pipe";
    const version = protocolVersion ?? http?.protocolVersion;
    const known = KNOWN_METHODS.has(method);
    this.shownMethod = known ? method : "_OTHER";
    const attributes: Attributes = {
      "mcp.method.name": method.slice(0, MAX_NAME),
      "jsonrpc.request.id": String(id).slice(0, MAX_NAME),
      "network.transport": transport,
    };
    this.metric = { "mcp.method.name": known ? method : "_OTHER", "network.transport": transport };
    if (http) attributes["network.protocol.name"] = this.metric["network.protocol.name"] = "http";
    if (version) attributes["mcp.protocol.version"] = this.metric["mcp.protocol.version"] = version;
    if (http?.session) attributes["mcp.session.id"] = http.session;
    let target: string | undefined;
    if (method === "tools/call") {
      target = bounded(args.name, MAX_NAME);
      attributes["gen_ai.operation.name"] = this.metric["gen_ai.operation.name"] = "execute_tool";
      if (target) {
        attributes["gen_ai.tool.name"] = target;
        this.target = ["gen_ai.tool.name", target];
      }
      if (recorder.captureContent) attributes["gen_ai.tool.call.arguments"] = captured(args.arguments ?? {});
    } else if (method === "prompts/get") {
      target = bounded(args.name, MAX_NAME);
      if (target) {
        attributes["gen_ai.prompt.name"] = target;
        this.target = ["gen_ai.prompt.name", target];
      }
    } else if (method === "resources/read") {
      const uri = bounded(args.uri, MAX_URI);
      if (uri) attributes["mcp.resource.uri"] = uri;
    }
    const { parent, links } = parentOf(recorder, active, http, args._meta);
    this.span = recorder.tracer.startSpan(
      target ? `${this.shownMethod} ${target}` : this.shownMethod,
      { kind: SpanKind.SERVER, attributes, links },
      parent,
    );
    this.context = trace.setSpan(parent, this.span);
  }

  run<T>(work: () => T): T {
    return context.with(this.context, work);
  }

  end(reply: AnsweredReply): void {
    const { span, metric, recorder } = this;
    if (!reply.ok) {
      const code = String(reply.error.code);
      span.setAttribute("rpc.response.status_code", code);
      recordFailure(span, metric, code);
      const refusal = refusedBy(reply.error);
      if (refusal) recorder.instruments.callsRefused.add(1, { "mcpkit.limit": refusal });
    } else {
      if (reply.result.isError === true) recordFailure(span, metric, "tool_error");
      if (this.method === "initialize" && typeof reply.result.protocolVersion === "string") {
        span.setAttribute("mcp.protocol.version", reply.result.protocolVersion);
        metric["mcp.protocol.version"] = reply.result.protocolVersion;
      }
      if (recorder.captureContent && this.method === "tools/call") {
        span.setAttribute("gen_ai.tool.call.result", captured(reply.result));
      }
    }
    // A name the server refused as unknown stays out of the span's name and the metric: a client
    // sending made-up names cannot grow either without bound (the attribute keeps what it sent).
    if (this.target) {
      if (knownTarget(reply)) this.metric[this.target[0]] = this.target[1];
      else span.updateName(this.shownMethod);
    }
    span.end();
    recorder.instruments.operationDuration.record((performance.now() - this.started) / 1000, metric);
  }
}

/**
 * Whether the tool or prompt a request named exists: an unknown name is refused with a bare
 * invalid-params error, while a known tool's own refusals (BOJ's validation errors) carry `data`.
 */
function knownTarget(reply: AnsweredReply): boolean {
  return reply.ok || reply.error.code !== ErrorCode.InvalidParams || reply.error.data !== undefined;
}

/** Which limit refused a call (admission control's refusal carries it in `data.limit`). */
function refusedBy(error: { code: number; data?: unknown }): string | undefined {
  if (error.code !== CALL_REFUSED || !isRecord(error.data)) return undefined;
  const limit = error.data.limit;
  return limit === "server" || limit === "subject" ? limit : undefined;
}

/**
 * The parent of a request's span: the trace context in `params._meta` (the caller's own span,
 * 2026-07-28 SEP-414, honoured in either era), else the HTTP request's `traceparent`; when both
 * are there the HTTP one becomes a link.
 */
function parentOf(
  recorder: Recorder,
  active: Context,
  http: HttpScope | undefined,
  meta: unknown,
): { parent: Context; links: Link[] | undefined } {
  if (!isRecord(meta) || typeof meta.traceparent !== "string") return { parent: active, links: undefined };
  const parent = recorder.propagator.extract(active, meta, metaGetter);
  const fromMeta = trace.getSpanContext(parent);
  const fromHttp = http?.remote ? trace.getSpanContext(http.remote) : undefined;
  const links = fromHttp && fromHttp.spanId !== fromMeta?.spanId ? [{ context: fromHttp }] : undefined;
  return { parent, links };
}

/** One 2025-era session: open now, and its duration when it ends. */
export class McpSession implements SessionRecord {
  private readonly started = performance.now();
  private readonly attributes: Attributes;
  private closed = false;

  constructor(private readonly recorder: Recorder) {
    const http = context.active().getValue(HTTP_SCOPE) as HttpScope | undefined;
    this.attributes = http
      ? { "network.transport": "tcp", "network.protocol.name": "http" }
      : { "network.transport": "pipe" };
    recorder.instruments.sessionsOpen.add(1, this.attributes);
  }

  close(protocolVersion?: string): void {
    if (this.closed) return;
    this.closed = true;
    const { instruments } = this.recorder;
    instruments.sessionsOpen.add(-1, this.attributes);
    const attributes = protocolVersion
      ? { ...this.attributes, "mcp.protocol.version": protocolVersion }
      : this.attributes;
    instruments.sessionDuration.record((performance.now() - this.started) / 1000, attributes);
  }
}
