/**
 * The text a model reads from each boj tool: compact, line-oriented, every fact once (the
 * structuredContent beside it keeps the full JSON). Data pages are one header line per series
 * and one `survey_date,value` line per point; metadata is one line per entry; a category is
 * printed when it changes instead of on every row. Fitting a page to the output budget, in both
 * halves, is `fit-page.ts`'s job (docs/contracts/boj.md "Output budget"): this renders what it keeps.
 */
import { byteLength } from "../../core/text.ts";
import { LONG_FREQUENCY_NAMES } from "./catalog.ts";
import type { Cached, MetadataEntry, MetadataOutput, Series } from "./schemas.ts";
import type { DecodedData } from "./decode/json.ts";

export function cacheLine(cached: Cached | undefined): string {
  return cached
    ? `(answered from mcpkit's cache: BOJ sent this ${cached.age_seconds} s ago, at ${cached.fetched_at})\n`
    : "";
}

function joined(...parts: (string | null | undefined)[]): string {
  return parts.filter((part): part is string => typeof part === "string" && part !== "").join(" | ");
}

/** Both languages when both are there and differ; BOJ fills one of them in data answers. */
function bilingual(english: string | null, japanese: string | null): string | null {
  if (english && japanese && english !== japanese) return `${english} / ${japanese}`;
  return english ?? japanese;
}

// ---------------------------------------------------------------------------------------------
// Data pages (boj_get_data_code, boj_get_data_layer)

/** How to fetch what a cut text leaves out; it depends on which API the page came from. */
export interface DataContinuation {
  tool: string;
  db: string;
  kind: "code" | "layer";
  /** The start_position this page was asked with (1 when none). */
  startPosition: number;
  /**
   * BOJ's next_position for this page, when a shortened page's note must name it: the shortened
   * page's structuredContent carries none, so a model reading only it follows one note, in order.
   */
  bojNext?: number | null;
  /**
   * The arguments of this call that a call of another tool (boj_get_data_code, for the series a
   * cut page leaves out) must repeat to return the same data: named with their values, since
   * "the same arguments" does not apply across tools, and a model that dropped `lang` would get
   * the rest in the other language. Only those the caller gave.
   */
  carried?: { start_date?: string | number; end_date?: string | number; lang?: string; format?: string };
}

/** `, end_date "202412", lang "en"`: the carried arguments among `names`, in that order, as a call names them. */
function carriedArguments(
  continuation: DataContinuation,
  names: readonly (keyof NonNullable<DataContinuation["carried"]>)[],
): string {
  let text = "";
  for (const name of names) {
    const value = continuation.carried?.[name];
    if (value !== undefined) text += `, ${name} ${JSON.stringify(value)}`;
  }
  return text;
}

function seriesBlock(series: Series, previousCategory: string | null): { text: string; category: string | null } {
  const category = bilingual(series.category, series.category_j);
  const head = category && category !== previousCategory ? `## ${category}\n` : "";
  const title = joined(
    series.series_code,
    bilingual(series.name_of_time_series, series.name_of_time_series_j),
    bilingual(series.unit, series.unit_j),
    series.frequency,
    series.last_update ? `updated ${series.last_update}` : null,
    `${series.points.length} points`,
  );
  let lines = `${head}# ${title}\n`;
  for (const point of series.points) lines += `${point.survey_date ?? "null"},${point.value ?? "null"}\n`;
  return { text: lines, category: category ?? previousCategory };
}

function dataSummary(output: DecodedData, continuation: DataContinuation, shortened: boolean): string {
  const { meta } = output;
  // A shortened page's own rest comes first (the last line says how): BOJ's next_position is after it.
  // A shortened page's last line names every call for the rest, BOJ's next page included, in
  // order: a next_position offered beside it would be followed instead and skip or repeat series.
  const more = shortened
    ? "This page is shortened to fit the output budget: the last line names the calls, in order, for everything after it."
    : output.next_position === null
      ? "This is the last page."
      : `More series follow: call again with the same arguments and start_position ${output.next_position}.`;
  return (
    `${joined(`BOJ ${continuation.kind === "code" ? "getDataCode" : "getDataLayer"} db ${continuation.db}`, `${output.series_count} series`, meta.message_id, meta.message, meta.date)}\n` +
    `${more} Lines are survey_date,value; null = missing.\n`
  );
}

