/**
 * A request to an upstream (BOJ, craboj, an identity provider) as a CLIENT span by the HTTP client
 * conventions: named by its method, with http.request.method, url.full, server.address and
 * server.port, http.response.status_code, and error.type (the status from 400 on, else the error's
 * name). It is a child of the request being served and sends `traceparent` (and `tracestate`)
 * upstream. `http.client.request.duration` measures it by host and outcome.
 *
 * The URL on the span has no user name or password, and the query values of parameters that
 * carry credentials are replaced; headers (Authorization among them) are never recorded.
 */
import { type Attributes, SpanKind, type TextMapSetter, context, trace } from "@opentelemetry/api";
import { type Recorder, recordFailure } from "./requests.ts";

/** Query parameters whose values are credentials (the HTTP conventions' list and the usual names). */
const SECRET_PARAMETER =
  /^(?:awsaccesskeyid|signature|sig|x-goog-signature|.*token.*|.*secret.*|.*password.*|api[-_]?key|key)$/i;

const headerSetter: TextMapSetter<Headers> = {
  set: (headers, key, value) => headers.set(key, value),
};

/** The URL as the span shows it: without credentials. */
function shownUrl(url: URL): string {
  const shown = new URL(url);
  shown.username = "";
  shown.password = "";
  for (const key of [...shown.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(key)) shown.searchParams.set(key, "REDACTED");
  }
  return shown.href;
}

export async function tracedFetch(recorder: Recorder, input: string | URL, init?: RequestInit): Promise<Response> {
  const url = new URL(input);
  const method = (init?.method ?? "GET").toUpperCase();
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const attributes: Attributes = {
    "http.request.method": method,
    "url.full": shownUrl(url),
    "server.address": url.hostname,
    "server.port": port,
  };
  const active = context.active();
  const span = recorder.tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, active);
  const headers = new Headers(init?.headers);
  recorder.propagator.inject(trace.setSpan(active, span), headers, headerSetter);
  const metric: Attributes = { "http.request.method": method, "server.address": url.hostname, "server.port": port };
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, headers });
    span.setAttribute("http.response.status_code", response.status);
    metric["http.response.status_code"] = response.status;
    if (response.status >= 400) recordFailure(span, metric, String(response.status));
    return response;
  } catch (error) {
    recordFailure(span, metric, error instanceof Error ? error.name : "_OTHER");
    throw error;
  } finally {
    span.end();
    recorder.instruments.upstreamDuration.record((performance.now() - started) / 1000, metric);
  }
}
