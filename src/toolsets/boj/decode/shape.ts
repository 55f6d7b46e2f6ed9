/**
 * The parts of the structured output that JSON and CSV decoding build the same way: the meta
 * block, the PARAMETER echo, and the check that turns a non-200 STATUS into an API_ERROR.
 */
import { apiError } from "../errors.ts";
import type { Meta } from "../schemas.ts";
import { textField } from "./fields.ts";

export type DataKind = "code" | "layer";

const COMMON_ECHO: Record<string, string> = {
  FORMAT: "format",
  LANG: "lang",
  DB: "db",
  STARTDATE: "start_date",
  ENDDATE: "end_date",
  STARTPOSITION: "start_position",
};

const LAYER_ECHO: Record<string, string> = {
  ...COMMON_ECHO,
  FREQUENCY: "frequency",
  LAYER1: "layer1",
  LAYER2: "layer2",
  LAYER3: "layer3",
  LAYER4: "layer4",
  LAYER5: "layer5",
};

export interface ParameterEcho {
  [key: string]: string | null | Record<string, string | null>;
  extras: Record<string, string | null>;
}

/**
 * BOJ echoes every parameter as a string, `""` when not sent. Known keys become snake_case fields
 * (blank → null); a wildcard `*` in LAYERn is kept as `"*"` (the reference client failed on it).
 * Keys this version does not know go to `extras` rather than being dropped.
 */
export function parameterEcho(kind: DataKind, entries: Iterable<[string, unknown]>): ParameterEcho {
  const known = kind === "layer" ? LAYER_ECHO : COMMON_ECHO;
  const fields: Record<string, string | null> = {};
  const extras: Record<string, string | null> = {};
  for (const name of Object.values(known)) fields[name] = null;
  for (const [key, value] of entries) {
    const upper = key.toUpperCase();
    const field = known[upper];
    if (field) fields[field] = textField(value);
    else extras[upper] = textField(value);
  }
  return { ...fields, extras };
}

export function buildMeta(status: number, messageId: unknown, message: unknown, date: unknown): Meta {
  // DATE is kept exactly as BOJ wrote it: metadata dates come with a one-digit hour
  // ("2026-02-19T9:00:06.669+09:00"), which strict ISO-8601 parsing would reject.
  return { status, message_id: textField(messageId), message: textField(message), date: textField(date) };
}

/** STATUS other than 200 is an API error, with BOJ's message ID and text. */
export function assertSuccess(meta: Meta): void {
  if (meta.status !== 200) throw apiError(meta.status, meta.message_id, meta.message ?? "(no MESSAGE in the response)");
}