/** Where a period of `date` starts in the request format (daily and weekly dates become YYYYMM). */
export function requestPeriod(date: string): string {
  return date.length === 8 ? date.slice(0, 6) : date;
}

/** Bytes a note takes in the larger half: its JSON-escaped form in structuredContent. */
export function noteBytes(note: string): number {
  return byteLength(JSON.stringify(note));
}

/**
 * The call (or calls) that return the series of this page after the first `shown`, in at most
 * `room` bytes (noteBytes) when it can. A code page continues at start_position + shown. A layer
 * page names the codes left out (boj_get_data_code); when that list does not fit, it names the
 * first codes that do and then the layer call at start_position + shown + named: a layer
 * position is the series' ordinal in the whole database, and the page's ordinals grow by at least
 * one per series, so that position is at or before the first series not named (nothing skipped;
 * the series it repeats are named, to leave out).
 */
export function restOfPage(
  series: readonly Series[],
  shown: number,
  continuation: DataContinuation,
  room = Number.POSITIVE_INFINITY,
): string {
  const left = series.length - shown;
  const bojNext = continuation.bojNext ?? null;
  const thenBoj = `call ${continuation.tool} again with the same arguments and start_position ${bojNext}`;
  if (left <= 0) return bojNext === null ? "" : `Then BOJ's next page: ${thenBoj}.`;
  // A code page's start_position call gets BOJ's next page itself, so it is named only after codes.
  if (continuation.kind === "code") {
    return `The other ${left} series of this page: call ${continuation.tool} again with the same arguments and start_position ${continuation.startPosition + shown}.`;
  }
  const codes = series.slice(shown).map((s) => s.series_code);
  const byCode = (named: readonly string[]) =>
    `call boj_get_data_code with db "${continuation.db}"${carriedArguments(continuation, ["start_date", "end_date", "lang", "format"])}, codes ${JSON.stringify(named)}`;
  const whole = `The other ${left} series of this page: ${byCode(codes)}${bojNext === null ? "" : `; then BOJ's next page: ${thenBoj}`}.`;
  if (noteBytes(whole) <= room) return whole;
  const byPosition = (named: number) => {
    const last = series[shown + named - 1].series_code;
    return `call ${continuation.tool} again with the same arguments and start_position ${continuation.startPosition + shown + named}, which starts at or before ${codes[named]} and skips nothing; leave out the series it repeats, up to ${last}`;
  };
  const inSteps = (named: number) =>
    named === 0
      ? `The other ${left} series of this page: ${byPosition(0)}.`
      : `The other ${left} series of this page, in two steps: the next ${named}: ${byCode(codes.slice(0, named))}; then ${byPosition(named)}.`;
  // The most codes that fit (each adds the same few bytes, so estimate, then step down).
  const perCode = noteBytes(JSON.stringify(codes)) / codes.length;
  let named = Math.min(left - 1, Math.max(0, Math.floor((room - noteBytes(inSteps(0)) - 200) / perCode) + 8));
  while (named > 0 && noteBytes(inSteps(named)) > room) named--;
  return inSteps(named);
}

/** The page as text: a summary, then each series' header line and `survey_date,value` lines. */
export function renderDataPage(
  output: DecodedData,
  continuation: DataContinuation,
  cached: Cached | undefined,
  shortened = false,
): string {
  let text = `${dataSummary(output, continuation, shortened)}${cacheLine(cached)}`;
  let category: string | null = null;
  for (const series of output.series) {
    const block = seriesBlock(series, category);
    text += block.text;
    category = block.category;
  }
  return text;
}

/**
 * What a series cut after `points` points leaves out, and the start_date that resumes it. A cut at
 * a period boundary resumes exactly. A cut inside a period (that period alone does not fit the
 * budget) cannot be resumed where it stopped, since start_date takes whole months for daily and
 * weekly data, and offering that period again would hand a model the same page forever: the note
 * names the dates left out and resumes at the next period, so paging still ends.
 */
