/**
 * What goes wrong inside the SDK (a collector that refuses or cannot be reached, spans dropped
 * from a full queue) reaches mcpkit's log as a warning, once per kind of message, instead of
 * nowhere: the SDK's own diagnostics are silent by default. Every credential the OTLP exporters
 * send is registered as a secret first, so no line shows it, even where a collector (or a proxy
 * in front of it) quotes the request back in its answer: the values of the OTLP header variables
 * (API keys, as often as not), and the user name, password and query values of the endpoints.
 */
import { DiagLogLevel, diag } from "@opentelemetry/api";
import type { Logger } from "../log.ts";

const HEADER_VARIABLES = [
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
];
const ENDPOINT_VARIABLES = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
];
/** Kinds of message logged at most; a collector failing all day says so once. */
const MAX_KINDS = 50;

/** Warns about a final export that failed at shutdown (what `shutdown()` rejected with). */
export type ShutdownReport = (what: string, outcome: PromiseSettledResult<unknown>) => void;

/** Routes the SDK's diagnostics to `log`; returns how to report the final exports' outcome. */
export function reportDiagnostics(log: Logger, env: Record<string, string | undefined>): ShutdownReport {
  warnUnreadableHeaders(log, env);
  const credentials = credentialForms(otlpCredentials(env));
  // The logger hides them in every line (a short one only where it stands whole); the SDK's text,
  // which may quote them escaped, is scrubbed before it reaches the logger.
  for (const form of credentials) log.redact(form);
  const scrubbed = credentials.filter((form) => form.length >= MIN_SCRUBBED);
  const hide = (text: string) => scrubbed.reduce((out, form) => out.replaceAll(form, "[redacted]"), text);
  const seen = new Set<string>();
  const warn = (message: string, ...args: unknown[]) => {
    const text = hide([message, ...args].map(describe).join(" ").trim());
    // "Dropped 12 spans" and "Dropped 40 spans" are one kind.
    const kind = text.replace(/\d+/g, "N");
    if (seen.has(kind) || seen.size >= MAX_KINDS) return;
    seen.add(kind);
    log.warn(`OpenTelemetry: ${text}`);
  };
  const ignore = () => {};
  diag.setLogger({ error: warn, warn, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN);
  return (what, outcome) => {
    if (outcome.status === "rejected") {
      log.warn(`OpenTelemetry: the last ${what} could not be sent`, { error: hide(describe(outcome.reason)) });
    }
  };
}

/**
 * One warning per header variable with entries the SDK drops without a word (not `name=value`, a
 * value that does not percent-decode) or cuts (at a `;`): a collector refusing the export for a
 * missing API key is otherwise all one sees. It names the variable and the entries' positions,
 * never their text: a pasted `Bearer …` without its name is all credential.
 */
function warnUnreadableHeaders(log: Logger, env: Record<string, string | undefined>): void {
  for (const name of HEADER_VARIABLES) {
    const entries = (env[name] ?? "").split(",");
    const unreadable = entries.flatMap((entry, index) =>
      entry.trim() === "" || readsAsHeader(entry) ? [] : [String(index + 1)],
    );
    if (unreadable.length === 0) continue;
    const which =
      unreadable.length === 1
        ? `entry ${unreadable[0]} of ${entries.length} in ${name} is`
        : `entries ${unreadable.join(", ")} of ${entries.length} in ${name} are`;
    log.warn(`OpenTelemetry: ${which} not sent: not a name=value pair with a percent-encoded value`, {
      hint: "write name=value pairs separated by commas, the value percent-encoded (a space %20, a comma %2C, a semicolon %3B) (the entries are not shown: they may hold a credential)",
    });
  }
}

/** Whether the SDK sends `entry` (`@opentelemetry/core`'s parseKeyPairsIntoRecord) whole: `name=value`, both decoding, no `;`. */
function readsAsHeader(entry: string): boolean {
  const separator = entry.indexOf("=");
  if (separator <= 0 || entry.includes(";")) return false;
  const [key, value] = [entry.slice(0, separator).trim(), entry.slice(separator + 1).trim()];
  return key !== "" && value !== "" && decodes(key) && decodes(value);
}

/** Shorter credentials are left to the logger, which hides them only where they stand whole. */
const MIN_SCRUBBED = 4;

/**
 * Every form in which a message may quote each credential, longest first: as written, percent-decoded
 * (as sent), and escaped once and twice as JSON (the SDK stringifies a collector's answer, and a
 * JSON log line escapes that again).
 */
function credentialForms(credentials: string[]): string[] {
  const forms = new Set<string>();
  for (const credential of credentials) {
    for (let form of [credential, safeDecode(credential)]) {
      for (let escapes = 0; escapes < 3; escapes++) {
        if (form.trim() !== "") forms.add(form);
        form = JSON.stringify(form).slice(1, -1);
      }
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * What the OTLP exporters send that may be a credential: each header value of the header variables,
 * and of each endpoint its user name, password, the Basic credentials made of them, and every
 * query value (`?api_key=…`; whatever a collector's URL carries in its query is there to let the
 * sender in, as often as not).
 */
function otlpCredentials(env: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  for (const name of HEADER_VARIABLES) {
    for (const entry of (env[name] ?? "").split(",")) {
      const value = entry.slice(entry.indexOf("=") + 1);
      // The whole entry too (one that is not name=value, a pasted "Bearer …", is all credential), and
      // the value as the SDK sends it: cut at a ";".
      found.push(entry.trim(), value.trim(), value.split(";")[0].trim());
    }
  }
  for (const name of ENDPOINT_VARIABLES) {
    const url = URL.parse(env[name]?.trim() ?? "");
    if (!url) continue;
    if (url.username || url.password) {
      found.push(url.username, url.password);
      const basic = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
      found.push(Buffer.from(basic).toString("base64"), basic);
    }
    for (const pair of url.search.slice(1).split("&")) found.push(pair.slice(pair.indexOf("=") + 1));
  }
  return found;
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
  return decodes(value) ? decodeURIComponent(value) : value;
}

function decodes(value: string): boolean {
  try {
    decodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}
