/**
 * The BOJ API's own reference tables (manual 2026-02-18: appendix A databases, appendix B
 * messages, section II parameters and limits), held as data so the catalog tools, resources,
 * completions and error hints all answer from one place without touching the network.
 * Japanese names are the manual's; English names are mcpkit's translations.
 */

import { lazy } from "../../core/lazy.ts";
import { byteLength } from "../../core/text.ts";

export const CATALOG_SOURCE = { source_document: "api_manual.pdf", source_date: "2026-02-18" } as const;

export interface DatabaseEntry {
  code: string;
  name_ja: string;
  name_en: string;
  category_ja: string;
  category_en: string;
}

const IR = ["金利（預金・貸出関連）", "Interest rates on deposits and loans"] as const;
const FM = ["マーケット関連", "Financial markets"] as const;
const PS = ["決済関連", "Payment and settlement"] as const;
const MD = ["預金・マネー・貸出", "Money, deposits and loans"] as const;
const BS = ["金融機関バランスシート", "Balance sheets of financial institutions"] as const;
const FF = ["資金循環", "Flow of funds"] as const;
const OB = ["その他の日本銀行関連", "Other Bank of Japan statistics"] as const;
const CO = ["短観", "TANKAN"] as const;
const PR = ["物価", "Prices"] as const;
const PF = ["財政関連", "Public finance"] as const;
const BP = ["国際収支・BIS関連", "Balance of payments and BIS-related statistics"] as const;
const OT = ["その他", "Others"] as const;

function db(category: readonly [string, string], code: string, name_ja: string, name_en: string): DatabaseEntry {
  return { code, name_ja, name_en, category_ja: category[0], category_en: category[1] };
}