export function pointsRest(series: Series, points: number, continuation: DataContinuation): string {
  const dates = series.points.map((point) => point.survey_date ?? "");
  if (points >= dates.length || !dates[points]) return "";
  const cutPeriod = requestPeriod(dates[points - 1] ?? "");
  let next = points;
  while (next < dates.length && requestPeriod(dates[next]) === cutPeriod) next++;
  const head = `Series ${series.series_code} is cut after ${points} of ${dates.length} points`;
  const resume = (date: string) =>
    `boj_get_data_code, db "${continuation.db}", codes ["${series.series_code}"], start_date "${requestPeriod(date)}"${carriedArguments(continuation, ["end_date", "lang", "format"])}.`;
  if (next === points) return `${head}; get the rest with ${resume(dates[points])}`;
  const left = next - points;
  const after = next < dates.length ? `The points after them: ${resume(dates[next])}` : "No points follow them.";
  return `${head}: period ${cutPeriod} alone does not fit the budget, so its ${left} points ${dates[points]} to ${dates[next - 1]} are left out, and no call returns them alone (start_date is a whole month, YYYYMM, for daily and weekly data); the user can raise --max-output-bytes to see them. ${after}`;
}

// ---------------------------------------------------------------------------------------------
// Metadata (boj_get_metadata)

export interface MetadataView {
  output: Omit<MetadataOutput, "raw">;
  /** A sentence naming the filters that were applied, or "" when none. */
  filters: string;
  offset: number;
}

function layerPath(entry: MetadataEntry): string {
  const levels = [entry.layer1, entry.layer2, entry.layer3, entry.layer4, entry.layer5];
  const used = levels.slice(0, levels.findLastIndex((level) => level !== null && level !== 0) + 1);
  return used.map((level) => level ?? 0).join(",");
}

/** The request code (M) rather than BOJ's printed name (MONTHLY); weekly kinds keep their weekday. */
function frequencyCode(printed: string | null): string | null {
  if (!printed || printed.toUpperCase().startsWith("WEEKLY")) return printed;
  return LONG_FREQUENCY_NAMES[printed.toUpperCase()] ?? printed;
}

function entryLine(entry: MetadataEntry, previousCategory: string | null): { text: string; category: string | null } {
  const name = bilingual(entry.name_of_time_series, entry.name_of_time_series_j);
  if (!entry.series_code)
    return {
      text: `## ${joined(layerPath(entry) && `layer ${layerPath(entry)}`, name)}\n`,
      category: previousCategory,
    };
  const category = bilingual(entry.category, entry.category_j);
  const head = category && category !== previousCategory ? `[category] ${category}\n` : "";
  const coverage =
    entry.start_of_the_time_series || entry.end_of_the_time_series
      ? `${entry.start_of_the_time_series ?? "?"}-${entry.end_of_the_time_series ?? "?"}`
      : null;
  const notes = bilingual(entry.notes, entry.notes_j);
  const line = joined(
    entry.series_code,
    frequencyCode(entry.frequency),
    layerPath(entry),
    coverage,
    entry.last_update,
    bilingual(entry.unit, entry.unit_j),
    name,
    notes ? `notes: ${notes}` : null,
  );
  return { text: `${head}${line}\n`, category: category ?? previousCategory };
}

/**
 * An offset past the matches is a model's paging mistake, not an empty result: which offsets exist.
 * Undefined unless the page is empty for that reason. Said in the text and in structuredContent.
 */
export function offsetPastEnd(view: MetadataView): string | undefined {
  const { output, offset } = view;
  const matched = output.matched_count ?? output.entries_count;
  if (output.entries_count > 0 || offset === 0 || matched === 0) return undefined;
  return `offset ${offset} is past the ${matched} ${view.filters ? "matching " : ""}entries; offsets 0 to ${matched - 1} exist (0 is the first)`;
}

