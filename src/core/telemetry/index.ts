/**
 * OpenTelemetry for mcpkit, behind a facade that costs nothing while it is off.
 *
 * The SDK (`./sdk.ts` and every `@opentelemetry/*` package) is imported only by `startTelemetry`,
 * and only when an `OTEL_*` variable asks for it; the release build keeps that `import()` as a
 * chunk of its own. Until then every function here reads one module-level variable and returns:
 * no span, no allocation, no import. Callers on a hot path write `requestSpan(…)` and
 * `span?.end(…)`, never build anything for telemetry themselves.
 *
 * What is recorded follows the MCP semantic conventions (open-telemetry/semantic-conventions-genai,
 * docs/gen-ai/mcp.md). Never recorded: tokens, Authorization headers, the caller's identity, and
 * tool arguments and results unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */
import type { Logger } from "../log.ts";
import type { TelemetrySdk } from "./sdk.ts";

/** A request's id (MCP: a string or an integer). */
export type RequestId = string | number;

/** What a request was answered with, as far as its span needs to know. */
export type AnsweredReply =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: { code: number; data?: unknown } };

/** The SERVER span of one MCP request. */
export interface RequestSpan {
  /** Runs the request's work with this span as the active context (upstream calls become its children). */
  run<T>(work: () => T): T;
  /** Ends the span with the request's answer and records its duration. */
  end(reply: AnsweredReply): void;
}

/** One 2025-era session, from its start to its end (`mcp.server.session.duration`). */
export interface SessionRecord {
  /** Records the session's end; the version is the one its initialize agreed on, when known. */
  close(protocolVersion?: string): void;
}

/**
 * A counter, declared by the part of mcpkit that bumps it, in that part's own folder: core names no
 * toolset's or server's metric, so a toolset's counter comes and goes with the toolset alone.
 */
export interface CounterSpec {
  /** The instrument's name; outside the semantic conventions it starts with `mcpkit.`. */
  readonly name: string;
  /** Its unit, in the UCUM annotation form the conventions use for counts, e.g. `{lookup}`. */
  readonly unit: string;
  /** What it counts, and by which attributes. */
  readonly description: string;
}

export interface TelemetryStart {
  env: Record<string, string | undefined>;
  log: Logger;
  serviceVersion: string;
}

/**
 * How long shutdown waits for the last spans and metrics to be sent when the caller names no time;
 * a signalled HTTP server names what is left of --shutdown-grace-s (`cli/run.ts`), which may be
 * more or less than this.
 */
const FLUSH_MS = 5_000;

let sdk: TelemetrySdk | undefined;

/**
 * Whether an `OTEL_*` variable asks for telemetry: any one set to a value, unless
 * `OTEL_SDK_DISABLED=true` turns the SDK off (as the specification says).
 */
export function wantsTelemetry(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  for (const key in env) {
    if (key.startsWith("OTEL_") && key !== "OTEL_SDK_DISABLED" && env[key]) return true;
  }
  return false;
}

/**
 * Loads and starts the SDK when the environment asks for it; otherwise does nothing (and imports
 * nothing). A failure to start is logged and leaves telemetry off: it never stops the server.
 */
export async function startTelemetry(start: TelemetryStart): Promise<void> {
  if (sdk || !wantsTelemetry(start.env)) return;
  try {
    const { startSdk } = await import("./sdk.ts");
    sdk = await startSdk(start);
  } catch (error) {
    start.log.warn("OpenTelemetry could not start; continuing without it", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Exports what is still buffered (spans, the last metrics) and stops, waiting at most `ms`. */
export async function shutdownTelemetry(ms = FLUSH_MS): Promise<void> {
  const running = sdk;
  if (!running) return;
  sdk = undefined;
  await running.shutdown(ms);
}

/**
 * The SERVER span of a request, in either era, on either transport; undefined while telemetry is
 * off. `protocolVersion` is the era's (the `_meta` one, or the version initialize agreed on).
 */
export function requestSpan(
  method: string,
  params: unknown,
  id: RequestId,
  protocolVersion: string | undefined,
): RequestSpan | undefined {
  return sdk?.requestSpan(method, params, id, protocolVersion);
}

/** A session begins (2025 era, stdio or HTTP); undefined while telemetry is off. */
export function sessionOpened(): SessionRecord | undefined {
  return sdk?.sessionOpened();
}

/**
 * An HTTP handler that continues the caller's trace from its `traceparent` header and marks the
 * requests it answers as HTTP (`network.transport=tcp`); the handler itself while telemetry is off.
 */
export function traceHttp(handle: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return sdk ? sdk.traceHttp(handle) : handle;
}

/**
 * `fetch` for a request to an upstream (BOJ, craboj, an identity provider): a CLIENT span with the
 * HTTP client conventions that sends `traceparent` along; plain `fetch` while telemetry is off.
 */
export function upstreamFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  return sdk ? sdk.fetch(input, init) : fetch(input, init);
}

/** Where tool calls are admitted (`protocol/admission.ts`): its counts become the gauges of calls running and waiting. */
export interface CallCounts {
  readonly running: number;
  readonly waiting: number;
}

/** What holds open subscriptions (`subscriptions/listen`): a stdio connection's, an HTTP server's. */
export interface OpenSubscriptions {
  readonly size: number;
}

/** Reports `open.size` (with every other holder's) as mcpkit.subscriptions.open while telemetry is on. */
export function observeSubscriptions(open: OpenSubscriptions): void {
  sdk?.observeSubscriptions(open);
}

/** Reports `counts` as mcpkit.calls.running and mcpkit.calls.waiting while telemetry is on. */
export function observeCalls(counts: CallCounts): void {
  sdk?.observeCalls(counts);
}

/**
 * Whether telemetry is on: one read of a module variable. A caller that builds attributes for
 * `countEvent` or `spanEvent` asks first, so a process without telemetry builds nothing for it.
 */
export function telemetryOn(): boolean {
  return sdk !== undefined;
}

/**
 * Declares a counter for `countEvent`. Nothing is made here, so a module may declare its counters
 * as constants at load time, telemetry off or on: the SDK makes the instrument at the first count.
 */
export function defineCounter(spec: CounterSpec): CounterSpec {
  return Object.freeze({ ...spec });
}

/** Adds one to a counter, with low-cardinality attributes, and notes it as an event on the active span. */
export function countEvent(counter: CounterSpec, attributes?: Record<string, string>): void {
  sdk?.count(counter, attributes);
}

/** Notes on the active span that something took time (a wait for a slot, for the BOJ pacer). */
export function spanEvent(name: string, attributes?: Record<string, string | number>): void {
  sdk?.event(name, attributes);
}

/** The trace and span ids of the request being served, for log lines; undefined outside one or while off. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  return sdk?.currentIds();
}