export const DATABASES: readonly DatabaseEntry[] = [
  db(
    IR,
    "IR01",
    "基準割引率および基準貸付利率（従来「公定歩合」として掲載されていたもの）の推移",
    "Basic discount rate and basic loan rate (formerly the official discount rate)",
  ),
  db(
    IR,
    "IR02",
    "預金種類別店頭表示金利の平均年利率等",
    "Average interest rates posted at financial institutions by type of deposit",
  ),
  db(IR, "IR03", "定期預金の預入期間別平均金利", "Average interest rates on time deposits by term"),
  db(IR, "IR04", "貸出約定平均金利", "Average contracted interest rates on loans and discounts"),
  db(FM, "FM01", "無担保コールＯ／Ｎ物レート（毎営業日）", "Uncollateralized overnight call rate (every business day)"),
  db(FM, "FM02", "短期金融市場金利", "Short-term money market rates"),
  db(FM, "FM03", "短期金融市場残高", "Amounts outstanding in short-term money markets"),
  db(FM, "FM04", "コール市場残高", "Amounts outstanding in the call money market"),
  db(FM, "FM05", "公社債発行・償還および現存額", "Issuance, redemption and amounts outstanding of bonds"),
  db(FM, "FM06", "公社債消化状況（利付国債）", "Subscriptions of interest-bearing government bonds"),
  db(
    FM,
    "FM07",
    "(参考）国債窓口販売額・窓口販売率（2004年1月まで）",
    "(Reference) Over-the-counter sales of government bonds (until January 2004)",
  ),
  db(FM, "FM08", "外国為替市況", "Foreign exchange rates"),
  db(FM, "FM09", "実効為替レート", "Effective exchange rates"),
  db(PS, "PS01", "各種決済", "Payment and settlement statistics"),
  db(PS, "PS02", "フェイルの発生状況", "Settlement fails"),
  db(MD, "MD01", "マネタリーベース", "Monetary base"),
  db(MD, "MD02", "マネーストック", "Money stock"),
  db(MD, "MD03", "マネタリーサーベイ", "Monetary survey"),
  db(
    MD,
    "MD04",
    "(参考) マネーサプライ (M2+CD) 増減と信用面の対応",
    "(Reference) Changes in money supply (M2+CD) and credit counterparts",
  ),
  db(MD, "MD05", "通貨流通高", "Currency in circulation"),
  db(
    MD,
    "MD06",
    "日銀当座預金増減要因と金融調節（実績）",
    "Sources of changes in current account balances at the BOJ and money market operations",
  ),
  db(MD, "MD07", "準備預金額", "Reserves"),
  db(MD, "MD08", "業態別の日銀当座預金残高", "Current account balances at the BOJ by sector"),
  db(MD, "MD09", "マネタリーベースと日本銀行の取引", "Monetary base and the Bank of Japan's transactions"),
  db(MD, "MD10", "預金者別預金", "Deposits by depositor"),
  db(MD, "MD11", "預金・現金・貸出金", "Deposits, vault cash and loans and bills discounted"),
  db(MD, "MD12", "都道府県別預金・現金・貸出金", "Deposits, vault cash and loans and bills discounted by prefecture"),
  db(MD, "MD13", "貸出・預金動向", "Loans and deposits"),
  db(MD, "MD14", "定期預金の残高および新規受入高", "Time deposits: amounts outstanding and new deposits"),
  db(MD, "LA01", "貸出先別貸出金", "Loans and bills discounted by sector"),
  db(MD, "LA02", "日本銀行貸出", "Bank of Japan loans"),
  db(MD, "LA03", "その他貸出残高", "Other loans outstanding"),
  db(MD, "LA04", "コミットメントライン契約額、利用額", "Commitment lines: contracted and used amounts"),
  db(MD, "LA05", "主要銀行貸出動向アンケート調査", "Senior loan officer opinion survey on bank lending practices"),
  db(BS, "BS01", "日本銀行勘定", "Bank of Japan accounts"),
  db(BS, "BS02", "民間金融機関の資産・負債", "Assets and liabilities of private financial institutions"),
  db(FF, "FF", "資金循環", "Flow of funds"),
  db(OB, "OB01", "日本銀行の対政府取引", "Bank of Japan transactions with the government"),
  db(OB, "OB02", "日本銀行が受入れている担保の残高", "Collateral accepted by the Bank of Japan"),
  db(CO, "CO", "短観", "TANKAN (Short-term economic survey of enterprises in Japan)"),
  db(PR, "PR01", "企業物価指数", "Corporate goods price index"),
  db(PR, "PR02", "企業向けサービス価格指数", "Services producer price index"),
  db(PR, "PR03", "製造業部門別投入・産出物価指数", "Input-output price index of the manufacturing industry by sector"),
  db(
    PR,
    "PR04",
    "＜サテライト指数＞最終需要・中間需要物価指数",
    "(Satellite index) Final demand-intermediate demand price index",
  ),
  db(PF, "PF01", "財政資金収支", "Receipts and payments of treasury funds"),
  db(PF, "PF02", "政府債務", "Government debt"),
  db(BP, "BP01", "国際収支統計", "Balance of payments"),
  db(
    BP,
    "BIS",
    "BIS 国際資金取引統計および国際与信統計の日本分集計結果",
    "BIS international locational banking and consolidated banking statistics (Japan)",
  ),
  db(BP, "DER", "デリバティブ取引に関する定例市場報告", "Regular derivatives market statistics in Japan"),
  db(OT, "OT", "その他", "Others"),
];

/** The codes of DATABASES, in order: what completions, "did you mean" and the series catalogue go through. */
export const DATABASE_CODES: readonly string[] = DATABASES.map((entry) => entry.code);

export function findDatabase(code: string): DatabaseEntry | undefined {
  const upper = code.trim().toUpperCase();
  return DATABASES.find((entry) => entry.code === upper);
}

// ---------------------------------------------------------------------------------------------
// Frequencies, formats, languages

