/**
 * The catalogs as MCP resources, for clients that prefer reading context to calling tools:
 * `boj://catalog/databases`, `boj://catalog/parameters/{endpoint}`, `boj://catalog/messages/{status}`,
 * and a short guide to the call order. An unknown URI reads as `undefined` (→ -32002).
 */
import { lazy } from "../../core/lazy.ts";
import { type ResourceDefinition, type ResourceTemplateDefinition, UI_MIME_TYPE } from "../../core/tool.ts";
import {
  completeFrom,
  databaseCatalog,
  ENDPOINTS,
  MESSAGE_STATUSES,
  messageCatalog,
  parameterCatalog,
} from "./catalog.ts";

const JSON_TYPE = "application/json";

/** The chart page (about 165 KB), built into the binary and loaded only when a host first asks for it. */
const chartPage = lazy(() => import("./chart/page.ts"));

function jsonContents(uri: string, value: unknown) {
  return [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value, null, 2) }];
}

const CALL_ORDER_GUIDE = `# Using the boj tools

1. boj_search_series(query, db?, frequency?, category?): start here. Words of a series name in English or Japanese (any order, parts of words) or a series code, across all 50 databases; each hit ends with the exact boj_get_data_code call that fetches it. Continue with cursor = next_cursor.
2. Fetch data:
   - boj_get_data_code(db, codes, start_date?, end_date?) with the codes found (one frequency per call, up to 1,250 codes);
   - boj_get_data_layer(db, frequency, layers) to take a whole branch of the hierarchy ("*" matches any entry).
3. To browse instead of search: boj_list_databases for the database codes, then boj_get_metadata(db, query?, frequency?, layer?, offset?, limit?) for one database's series and hierarchy positions (layer1..layer5); continue with offset = next_offset.
4. Paging: a call returns at most 250 series / 60,000 points. When next_position is a number, repeat the same call with start_position = next_position.
5. Periods: YYYY (CY/FY), YYYYHH (CH/FH, 01-02), YYYYQQ (Q, 01-04), YYYYMM (M, and also W and D).
6. Repeated calls are answered from mcpkit's cache for a while (the result says so and how old the answer is).
7. Errors: VALIDATION_ERROR means fix the arguments; API_ERROR carries BOJ's message_id (see boj_get_message_catalog).

BOJ forbids high-frequency access: prefer one call with many codes to many calls with one code.
Credit: this service uses the API of the Bank of Japan Time-Series Data Search; its content is not guaranteed by the Bank of Japan.
`;

/** The MCP Apps view of a BOJ data result (`chart/page/`), offered to hosts that render apps. */
export const BOJ_CHART_URI = "ui://mcpkit/boj-chart";

export const bojResources: ResourceDefinition[] = [
  {
    uri: "boj://catalog/databases",
    name: "boj-databases",
    title: "BOJ database codes",
    description: "Every database code the boj tools accept, with Japanese and English names and categories.",
    mimeType: JSON_TYPE,
    read: () => jsonContents("boj://catalog/databases", databaseCatalog()),
  },
  {
    uri: "boj://guide/call-order",
    name: "boj-call-order",
    title: "How to use the boj tools",
    description: "Search → data (or browse a database), paging, period formats and error handling.",
    mimeType: "text/markdown",
    read: () => [{ uri: "boj://guide/call-order", mimeType: "text/markdown", text: CALL_ORDER_GUIDE }],
  },
  {
    uri: BOJ_CHART_URI,
    name: "boj-chart",
    title: "BOJ series chart",
    description:
      "An interactive line chart of a boj_get_data_code or boj_get_data_layer result (MCP Apps view): legend toggles, hover values, log scale, another date range.",
    mimeType: UI_MIME_TYPE,
    ui: true,
    read: async () => [
      {
        uri: BOJ_CHART_URI,
        mimeType: UI_MIME_TYPE,
        text: (await chartPage.get()).CHART_PAGE,
        // Everything is inline: the page needs no network at all, so it asks the host for no CSP domains.
        _meta: { ui: { prefersBorder: true } },
      },
    ],
  },
];

const ENDPOINT_CHOICES = ["all", ...ENDPOINTS] as const;
const STATUS_CHOICES = ["all", ...MESSAGE_STATUSES.map(String)];

export const bojResourceTemplates: ResourceTemplateDefinition[] = [
  {
    uriTemplate: "boj://catalog/parameters/{endpoint}",
    name: "boj-parameters",
    title: "BOJ API parameters for one endpoint",
    description:
      'Parameters, limits and layer rules; endpoint is "all", "get_data_code", "get_data_layer" or "get_metadata".',
    mimeType: JSON_TYPE,
    list: () =>
      ENDPOINT_CHOICES.map((endpoint) => ({
        uri: `boj://catalog/parameters/${endpoint}`,
        name: `boj-parameters-${endpoint}`,
        title: `BOJ parameters: ${endpoint}`,
        mimeType: JSON_TYPE,
        read: () => jsonContents(`boj://catalog/parameters/${endpoint}`, parameterCatalog(endpoint)),
      })),
    read: ({ endpoint }, uri) =>
      (ENDPOINT_CHOICES as readonly string[]).includes(endpoint)
        ? jsonContents(uri, parameterCatalog(endpoint as (typeof ENDPOINT_CHOICES)[number]))
        : undefined,
    complete: { endpoint: (value) => completeFrom(ENDPOINT_CHOICES, value) },
  },
  {
    uriTemplate: "boj://catalog/messages/{status}",
    name: "boj-messages",
    title: "BOJ API messages for one STATUS",
    description: 'BOJ message IDs and their meaning; status is "all", 200, 400, 500 or 503.',
    mimeType: JSON_TYPE,
    list: () =>
      STATUS_CHOICES.map((status) => ({
        uri: `boj://catalog/messages/${status}`,
        name: `boj-messages-${status}`,
        title: `BOJ messages: ${status}`,
        mimeType: JSON_TYPE,
        read: () =>
          jsonContents(
            `boj://catalog/messages/${status}`,
            messageCatalog(status === "all" ? undefined : Number(status)),
          ),
      })),
    read: ({ status }, uri) =>
      STATUS_CHOICES.includes(status)
        ? jsonContents(uri, messageCatalog(status === "all" ? undefined : Number(status)))
        : undefined,
    complete: { status: (value) => completeFrom(STATUS_CHOICES, value) },
  },
];
