/**
 * What goes wrong inside the SDK (a collector that refuses or cannot be reached, spans dropped
 * from a full queue) reaches mcpkit's log as a warning, once per kind of message, instead of
 * nowhere: the SDK's own diagnostics are silent by default. The values of the OTLP header
 * variables (API keys, as often as not) are registered as secrets first, so no line shows them.
 */
import { DiagLogLevel, diag } from "@opentelemetry/api";
import type { Logger } from "../log.ts";

const HEADER_VARIABLES = [
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
];
/** Kinds of message logged at most; a collector failing all day says so once. */
const MAX_KINDS = 50;

export function reportDiagnostics(log: Logger, env: Record<string, string | undefined>): void {
  for (const name of HEADER_VARIABLES) {
    for (const pair of (env[name] ?? "").split(",")) {
      const value = pair.slice(pair.indexOf("=") + 1).trim();
      if (value) {
        log.redact(value);
        log.redact(safeDecode(value));
      }
    }
  }
  const seen = new Set<string>();
  const warn = (message: string, ...args: unknown[]) => {
    const text = [message, ...args].map(describe).join(" ").trim();
    // "Dropped 12 spans" and "Dropped 40 spans" are one kind.
    const kind = text.replace(/\d+/g, "N");
    if (seen.has(kind) || seen.size >= MAX_KINDS) return;
    seen.add(kind);
    log.warn(`OpenTelemetry: ${text}`);
  };
  const ignore = () => {};
  diag.setLogger({ error: warn, warn, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN);
}

/** Warns about a final export that failed at shutdown (what `shutdown()` rejected with). */
export function reportShutdown(log: Logger, what: string, outcome: PromiseSettledResult<unknown>): void {
  if (outcome.status === "rejected") {
    log.warn(`OpenTelemetry: the last ${what} could not be sent`, { error: describe(outcome.reason) });
  }
}

/** An error's message; the SDK hands some over as the JSON of an error object. */
function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") {
    if (!value.startsWith("{")) return value;
    try {
      return describe(JSON.parse(value));
    } catch {
      return value;
    }
  }
  if (typeof value === "object" && value !== null && "message" in value) return String(value.message);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