export const FREQUENCIES = ["CY", "FY", "CH", "FH", "Q", "M", "W", "D"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const FREQUENCY_INFO: Record<Frequency, { name: string; period_format: string; example: string }> = {
  CY: { name: "calendar year (ANNUAL)", period_format: "YYYY", example: "2025" },
  FY: { name: "fiscal year (ANNUAL(MAR))", period_format: "YYYY", example: "2025" },
  CH: { name: "calendar half-year (SEMIANNUAL)", period_format: "YYYYHH, HH = 01 or 02", example: "202501" },
  FH: { name: "fiscal half-year (SEMIANNUAL(SEP))", period_format: "YYYYHH, HH = 01 or 02", example: "202501" },
  Q: { name: "quarterly (QUARTERLY)", period_format: "YYYYQQ, QQ = 01 to 04", example: "202502" },
  M: { name: "monthly (MONTHLY)", period_format: "YYYYMM", example: "202512" },
  W: {
    name: "weekly (WEEKLY(MONDAY) … WEEKLY(SUNDAY))",
    period_format: "YYYYMM (months, not days)",
    example: "202501",
  },
  D: { name: "daily (DAILY)", period_format: "YYYYMM (months, not days)", example: "202501" },
};

/** The long names BOJ prints in FREQUENCY, mapped back to the request codes (BOJ rejects long names). */
export const LONG_FREQUENCY_NAMES: Record<string, Frequency> = {
  ANNUAL: "CY",
  "ANNUAL(MAR)": "FY",
  SEMIANNUAL: "CH",
  "SEMIANNUAL(SEP)": "FH",
  QUARTERLY: "Q",
  MONTHLY: "M",
  WEEKLY: "W",
  DAILY: "D",
};

export const FORMATS = ["json", "csv"] as const;
export const LANGUAGES = ["jp", "en"] as const;

// ---------------------------------------------------------------------------------------------
// Parameters and limits (manual section II)

export const ENDPOINTS = ["get_data_code", "get_data_layer", "get_metadata"] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

type Requirement = "required" | "optional" | "unsupported";

export interface ParameterSpec {
  name: string;
  tool_argument: string;
  description: string;
  allowed_values: string;
  requirements: Record<Endpoint, Requirement>;
  notes: string[];
}

const all = (requirement: Requirement) =>
  ({ get_data_code: requirement, get_data_layer: requirement, get_metadata: requirement }) as const;

export const PARAMETERS: readonly ParameterSpec[] = [
  {
    name: "FORMAT",
    tool_argument: "format",
    description: "Output format of the BOJ response.",
    allowed_values: "json or csv (any letter case); BOJ's default is JSON",
    requirements: all("optional"),
    notes: ["Errors always come back as JSON, even for csv.", "Both formats decode to the same structured output."],
  },
  {
    name: "LANG",
    tool_argument: "lang",
    description: "Language of names, units, categories and messages.",
    allowed_values: "jp or en (any letter case); BOJ's default is jp",
    requirements: all("optional"),
    notes: [
      "jp fills the *_j fields, en the English ones.",
      "CSV is Shift_JIS for jp and UTF-8 for en; mcpkit decodes both.",
      "Metadata in jp carries both languages.",
    ],
  },
  {
    name: "DB",
    tool_argument: "db",
    description: "Database code from appendix A (see boj_list_databases), e.g. FM08 or CO.",
    allowed_values: "a database code such as IR01, FM08, MD10, CO, PR01",
    requirements: all("required"),
    notes: ["Case-insensitive."],
  },
  {
    name: "CODE",
    tool_argument: "codes",
    description: "Series codes to fetch, as a list.",
    allowed_values: '1 to 1,250 series codes of the same frequency, e.g. ["TK99F1000601GCQ01000"]',
    requirements: { get_data_code: "required", get_data_layer: "unsupported", get_metadata: "unsupported" },
    notes: [
      "Use the bare series code (MADR1Z@D), not the site's data code with a DB prefix (IR01'MADR1Z@D).",
      "All codes in one call must share one frequency; weekly codes W0–W6 cannot be mixed.",
      "At most 250 series come back per call; the rest is reached with next_position.",
    ],
  },
  {
    name: "LAYER",
    tool_argument: "layers",
    description: "Position in the DB's hierarchy, level 1 first.",
    allowed_values: '1 to 5 items, each "*" (any) or a positive integer, e.g. ["1","*","2"]',
    requirements: { get_data_code: "unsupported", get_data_layer: "required", get_metadata: "unsupported" },
    notes: [
      "Level 1 is required; levels 2–5 are optional.",
      "The layer condition may match at most 1,250 series (counted before the frequency filter).",
    ],
  },
  {
    name: "FREQUENCY",
    tool_argument: "frequency",
    description: "Frequency of the series to return.",
    allowed_values: FREQUENCIES.join(", "),
    requirements: { get_data_code: "unsupported", get_data_layer: "required", get_metadata: "unsupported" },
    notes: [
      "Weekly series (W0–W6) are all requested with W.",
      "Long names such as MONTHLY are rejected; use the short code.",
    ],
  },
  {
    name: "STARTDATE",
    tool_argument: "start_date",
    description: "First period to return; omitted means from the first period on record.",
    allowed_values: "CY/FY: YYYY; CH/FH: YYYYHH (01–02); Q: YYYYQQ (01–04); M/W/D: YYYYMM; years 1850–2050",
    requirements: { get_data_code: "optional", get_data_layer: "optional", get_metadata: "unsupported" },
    notes: ["Weekly and daily series use the monthly format YYYYMM, not YYYYMMDD."],
  },
  {
    name: "ENDDATE",
    tool_argument: "end_date",
    description: "Last period to return; omitted means up to the latest period.",
    allowed_values: "same format as start_date",
    requirements: { get_data_code: "optional", get_data_layer: "optional", get_metadata: "unsupported" },
    notes: ["start_date must not be later than end_date."],
  },
  {
    name: "STARTPOSITION",
    tool_argument: "start_position",
    description: "Where to resume a result that hit a limit.",
    allowed_values: "an integer ≥ 1: the next_position of the previous page",
    requirements: { get_data_code: "optional", get_data_layer: "optional", get_metadata: "unsupported" },
    notes: ["Repeat the same call with start_position = next_position until next_position is null."],
  },
];

export const LIMITS = [
  {
    api_scope: "get_data_layer",
    target: "series matched by the layer condition, counted before the frequency filter",
    max_value: 1250,
    overflow_behavior: 'error, nothing is returned; split the layer condition (e.g. layers ["1"] then ["2"])',
  },
  {
    api_scope: "get_data_code, get_data_layer",
    target: "series per response",
    max_value: 250,
    overflow_behavior: "output stops at the limit and next_position is set",
  },
  {
    api_scope: "get_data_code, get_data_layer",
    target: "data points per response (series × periods, nulls included)",
    max_value: 60000,
    overflow_behavior:
      "output stops before the series that would exceed it and next_position is set; a series is never split",
  },
  {
    api_scope: "get_data_code",
    target: "series codes per request",
    max_value: 1250,
    overflow_behavior: "error M181007E",
  },
] as const;

export const LAYER_RULES = [
  "Level 1 is required; levels 2 to 5 are optional; 6 or more levels are rejected.",
  "Levels are given in order, as a list.",
  '"*" matches every entry at that level and may appear at any level.',
  "The layer positions of each series are in boj_get_metadata (layer1..layer5).",
] as const;

export const GENERAL_NOTES = [
  "These characters and all full-width characters are not allowed in any value: < > ” ! | \\ ; '",
  "Parameter names and values are case-insensitive.",
  "BOJ forbids high-frequency access; mcpkit spaces its requests to BOJ (--boj-min-interval-ms).",
  "Data is refreshed around 08:50 JST; metadata daily.",
] as const;

/** The most UTF-8 bytes `build` takes as JSON over every one of `choices`. */
function largestJson<C>(choices: readonly C[], build: (choice: C) => unknown): number {
  return Math.max(...choices.map((choice) => byteLength(JSON.stringify(build(choice)))));
}

/**
 * The most bytes a `parameterCatalog` takes as JSON (UTF-8), over every endpoint, measured at the
 * first call: `boj_get_parameter_catalog` declares it (`structuredBytesAtMost`), so its results are
 * not measured again for the output budget.
 */
export const parameterCatalogBytes = lazy(() => largestJson(["all", ...ENDPOINTS] as const, parameterCatalog));

export function parameterCatalog(endpoint: Endpoint | "all") {
  const parameters =
    endpoint === "all"
      ? PARAMETERS
      : PARAMETERS.filter((parameter) => parameter.requirements[endpoint] !== "unsupported");
  return {
    ...CATALOG_SOURCE,
    endpoint_scope: endpoint,
    general_notes: [...GENERAL_NOTES],
    format_codes: [...FORMATS],
    language_codes: [...LANGUAGES],
    frequency_codes: FREQUENCIES.map((code) => ({ code, ...FREQUENCY_INFO[code] })),
    parameters: parameters.map((parameter) => ({
      ...parameter,
      requirements: { ...parameter.requirements },
      notes: [...parameter.notes],
    })),
    limits: LIMITS.filter((limit) => endpoint === "all" || limit.api_scope.includes(endpoint)).map((limit) => ({
      ...limit,
    })),
    layer_rules: endpoint === "all" || endpoint === "get_data_layer" ? [...LAYER_RULES] : [],
  };
}

// ---------------------------------------------------------------------------------------------
// Messages (appendix B)

export interface MessageEntry {
  status: number;
  message_id: string;
  message: string;
  /** What it means and what to change, for a model reading the error. */
  note: string;
}

export const MESSAGES: readonly MessageEntry[] = [
  {
    status: 200,
    message_id: "M181000I",
    message: "正常に終了しました。",
    note: "Success. Some values may still be null (missing).",
  },
  {
    status: 200,
    message_id: "M181030I",
    message: "正常に終了しましたが、該当データはありませんでした。",
    note: "Success with no data: every requested series and period is outside coverage or missing.",
  },
  {
    status: 400,
    message_id: "M181001E",
    message: "Invalid input parameters",
    note: "A forbidden character (< > ” ! | \\ ; ') or a full-width character, or a series code with a DB prefix such as IR01'MADR1Z@D; send the bare series code.",
  },
  { status: 400, message_id: "M181002E", message: "Invalid language setting", note: "lang must be jp or en." },
  {
    status: 400,
    message_id: "M181003E",
    message: "結果ファイル形式が正しくありません。",
    note: "format must be json or csv.",
  },
  { status: 400, message_id: "M181004E", message: "DBが指定されていません。", note: "db is missing." },
  {
    status: 400,
    message_id: "M181005E",
    message: "DB名が正しくありません。",
    note: "Unknown database; pick a code from boj_list_databases.",
  },
  {
    status: 400,
    message_id: "M181006E",
    message: "系列コードが指定されていません。",
    note: "No series code was given.",
  },
  {
    status: 400,
    message_id: "M181007E",
    message: "系列コードの数が1250を超えています。",
    note: "More than 1,250 series codes (or, for the layer API, a layer condition matching more than 1,250 series); split the request.",
  },
  {
    status: 400,
    message_id: "M181008E",
    message: "指定した開始期が正しくありません。",
    note: "start_date is not a valid period.",
  },
  {
    status: 400,
    message_id: "M181009E",
    message: "指定した終了期が正しくありません。",
    note: "end_date is not a valid period.",
  },
  {
    status: 400,
    message_id: "M181010E",
    message: "時期は1850年から2050年までを数値で指定してください。",
    note: "Years must be numeric, from 1850 to 2050.",
  },
  {
    status: 400,
    message_id: "M181011E",
    message: "開始期と終了期の順序を正しく指定してください。",
    note: "start_date must not be later than end_date.",
  },
  {
    status: 400,
    message_id: "M181012E",
    message: "検索開始位置が正しくありません。",
    note: "start_position must be an integer ≥ 1 (the next_position of the previous page).",
  },
  {
    status: 400,
    message_id: "M181013E",
    message: "指定した系列コードは存在しません。:*番目のコード",
    note: "The series code at the given 1-based position does not exist in this db; check it with boj_get_metadata.",
  },
  {
    status: 400,
    message_id: "M181014E",
    message: "指定した系列コードの期種が一致しません。:*番目のコード",
    note: "The codes mix frequencies (from the given 1-based position); request each frequency separately.",
  },
  {
    status: 400,
    message_id: "M181015E",
    message: "指定した開始期の設定形式が期種と一致しません。",
    note: "start_date's format does not fit the series' frequency (YYYY, YYYYHH, YYYYQQ or YYYYMM).",
  },
  {
    status: 400,
    message_id: "M181016E",
    message: "指定した終了期の設定形式が期種と一致しません。",
    note: "end_date's format does not fit the series' frequency (YYYY, YYYYHH, YYYYQQ or YYYYMM).",
  },
  {
    status: 400,
    message_id: "M181017E",
    message: "期種が指定されていません。",
    note: "frequency is missing (layer API).",
  },
  {
    status: 400,
    message_id: "M181018E",
    message: "期種が正しくありません。",
    note: "frequency must be one of CY, FY, CH, FH, Q, M, W, D.",
  },
  {
    status: 400,
    message_id: "M181019E",
    message: "階層情報が指定されていません。",
    note: "layers is missing or has more than 5 levels; level 1 is required.",
  },
  {
    status: 400,
    message_id: "M181020E",
    message: "階層情報設定が正しくありません。",
    note: 'Each layer must be "*" or a positive integer.',
  },
  {
    status: 500,
    message_id: "M181090S",
    message: "予期しないエラーが発生しました。時間をおいてからやり直してください。",
    note: "Unexpected BOJ server error; retried automatically, then try again later.",
  },
  {
    status: 503,
    message_id: "M181091S",
    message: "データベースにアクセス中にエラーになりました。時間をおいてからやり直してください。",
    note: "BOJ database access error; retried automatically, then try again later.",
  },
];

export const MESSAGE_STATUSES = [200, 400, 500, 503] as const;

export function findMessage(messageId: string | null): MessageEntry | undefined {
  if (!messageId) return undefined;
  const upper = messageId.toUpperCase();
  return MESSAGES.find((entry) => entry.message_id === upper);
}

/** The most bytes a `messageCatalog` takes as JSON (UTF-8), over every filter; see `parameterCatalogBytes`. */
export const messageCatalogBytes = lazy(() => largestJson([undefined, ...MESSAGE_STATUSES], messageCatalog));

export function messageCatalog(status: number | undefined) {
  const messages = status === undefined ? MESSAGES : MESSAGES.filter((entry) => entry.status === status);
  return {
    ...CATALOG_SOURCE,
    status_filter: status ?? null,
    count: messages.length,
    messages: messages.map((entry) => ({ ...entry })),
  };
}

export function databaseCatalog() {
  return { ...CATALOG_SOURCE, count: DATABASES.length, databases: DATABASES.map((entry) => ({ ...entry })) };
}

/** Case-insensitive prefix matches, for completions. */
export function completeFrom(values: readonly string[], prefix: string, limit = 100): string[] {
  const wanted = prefix.trim().toLowerCase();
  return values.filter((value) => value.toLowerCase().startsWith(wanted)).slice(0, limit);
}
