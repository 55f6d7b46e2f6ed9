/**
 * A small leveled logger that writes to stderr only: in stdio mode stdout belongs to JSON-RPC.
 *
 * Secrets registered with `redact` are replaced wherever they appear in a line, as a last line of
 * defence: code should not log them in the first place.
 */
import { currentTraceIds } from "./telemetry/index.ts";
import { byteLength } from "./text.ts";
export const LOG_LEVELS = ["off", "error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `text` (the default): one readable line; `json`: one JSON object a line, for log collectors (--log-format). */
export type LogFormat = "text" | "json";

export interface Logger {
  readonly level: LogLevel;
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  trace(message: string, fields?: Record<string, unknown>): void;
  /** Never print this value (a token, a password). */
  redact(secret: string): void;
  enabled(level: Exclude<LogLevel, "off">): boolean;
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * Reads an env_logger-style `RUST_LOG` value (`info`, `warn,oj=debug`, `off`): the bare level
 * wins; with only `target=level` pairs, the most verbose of them applies.
 */
export function levelFromRustLog(value: string): LogLevel | undefined {
  let bare: LogLevel | undefined;
  let mostVerbose: LogLevel | undefined;
  for (const part of value.split(",").map((p) => p.trim().toLowerCase())) {
    const [target, level] = part.includes("=") ? part.split("=", 2) : [undefined, part];
    if (!level || !isLogLevel(level)) continue;
    if (target === undefined) bare = level;
    else if (!mostVerbose || LOG_LEVELS.indexOf(level) > LOG_LEVELS.indexOf(mostVerbose)) mostVerbose = level;
  }
  return bare ?? mostVerbose;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = writeStderr,
  format: LogFormat = "text",
): Logger {
  const secrets = new Map<string, (line: string) => string>();
  const rank = LOG_LEVELS.indexOf(level);
  const enabled = (at: Exclude<LogLevel, "off">) => rank >= LOG_LEVELS.indexOf(at);
  const render = format === "json" ? jsonLine : textLine;

  const emit = (at: Exclude<LogLevel, "off">, message: string, fields?: Record<string, unknown>) => {
    if (!enabled(at)) return;
    let line = render(at, message, fields);
    for (const hide of secrets.values()) line = hide(line);
    write(`${line}\n`);
  };

  return {
    level,
    enabled,
    error: (m, f) => emit("error", m, f),
    warn: (m, f) => emit("warn", m, f),
    info: (m, f) => emit("info", m, f),
    debug: (m, f) => emit("debug", m, f),
    trace: (m, f) => emit("trace", m, f),
    redact: (secret) => {
      // Field values (and, in JSON lines, the message) are JSON-encoded: a secret holding `"`, `\`
      // or a control character appears there escaped, and is hidden in that form too.
      for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
        if (form.length > 0 && !secrets.has(form)) secrets.set(form, hider(form));
      }
    },
  };
}

function textLine(at: Exclude<LogLevel, "off">, message: string, fields?: Record<string, unknown>): string {
  let line = `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} mcpkit: ${message}`;
  if (fields) {
    for (const [key, value] of Object.entries(fields)) {
      line += ` ${key}=${typeof value === "string" ? JSON.stringify(value) : safeJson(value)}`;
    }
  }
  return line;
}

/** The keys every JSON line has; a field of the same name cannot replace them. */
const JSON_KEYS = new Set(["time", "level", "message", "trace_id", "span_id"]);

/** One JSON object: time, level, message, the fields, and the request's trace ids when telemetry is on. */
function jsonLine(at: Exclude<LogLevel, "off">, message: string, fields?: Record<string, unknown>): string {
  const entry: Record<string, unknown> = { time: new Date().toISOString(), level: at, message };
  addFields(entry, fields, asJsonValue);
  const ids = currentTraceIds();
  if (ids) {
    entry.trace_id = ids.trace_id;
    entry.span_id = ids.span_id;
  }
  try {
    return JSON.stringify(entry);
  } catch {
    // A field that does not serialize (a cycle, a BigInt) is shown as text instead.
    addFields(entry, fields, safeJson);
    return JSON.stringify(entry);
  }
}

/** A field as a JSON line holds it: an error as its message, anything else as it is. */
const asJsonValue = (value: unknown) => (value instanceof Error ? value.message : value);

function addFields(
  entry: Record<string, unknown>,
  fields: Record<string, unknown> | undefined,
  shown: (value: unknown) => unknown,
): void {
  if (!fields) return;
  for (const [key, value] of Object.entries(fields)) if (!JSON_KEYS.has(key)) entry[key] = shown(value);
}

/** Below this length a secret is hidden only where it stands whole, not inside words. */
const SHORT_SECRET = 8;

/**
 * Replaces a secret wherever it appears. A short one (a test password such as "pw") would also
 * match inside ordinary words and scramble every line ("li[redacted]tening"), so it is replaced
 * only where no letter or digit touches it: anywhere it is the value of a field or a header.
 */
function hider(secret: string): (line: string) => string {
  if (secret.length >= SHORT_SECRET) return (line) => line.replaceAll(secret, "[redacted]");
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const whole = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "gu");
  return (line) => line.replace(whole, "[redacted]");
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Bun's own writer of fd 2, not `process.stderr`: that Node stream costs a stdio server's start-up
 * ~3.5 ms of CPU on first use (see mcp/stdio/native-stdio.ts). A line is flushed at once. While
 * stderr cannot take more (a parent that never reads it, a closed pipe), Bun's writer keeps what
 * it was given in memory: up to MAX_WAITING_LOG_BYTES, then lines are dropped until it drains,
 * rather than the server's memory growing with every line (a trace log of 1,000 requests
 * otherwise held ~200 MB).
 */
