/**
 * The running OpenTelemetry SDK: providers, the context manager, and what `index.ts` hands out.
 * Imported only by `startTelemetry` (a chunk of its own in the release build), so a process
 * without `OTEL_*` variables never loads a line of it.
 *
 * Configuration is the standard variables only, read by the SDK's own readers: the sampler
 * (OTEL_TRACES_SAMPLER/_ARG), span limits and the batch processor (OTEL_BSP_*) by the tracer
 * provider, the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) by the env detector, the
 * exporters by `exporters.ts`.
 */
import { type Attributes, context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { reportDiagnostics } from "./diagnostics.ts";
import { metricReaders, spanProcessors, unusableOtlpEndpoints } from "./exporters.ts";
import type {
  CallCounts,
  CounterSpec,
  OpenSubscriptions,
  RequestId,
  RequestSpan,
  SessionRecord,
  TelemetryStart,
} from "./index.ts";
import { createInstruments } from "./instruments.ts";
import { McpRequestSpan, McpSession, type Recorder, httpScope } from "./requests.ts";
import { tracedFetch } from "./upstream.ts";

export interface TelemetrySdk {
  requestSpan(method: string, params: unknown, id: RequestId, protocolVersion: string | undefined): RequestSpan;
  sessionOpened(): SessionRecord;
  traceHttp(handle: (request: Request) => Promise<Response>): (request: Request) => Promise<Response>;
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  count(counter: CounterSpec, attributes?: Record<string, string>): void;
  observeCalls(counts: CallCounts): void;
  observeSubscriptions(open: OpenSubscriptions): void;
  event(name: string, attributes?: Record<string, string | number>): void;
  currentIds(): { trace_id: string; span_id: string } | undefined;
  /** Exports what is still buffered and stops, waiting at most `ms` (a warning says when that was not enough). */
  shutdown(ms: number): Promise<void>;
}

const SCOPE = "mcpkit";

export async function startSdk({ log, serviceVersion, env }: TelemetryStart): Promise<TelemetrySdk> {
  const reportShutdown = reportDiagnostics(log, env);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "mcpkit", "service.version": serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // Trace context only: a caller's baggage (user and tenant ids, as often as not) is not mcpkit's
  // to pass on to BOJ, craboj or the identity provider, and mcpkit reads none of it.
  const propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  const unusable = unusableOtlpEndpoints(log);
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: await spanProcessors(log, unusable) });
  trace.setGlobalTracerProvider(tracerProvider);
  const meterProvider = new MeterProvider({ resource, readers: await metricReaders(log, unusable) });
  metrics.setGlobalMeterProvider(meterProvider);

  const recorder: Recorder = {
    tracer: tracerProvider.getTracer(SCOPE, serviceVersion),
    instruments: createInstruments(meterProvider.getMeter(SCOPE, serviceVersion)),
    propagator,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === "true",
  };
  log.debug("OpenTelemetry on", { service: String(resource.attributes["service.name"]) });

  return {
    requestSpan: (method, params, id, version) => new McpRequestSpan(recorder, method, params, id, version),
    sessionOpened: () => new McpSession(recorder),
    traceHttp: (handle) => (request) => context.with(httpScope(recorder, request), handle, undefined, request),
    fetch: (input, init) => tracedFetch(recorder, input, init),
    count: (counter, attributes) => {
      recorder.instruments.counter(counter).add(1, attributes);
      // On the request's span too, where the count happened (a cache miss, a sign-in).
      trace.getActiveSpan()?.addEvent(counter.name, attributes);
    },
    observeCalls: (counts) => recorder.instruments.callSources.add(counts),
    observeSubscriptions: (open) => recorder.instruments.subscriptionSources.add(open),
    event: (name, attributes) => trace.getActiveSpan()?.addEvent(name, attributes as Attributes),
    currentIds: () => {
      const span = trace.getSpanContext(context.active());
      return span ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
    },
    shutdown: async (ms) => {
      const flushed = (async () => {
        const [spans, metricsSent] = await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
        reportShutdown("spans", spans);
        reportShutdown("metrics", metricsSent);
        context.disable();
      })();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), ms);
      });
      if ((await Promise.race([flushed, late])) === "late") {
        log.warn(`OpenTelemetry: the last spans and metrics were not all sent within ${ms} ms; exiting without them`);
      }
      clearTimeout(timer);
    },
  };
}
