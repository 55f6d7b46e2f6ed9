/**
 * A local OTLP/HTTP receiver (JSON encoding) on 127.0.0.1: what a collector or Jaeger's port 4318
 * would get from mcpkit, kept for the test to read. Spans and metric points are flattened into
 * plain objects with their attributes as a record.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's enum: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number };
  links: { traceId: string; spanId: string }[];
  events: { name: string }[];
  resource: Record<string, unknown>;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  /** Histogram, sum or gauge points as OTLP/JSON has them, attributes flattened. */
  points: (Record<string, unknown> & { attributes: Record<string, unknown> })[];
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** The `content-type` of each request, in order (to tell http/json from http/protobuf). */
  contentTypes: string[];
  stop(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function plainValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

export function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const contentTypes: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      contentTypes.push(request.headers.get("content-type") ?? "");
      if (!request.headers.get("content-type")?.includes("json")) return new Response("{}", { status: 415 });
      const body = (await request.json()) as Record<string, unknown[]>;
      if (path === "/v1/traces") collectSpans(body, spans);
      else if (path === "/v1/metrics") collectMetrics(body, metrics);
      else return new Response("not found", { status: 404 });
      return Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans,
    metrics,
    contentTypes,
    stop: () => server.stop(true),
  };
}

/** OTLP/JSON as sent, read field by field. */
type Json = any;

function collectSpans(body: Json, into: ReceivedSpan[]): void {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        into.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          status: span.status ?? {},
          links: (span.links ?? []).map((link: Json) => ({ traceId: link.traceId, spanId: link.spanId })),
          events: (span.events ?? []).map((event: Json) => ({ name: event.name })),
          resource,
        });
      }
    }
  }
}

function collectMetrics(body: Json, into: ReceivedMetric[]): void {
  for (const resourceMetrics of body.resourceMetrics ?? []) {
    for (const scope of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scope.metrics ?? []) {
        const data = metric.histogram ?? metric.sum ?? metric.gauge ?? {};
        into.push({
          name: metric.name,
          unit: metric.unit,
          points: (data.dataPoints ?? []).map((point: Json) => ({
            ...point,
            attributes: attributesOf(point.attributes),
          })),
        });
      }
    }
  }
}