export function renderMetadata(view: MetadataView, cached: Cached | undefined): string {
  const { output, offset } = view;
  const matched = output.matched_count ?? output.entries_count;
  const pastEnd = offsetPastEnd(view);
  const range = output.entries_count
    ? `entries ${offset + 1}-${offset + output.entries_count}`
    : pastEnd
      ? `no entries: ${pastEnd}`
      : "no entries";
  const next =
    output.next_offset === null || output.next_offset === undefined
      ? ""
      : ` More match: call again with offset ${output.next_offset}.`;
  const summary =
    `${joined(`BOJ getMetadata db ${output.db ?? "?"}`, `${output.total_count ?? output.entries_count} entries in the database`, view.filters ? `${matched} match ${view.filters}` : null, `showing ${range}`, output.meta.date ? `data as of ${output.meta.date}` : null)}.${next}\n` +
    "Lines: series_code | frequency | layer1,layer2,… | first-last period | last update | unit | name; ## lines are hierarchy headings.\n" +
    cacheLine(cached);
  let text = summary;
  let category: string | null = null;
  for (const entry of output.entries) {
    const line = entryLine(entry, category);
    text += line.text;
    category = line.category;
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Catalogs (no network)

interface DatabaseRow {
  code: string;
  name_ja: string;
  name_en: string;
  category_ja: string;
  category_en: string;
}

export function renderDatabases(databases: readonly DatabaseRow[]): string {
  let text = `${databases.length} BOJ databases (db codes), by category. Lines: code | English name | Japanese name.\n`;
  let category = "";
  for (const entry of databases) {
    if (entry.category_en !== category) {
      category = entry.category_en;
      text += `## ${entry.category_en} / ${entry.category_ja}\n`;
    }
    text += `${entry.code} | ${entry.name_en} | ${entry.name_ja}\n`;
  }
  return text;
}

interface ParameterCatalogView {
  endpoint_scope: string;
  general_notes: string[];
  frequency_codes: { code: string; name: string; period_format: string; example: string }[];
  parameters: {
    name: string;
    tool_argument: string;
    description: string;
    allowed_values: string;
    requirements: Record<string, string>;
    notes: string[];
  }[];
  limits: { api_scope: string; target: string; max_value: number; overflow_behavior: string }[];
  layer_rules: string[];
}

export function renderParameterCatalog(catalog: ParameterCatalogView): string {
  const lines = [`BOJ API parameters (${catalog.endpoint_scope}); from the BOJ API manual.`];
  for (const note of catalog.general_notes) lines.push(`- ${note}`);
  lines.push("## Arguments (tool argument = BOJ parameter: requirement per tool)");
  for (const p of catalog.parameters) {
    const needs = Object.entries(p.requirements)
      .filter(([, requirement]) => requirement !== "unsupported")
      .map(([tool, requirement]) => `${tool} ${requirement}`)
      .join(", ");
    lines.push(
      `${p.tool_argument} = ${p.name}: ${needs}. ${p.description} Values: ${p.allowed_values}.${p.notes.length ? ` ${p.notes.join(" ")}` : ""}`,
    );
  }
  lines.push("## Frequencies (code: meaning, period format, example)");
  for (const f of catalog.frequency_codes) lines.push(`${f.code}: ${f.name}, ${f.period_format}, e.g. ${f.example}`);
  if (catalog.limits.length) {
    lines.push("## Limits");
    for (const l of catalog.limits)
      lines.push(`${l.api_scope}: ${l.target} at most ${l.max_value}; ${l.overflow_behavior}`);
  }
  if (catalog.layer_rules.length) {
    lines.push("## Layer rules");
    for (const rule of catalog.layer_rules) lines.push(`- ${rule}`);
  }
  return `${lines.join("\n")}\n`;
}

export function renderMessages(
  messages: readonly { status: number; message_id: string; message: string; note: string }[],
  statusFilter: number | null,
): string {
  let text = `${messages.length} BOJ messages${statusFilter === null ? "" : ` with STATUS ${statusFilter}`}. Lines: STATUS message_id | message | meaning and fix.\n`;
  for (const m of messages) text += `${m.status} ${m.message_id} | ${m.message} | ${m.note}\n`;
  return text;
}
