/** What every boj tool file shares: the dependencies, scope and annotations. */
import { lazy } from "../../../core/lazy.ts";
import type { ToolDefinition } from "../../../core/tool.ts";
import type { ChartInput } from "../chart/series.ts";
import type { BojAnswers } from "../answers.ts";
import type { SearchDeps } from "../search/run.ts";
import type { KnownDatabases } from "../unknown-database.ts";

export interface BojDeps {
  answers: BojAnswers;
  /** Database codes known to exist, for the "did you mean" of BOJ's M181005E (default: the built-in list). */
  knownDatabases?: KnownDatabases;
  /** The series catalogue behind boj_search_series. */
  search?: SearchDeps;
}

export const BOJ_SCOPE = "boj:read";

/**
 * The handlers' code (calls.ts), loaded at the first call of a boj tool and kept: a `require` per
 * call cost the compiled binary about 5 µs of a catalogue call's ~60 µs of server time (the module
 * is looked up again each time), `scripts/bench/http.ts --tool boj_get_parameter_catalog`.
 */
export const calls = lazy(() => require("./calls.ts") as typeof import("./calls.ts")).get;

/**
 * The tools' valibot schemas, built at the first use of one (a call, or a tool list from source)
 * and kept: a release binary lists their JSON Schemas from the table it embeds
 * (core/json-schema.ts), so a server's start never builds them, which took 0.55 ms of a stdio start.
 */
export const schemas = lazy(() => require("../schemas.ts") as typeof import("../schemas.ts")).get;
export const searchSchemas = lazy(() => require("../search/schema.ts") as typeof import("../search/schema.ts")).get;

const terminal = lazy(() => require("../chart/terminal.ts") as typeof import("../chart/terminal.ts")).get;

/** `mcpkit call … --chart` for the data tools: one sparkline per series (chart/terminal.ts, loaded then). */
export const drawSeries: NonNullable<ToolDefinition["terminalChart"]> = async (structured, screen) =>
  terminal().renderTerminalChart(structured as ChartInput, screen);

export const dataAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;
export const catalogAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const PAGING =
  "One page per call: BOJ returns at most 250 series and 60,000 data points; when it stops early, next_position is a number and the same call with start_position = next_position continues. When structuredContent has truncated, the page was shortened to fit the output budget: truncated.continuation names the calls, in order, for everything after it (BOJ's next page included) and next_position is null. Values are numbers or null (missing). The text lists each series as a header line and survey_date,value lines; structuredContent has the same data as JSON.";
