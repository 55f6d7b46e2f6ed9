/**
 * Prompts that walk a model from discovery to data with the boj tools, and the completions for
 * their arguments (db, frequency, format, lang).
 */
import { shownValue } from "../../core/text.ts";
import { ErrorCode, type PromptDefinition, ProtocolError } from "../../core/tool.ts";
import { completeFrom, DATABASE_CODES, findDatabase, FORMATS, FREQUENCIES, LANGUAGES } from "./catalog.ts";

const completeDb = (value: string) => completeFrom(DATABASE_CODES, value);
const completions = {
  db: completeDb,
  frequency: (value: string) => completeFrom(FREQUENCIES, value),
  format: (value: string) => completeFrom(FORMATS, value),
  lang: (value: string) => completeFrom(LANGUAGES, value),
};

function required(args: Record<string, string>, name: string, prompt: string, example: string): string {
  const value = args[name]?.trim();
  if (!value)
    throw new ProtocolError(ErrorCode.InvalidParams, `Prompt ${prompt} needs the argument "${name}", e.g. ${example}.`);
  return value;
}

function oneOf(
  args: Record<string, string>,
  name: string,
  allowed: readonly string[],
  prompt: string,
): string | undefined {
  const value = args[name]?.trim();
  if (!value) return undefined;
  if (!allowed.some((choice) => choice.toLowerCase() === value.toLowerCase())) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Prompt ${prompt}: "${name}" must be one of ${allowed.join(", ")} (got ${shownValue(value)}).`,
    );
  }
  return value.toLowerCase();
}

function describeDb(code: string): string {
  const entry = findDatabase(code);
  return entry ? `${entry.code} (${entry.name_en} / ${entry.name_ja})` : code.toUpperCase();
}

function user(text: string) {
  return { role: "user" as const, content: { type: "text" as const, text } };
}

function optionalArgs(pairs: Record<string, string | undefined>): string {
  return Object.entries(pairs)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `, ${key} ${JSON.stringify(value)}`)
    .join("");
}

export const bojPrompts: PromptDefinition[] = [
  {
    name: "boj_discovery_flow",
    title: "Find Bank of Japan statistics on a topic",
    description: "Walks from a topic to series codes (boj_search_series) and their data.",
    arguments: [
      {
        name: "topic",
        description: "What you are looking for, e.g. 'USD/JPY exchange rate' or 'TANKAN business conditions'.",
        required: true,
      },
      { name: "lang", description: "jp or en for names and units (default en)." },
    ],
    get(args) {
      const topic = required(args, "topic", "boj_discovery_flow", '"USD/JPY exchange rate"');
      const lang = oneOf(args, "lang", LANGUAGES, "boj_discovery_flow") ?? "en";
      return {
        description: `Find BOJ statistics about ${topic}`,
        messages: [
          user(
            `Find Bank of Japan statistics about: ${topic}.\n\n` +
              `1. Call boj_search_series with query set to a few key words of the topic (English or Japanese, e.g. "dollar yen spot" or "ドル 円"); add frequency (e.g. "M") or db to narrow. Pick the hits whose names match; each ends with the boj_get_data_code call that fetches it. If nothing fits, try other words or the other language, or browse: boj_list_databases, then boj_get_metadata with a db and query.\n` +
              `2. Call boj_get_data_code with the hit's db and codes (one frequency per call) and lang "${lang}"; add start_date/end_date in the format of the frequency (YYYY, YYYYHH, YYYYQQ or YYYYMM).\n` +
              "3. If next_position is a number, call again with start_position = next_position.\n" +
              "4. Summarise the values with their units and periods; null values are missing data. If a call fails with API_ERROR, look up its message_id with boj_get_message_catalog.",
          ),
        ],
      };
    },
    complete: { lang: completions.lang },
  },
  {
    name: "boj_fetch_series",
    title: "Fetch BOJ series by code",
    description: "Fetches known series codes over a period and tabulates them.",
    arguments: [
      { name: "db", description: "Database code, e.g. CO or FM08.", required: true },
      { name: "codes", description: "Series codes separated by commas, e.g. TK99F1000601GCQ01000.", required: true },
      { name: "start_date", description: "First period (YYYY, YYYYHH, YYYYQQ or YYYYMM)." },
      { name: "end_date", description: "Last period, same format." },
      { name: "format", description: "json or csv." },
      { name: "lang", description: "jp or en." },
    ],
    get(args) {
      const db = required(args, "db", "boj_fetch_series", '"CO"');
      const codes = required(args, "codes", "boj_fetch_series", '"TK99F1000601GCQ01000"')
        .split(",")
        .map((code) => code.trim())
        .filter(Boolean);
      const format = oneOf(args, "format", FORMATS, "boj_fetch_series");
      const lang = oneOf(args, "lang", LANGUAGES, "boj_fetch_series");
      const extra = optionalArgs({
        start_date: args.start_date?.trim() || undefined,
        end_date: args.end_date?.trim() || undefined,
        format,
        lang,
      });
      return {
        description: `Fetch ${codes.length} series from ${describeDb(db)}`,
        messages: [
          user(
            `Call boj_get_data_code with db ${JSON.stringify(db.toUpperCase())}, codes ${JSON.stringify(codes)}${extra}.\n` +
              "If next_position is a number, call again with start_position = next_position until it is null.\n" +
              "Then show one table per series (survey_date, value) with the series name and unit; mark null values as missing.",
          ),
        ],
      };
    },
    complete: { db: completions.db, format: completions.format, lang: completions.lang },
  },
  {
    name: "boj_latest_value",
    title: "Latest value of one BOJ series",
    description: "Reports the most recent non-missing observation of a series.",
    arguments: [
      { name: "db", description: "Database code, e.g. FM08.", required: true },
      { name: "series_code", description: "One series code, e.g. FXERD01.", required: true },
      { name: "lang", description: "jp or en." },
    ],
    get(args) {
      const db = required(args, "db", "boj_latest_value", '"FM08"');
      const code = required(args, "series_code", "boj_latest_value", '"FXERD01"');
      const lang = oneOf(args, "lang", LANGUAGES, "boj_latest_value");
      return {
        description: `Latest value of ${code} in ${describeDb(db)}`,
        messages: [
          user(
            `Call boj_search_series with query ${JSON.stringify(code)} and db ${JSON.stringify(db.toUpperCase())}; the first hit is that series: note its frequency and last_period.\n` +
              `Then call boj_get_data_code with db ${JSON.stringify(db.toUpperCase())}, codes [${JSON.stringify(code)}]${optionalArgs({ lang })} and start_date/end_date covering the last few periods up to last_period (format by frequency: YYYY, YYYYHH, YYYYQQ or YYYYMM).\n` +
              "Report the last point whose value is not null, with its survey_date, unit and the series' last_update.",
          ),
        ],
      };
    },
    complete: { db: completions.db, lang: completions.lang },
  },
  {
    name: "boj_explore_layer",
    title: "Browse a branch of a BOJ database",
    description: "Fetches every series under one hierarchy position at one frequency.",
    arguments: [
      { name: "db", description: "Database code, e.g. MD10.", required: true },
      { name: "frequency", description: "CY, FY, CH, FH, Q, M, W or D.", required: true },
      { name: "layers", description: 'Hierarchy path separated by commas, e.g. "1,*" (default "*").' },
      { name: "lang", description: "jp or en." },
    ],
    get(args) {
      const db = required(args, "db", "boj_explore_layer", '"MD10"');
      const frequency = oneOf(args, "frequency", FREQUENCIES, "boj_explore_layer");
      if (!frequency) required(args, "frequency", "boj_explore_layer", '"Q"');
      const layers = (args.layers?.trim() || "*").split(",").map((layer) => layer.trim());
      const lang = oneOf(args, "lang", LANGUAGES, "boj_explore_layer");
      return {
        description: `Series under ${layers.join(",")} of ${describeDb(db)} at frequency ${frequency?.toUpperCase()}`,
        messages: [
          user(
            `Call boj_get_data_layer with db ${JSON.stringify(db.toUpperCase())}, frequency ${JSON.stringify(frequency?.toUpperCase())}, layers ${JSON.stringify(layers)}${optionalArgs({ lang })}.\n` +
              `To see what that position holds first, call boj_get_metadata with db ${JSON.stringify(db.toUpperCase())}, layer ${JSON.stringify(layers.join(","))} and frequency ${JSON.stringify(frequency?.toUpperCase())}.\n` +
              'If BOJ answers M181007E (more than 1,250 series match), narrow the layers (for example replace a leading "*" by "1", then "2").\n' +
              "If next_position is a number, call again with start_position = next_position. Summarise which series came back (name, unit, latest value).",
          ),
        ],
      };
    },
    complete: { db: completions.db, frequency: completions.frequency, lang: completions.lang },
  },
];
