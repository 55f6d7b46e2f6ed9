/**
 * Which exporters the standard variables ask for, built from the SDK's own classes:
 * OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER (comma lists of otlp, console, none, and
 * prometheus for metrics) and OTEL_EXPORTER_OTLP_PROTOCOL (or the per-signal
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / _METRICS_PROTOCOL): http/protobuf (the default) or http/json.
 * Each OTLP exporter reads its endpoint, headers, timeout and compression from the environment
 * itself; each exporter package is imported only when chosen.
 *
 * `console` writes to stderr, never stdout: over stdio, stdout carries JSON-RPC only.
 */
import { ExportResultCode, type ExportResult, getNumberFromEnv, getStringFromEnv } from "@opentelemetry/core";
import type { PushMetricExporter, ResourceMetrics, MetricReader } from "@opentelemetry/sdk-metrics";
import { AggregationTemporality, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import {
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../log.ts";

export type Signal = "TRACES" | "METRICS";

/** The names in OTEL_{signal}_EXPORTER (default `otlp`), lower-cased and without blanks. */
function chosenExporters(signal: Signal): string[] {
  const raw = getStringFromEnv(`OTEL_${signal}_EXPORTER`) ?? "otlp";
  return [
    ...new Set(
      raw
        .split(",")
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** `http/json` or `http/protobuf`; anything else (grpc) is named in a warning and served as http/protobuf. */
function otlpProtocol(signal: Signal, log: Logger): "http/json" | "http/protobuf" {
  const name = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const raw = getStringFromEnv(name) ?? getStringFromEnv("OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf";
  const protocol = raw.trim().toLowerCase();
  if (protocol === "http/json" || protocol === "http/protobuf") return protocol;
  log.warn(`OpenTelemetry: protocol ${JSON.stringify(raw)} is not served; sending http/protobuf`, {
    hint: `set ${name} or OTEL_EXPORTER_OTLP_PROTOCOL to http/protobuf or http/json`,
  });
  return "http/protobuf";
}

const SIGNAL_NAMES: Record<Signal, string> = { TRACES: "spans", METRICS: "metrics" };

/**
 * The signals whose OTLP endpoint (OTEL_EXPORTER_OTLP_{signal}_ENDPOINT, else
 * OTEL_EXPORTER_OTLP_ENDPOINT) is not an http(s) URL: one warning per variable, which names it
 * and not its value (it may hold a credential). Such a signal is not sent over OTLP at all; the
 * SDK would quote the value and send to http://localhost:4318 instead, whoever listens there.
 */
export function unusableOtlpEndpoints(log: Logger): Set<Signal> {
  const unusable = new Map<string, Signal[]>();
  for (const signal of ["TRACES", "METRICS"] as const) {
    const own = `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`;
    const name = getStringFromEnv(own) ? own : "OTEL_EXPORTER_OTLP_ENDPOINT";
    const value = getStringFromEnv(name);
    if (value === undefined || isHttpUrl(value)) continue;
    unusable.set(name, [...(unusable.get(name) ?? []), signal]);
  }
  for (const [name, signals] of unusable) {
    log.warn(
      `OpenTelemetry: ${name} is not an http:// or https:// URL, so no ${signals.map((signal) => SIGNAL_NAMES[signal]).join(" or ")} are sent over OTLP`,
      {
        hint: `e.g. ${name === "OTEL_EXPORTER_OTLP_ENDPOINT" ? "http://127.0.0.1:4318" : `http://127.0.0.1:4318/v1/${signals[0].toLowerCase()}`} (the value is not shown: it may hold a credential)`,
      },
    );
  }
  return new Set([...unusable.values()].flat());
}

function isHttpUrl(value: string): boolean {
  const url = URL.parse(value.trim());
  return url?.protocol === "http:" || url?.protocol === "https:";
}

function unknownExporter(signal: Signal, name: string, log: Logger, known: string): void {
  log.warn(`OpenTelemetry: OTEL_${signal}_EXPORTER names ${JSON.stringify(name)}, which mcpkit does not have`, {
    hint: `use ${known}`,
  });
}

export async function spanProcessors(log: Logger, unusable: Set<Signal>): Promise<SpanProcessor[]> {
  const processors: SpanProcessor[] = [];
  for (const name of chosenExporters("TRACES")) {
    if (name === "none" || (name === "otlp" && unusable.has("TRACES"))) continue;
    if (name === "console") processors.push(new SimpleSpanProcessor(new StderrSpanExporter()));
    else if (name === "otlp") {
      const { OTLPTraceExporter } =
        otlpProtocol("TRACES", log) === "http/json"
          ? await import("@opentelemetry/exporter-trace-otlp-http")
          : await import("@opentelemetry/exporter-trace-otlp-proto");
      // The batch size, queue and delay come from OTEL_BSP_* (the SDK reads them).
      processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
    } else unknownExporter("TRACES", name, log, "otlp, console or none");
  }
  return processors;
}

export async function metricReaders(log: Logger, unusable: Set<Signal>): Promise<MetricReader[]> {
  const readers: MetricReader[] = [];
  // Read once, and only for a push exporter: a warning about them would mislead beside prometheus alone.
  let timing: ReturnType<typeof exportTiming> | undefined;
  const periodic = (exporter: PushMetricExporter) =>
    new PeriodicExportingMetricReader({ exporter, ...(timing ??= exportTiming(log)) });
  for (const name of chosenExporters("METRICS")) {
    if (name === "none" || (name === "otlp" && unusable.has("METRICS"))) continue;
    if (name === "console") readers.push(periodic(new StderrMetricExporter()));
    else if (name === "otlp") {
      const { OTLPMetricExporter } =
        otlpProtocol("METRICS", log) === "http/json"
          ? await import("@opentelemetry/exporter-metrics-otlp-http")
          : await import("@opentelemetry/exporter-metrics-otlp-proto");
      readers.push(periodic(new OTLPMetricExporter()));
    } else if (name === "prometheus") {
      const { PrometheusExporter } = await import("@opentelemetry/exporter-prometheus");
      // OTEL_EXPORTER_PROMETHEUS_HOST / _PORT. The host defaults to loopback, as the specification's
      // "localhost" and as --http without --auth: the exporter's own default, 0.0.0.0, would serve
      // the metrics to every network the machine is on, with no authorization.
      const host = getStringFromEnv("OTEL_EXPORTER_PROMETHEUS_HOST") ?? "127.0.0.1";
      const exporter = new PrometheusExporter({ preventServerStart: true, host });
      readers.push(exporter);
      const url = `http://${host}:${getNumberFromEnv("OTEL_EXPORTER_PROMETHEUS_PORT") ?? 9464}/metrics`;
      try {
        await exporter.startServer();
        log.info("OpenTelemetry: Prometheus metrics served", { url });
      } catch (error) {
        log.warn("OpenTelemetry: the Prometheus endpoint could not start", {
          url,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    } else unknownExporter("METRICS", name, log, "otlp, prometheus, console or none");
  }
  return readers;
}

/**
 * OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT (defaults 60 s and 30 s) as the periodic reader takes
 * them. An export cannot outlast the interval, so the timeout is cut to it: the reader throws for a
 * pair the other way round, and that stopped the whole SDK (OTEL_METRIC_EXPORT_INTERVAL=5000 alone
 * turned traces off too). A value of 0 or below is named in a warning and the default used.
 */
function exportTiming(log: Logger): { exportIntervalMillis: number; exportTimeoutMillis: number } {
  const positive = (name: string, fallback: number) => {
    const value = getNumberFromEnv(name);
    if (value === undefined || value > 0) return value ?? fallback;
    log.warn(`OpenTelemetry: ${name} must be a number of milliseconds above 0; using ${fallback}`);
    return fallback;
  };
  const exportIntervalMillis = positive("OTEL_METRIC_EXPORT_INTERVAL", 60_000);
  const exportTimeoutMillis = Math.min(positive("OTEL_METRIC_EXPORT_TIMEOUT", 30_000), exportIntervalMillis);
  return { exportIntervalMillis, exportTimeoutMillis };
}

/** Spans as one JSON line each on stderr (`OTEL_TRACES_EXPORTER=console`). */
class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const context = span.spanContext();
      const line = {
        otel: "span",
        name: span.name,
        kind: span.kind,
        trace_id: context.traceId,
        span_id: context.spanId,
        parent_span_id: span.parentSpanContext?.spanId,
        duration_ms: span.duration[0] * 1e3 + span.duration[1] / 1e6,
        status: span.status,
        attributes: span.attributes,
        events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}

/** Metrics as one JSON line per instrument on stderr (`OTEL_METRICS_EXPORTER=console`). */
class StderrMetricExporter implements PushMetricExporter {
  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    for (const scope of metrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        const line = {
          otel: "metric",
          name: metric.descriptor.name,
          unit: metric.descriptor.unit,
          points: metric.dataPoints,
        };
        process.stderr.write(`${JSON.stringify(line)}\n`);
      }
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  selectAggregationTemporality(): AggregationTemporality {
    return AggregationTemporality.CUMULATIVE;
  }

  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}
