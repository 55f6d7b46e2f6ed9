/**
 * The six boj tools: three that call BOJ (seed 000 §3) and three that answer from the manual's
 * appendices without the network. Handlers build the MCP result directly; every BojError leaves
 * as the JSON-RPC error seed §4 prescribes.
 */
import { defineTool, type ToolDefinition, type ToolResult, textResult } from "../../core/tool.ts";
import { databaseCatalog, messageCatalog, parameterCatalog } from "./catalog.ts";
import type { BojClient } from "./client.ts";
import { decodeDataBody, decodeMetadataBody } from "./decode/index.ts";
import { BojError, toProtocolError } from "./errors.ts";
import * as schemas from "./schemas.ts";
import { buildCodeRequest, buildLayerRequest, buildMetadataRequest } from "./validation.ts";

export const BOJ_SCOPE = "boj:read";

const dataAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true } as const;
const catalogAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

function structured(output: Record<string, unknown>): ToolResult {
  return textResult(JSON.stringify(output), output);
}

/** Runs a handler body, turning BojErrors into the JSON-RPC errors of seed §4. */
async function mapErrors(tool: string, run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof BojError ? toProtocolError(error, tool) : error;
  }
}

const PAGING =
  "One page per call: BOJ returns at most 250 series and 60,000 data points; when it stops early, next_position is a number and the same call with start_position = next_position continues. Values are numbers or null (missing).";

export function bojTools(client: BojClient): ToolDefinition[] {
  return [
    defineTool({
      name: "boj_get_data_code",
      title: "BOJ time series by series code",
      description: `Fetch Bank of Japan time-series data for given series codes (BOJ getDataCode). Use when you know the series codes (from boj_get_metadata or the BOJ site), e.g. db "CO", codes ["TK99F1000601GCQ01000"], start_date "202401". All codes in one call must share one frequency. ${PAGING}`,
      input: schemas.getDataCodeInput,
      output: schemas.getDataCodeOutput,
      annotations: { title: "BOJ time series by series code", ...dataAnnotations },
      scope: BOJ_SCOPE,
      handler: (args, context) =>
        mapErrors("boj_get_data_code", async () => {
          const request = buildCodeRequest(args);
          const { output, raw } = await client.send(request, context.signal, (body) => decodeDataBody(body, request, "code"));
          return structured(args.include_raw ? { ...output, raw: raw() } : { ...output });
        }),
    }),
    defineTool({
      name: "boj_get_data_layer",
      title: "BOJ time series by hierarchy layer",
      description: `Fetch Bank of Japan time-series data selected by position in a database's hierarchy (BOJ getDataLayer), e.g. db "MD10", frequency "Q", layers ["*"] or ["1","2"]. Layer positions are in boj_get_metadata (layer1..layer5); "*" matches any entry at that level. The layer condition may match at most 1,250 series. ${PAGING}`,
      input: schemas.getDataLayerInput,
      output: schemas.getDataLayerOutput,
      annotations: { title: "BOJ time series by hierarchy layer", ...dataAnnotations },
      scope: BOJ_SCOPE,
      handler: (args, context) =>
        mapErrors("boj_get_data_layer", async () => {
          const request = buildLayerRequest(args);
          const { output, raw } = await client.send(request, context.signal, (body) => decodeDataBody(body, request, "layer"));
          return structured(args.include_raw ? { ...output, raw: raw() } : { ...output });
        }),
    }),
    defineTool({
      name: "boj_get_metadata",
      title: "BOJ series catalogue of one database",
      description:
        'List every series of one Bank of Japan database (BOJ getMetadata): series codes, names, units, frequency, hierarchy layers (layer1..layer5), coverage and notes. Use it to find the codes for boj_get_data_code or the layers for boj_get_data_layer, e.g. db "FM08". Rows without a series_code are hierarchy headings. Large databases give thousands of entries.',
      input: schemas.getMetadataInput,
      output: schemas.getMetadataOutput,
      annotations: { title: "BOJ series catalogue of one database", ...dataAnnotations },
      scope: BOJ_SCOPE,
      handler: (args, context) =>
        mapErrors("boj_get_metadata", async () => {
          const request = buildMetadataRequest(args);
          const { output, raw } = await client.send(request, context.signal, (body) => decodeMetadataBody(body, request));
          return structured(args.include_raw ? { ...output, raw: raw() } : { ...output });
        }),
    }),
    defineTool({
      name: "boj_list_databases",
      title: "BOJ database codes",
      description:
        "List the Bank of Japan databases (code, Japanese and English name, category) that the db argument of the other boj tools accepts. Start here, then call boj_get_metadata for a database. No network access.",
      input: schemas.listDatabasesInput,
      output: schemas.listDatabasesOutput,
      annotations: { title: "BOJ database codes", ...catalogAnnotations },
      scope: BOJ_SCOPE,
      handler: async () => structured(databaseCatalog()),
    }),
    defineTool({
      name: "boj_get_parameter_catalog",
      title: "BOJ API parameters and limits",
      description:
        'Describe the parameters of the boj data tools (which are required, allowed values, period formats per frequency), BOJ\'s per-request limits and the layer rules, from the BOJ API manual. endpoint: "all" (default), "get_data_code", "get_data_layer" or "get_metadata". No network access.',
      input: schemas.getParameterCatalogInput,
      output: schemas.getParameterCatalogOutput,
      annotations: { title: "BOJ API parameters and limits", ...catalogAnnotations },
      scope: BOJ_SCOPE,
      handler: async (args) => structured(parameterCatalog(args.endpoint)),
    }),
    defineTool({
      name: "boj_get_message_catalog",
      title: "BOJ API status messages",
      description:
        "List BOJ's STATUS / MESSAGEID / MESSAGE codes (e.g. M181005E = unknown database) with what each means and how to fix the request; filter with status 200, 400, 500 or 503. Use it to interpret an API_ERROR. No network access.",
      input: schemas.getMessageCatalogInput,
      output: schemas.getMessageCatalogOutput,
      annotations: { title: "BOJ API status messages", ...catalogAnnotations },
      scope: BOJ_SCOPE,
      handler: async (args) => structured(messageCatalog(args.status)),
    }),
  ];
}