const MAX_WAITING_LOG_BYTES = 1024 * 1024;
let stderr: ReturnType<typeof Bun.stderr.writer> | undefined;
/** Set while a flush waits for stderr to take what was written: UTF-8 bytes written since. */
let waitingLogBytes: number | undefined;

function writeStderr(line: string): void {
  // Measured only while stderr is behind: a line that goes straight out is never counted.
  if (waitingLogBytes !== undefined) {
    const bytes = byteLength(line);
    if (waitingLogBytes + bytes > MAX_WAITING_LOG_BYTES) return;
    waitingLogBytes += bytes;
  }
  try {
    stderr ??= Bun.stderr.writer();
    // A promise when the pipe is full or broken: its EPIPE must not surface as an uncaught error.
    const written = stderr.write(line);
    if (typeof written !== "number") written.catch(() => {});
    if (waitingLogBytes === undefined) flushStderr(stderr, () => byteLength(line));
  } catch {
    // Nowhere left to say it.
  }
}

/**
 * Flushes; if stderr is full, counts what waits (`waiting`, measured only then) and, once the
 * flush took what was written before it, flushes what came meanwhile (still counted, so the cap
 * holds across waits).
 */
function flushStderr(sink: NonNullable<typeof stderr>, waiting: () => number): void {
  let flushed: number | Promise<number>;
  try {
    flushed = sink.flush();
  } catch {
    return;
  }
  if (typeof flushed === "number") {
    waitingLogBytes = undefined;
    return;
  }
  waitingLogBytes ??= waiting();
  const flushing = waitingLogBytes;
  // A stderr that failed (closed) stays waiting: its lines are dropped past the cap.
  flushed.then(
    () => {
      const writtenSince = (waitingLogBytes ?? flushing) - flushing;
      waitingLogBytes = undefined;
      if (writtenSince > 0) flushStderr(sink, () => writtenSince);
    },
    () => {},
  );
}

/**
 * Warnings about the entries of a client's list that are skipped one by one, a few lines however
 * long the list: the first `named` are each named (`skip`), the rest counted in one line (`end`).
 * A client chooses how many entries it sends, so a line per bad entry let roots/list answered with
 * 40,000 roots that name no directory write 40,000 lines on every call that read them.
 */
export class SkippedWarnings {
  private skipped = 0;

  constructor(
    private readonly log: Logger,
    private readonly named = SKIPPED_NAMED,
  ) {}

  /** One more entry skipped: warned about while fewer than `named` were (`fields` is built only then). */
  skip(message: string, fields: () => Record<string, unknown>): void {
    if (++this.skipped <= this.named) this.log.warn(message, fields());
  }

  /** The entries skipped but not named, in one line (`summary` of their count), if there are any. */
  end(summary: (more: number) => string): void {
    if (this.skipped > this.named) this.log.warn(summary(this.skipped - this.named));
  }
}

/** Skipped entries of a client's list that are each named in the log; the rest are counted in one line. */
const SKIPPED_NAMED = 5;

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = createLogger("off");
