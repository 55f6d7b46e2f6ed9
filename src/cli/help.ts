/** `mcpkit --help`, generated from the same option declarations the parser reads. */
import { type OptionSpec, defaultTextOf } from "../core/options.ts";
import type { ToolsetModule } from "../core/toolset-module.ts";
import { NAME, VERSION } from "../version.ts";

export interface HelpSection {
  title: string;
  options: readonly OptionSpec[];
}

export function helpText(core: HelpSection, modules: readonly ToolsetModule[], extra: readonly HelpSection[]): string {
  const lines = [
    `${NAME} ${VERSION}: one MCP server with toolsets for Bank of Japan statistics, online-judge problems and time-based file search.`,
    "",
    "Usage:",
    "  mcpkit [options]                      serve MCP over stdio (what desktop clients launch)",
    "  mcpkit --http [HOST:]PORT [options]   serve MCP over Streamable HTTP at /mcp",
    "  mcpkit tools [options]                list the enabled tools: name and title",
    "  mcpkit call TOOL [JSON] [options]     run one tool once and print its result as JSON (JSON '-' reads stdin)",
    "  mcpkit call TOOL --help               what the tool does and its arguments (any tool, even of a toolset that is off)",
    "  mcpkit install CLIENT [options]       add mcpkit to a client's MCP config (mcpkit install --help)",
    "  mcpkit uninstall CLIENT               remove it from the files CLIENT loads here",
    "  mcpkit health [URL]                   exit 0 when a running --http server's /healthz answers 200 (containers);",
    "                                        URL is http:// or https:// (exit 2 for any other)",
    "  mcpkit help [call | TOOL]             this text; how 'call' works; what TOOL does (also --help, -h)",
    '  mcpkit --version | -V | -v            prints "mcpkit <version>" (also: mcpkit version)',
    "",
    "Protocol: MCP 2026-07-28 (stateless: each request carries its version in _meta; server/discover) and",
    "2025-11-25 or earlier (initialize; HTTP sessions unless --stateless), both on the same endpoint: chosen",
    "per request over HTTP and per connection over stdio, by what the client sends.",
    "",
    ...EXIT_CODES,
    "",
    "A flag beats its environment variable (shown in brackets).",
    "",
    ...section(core),
  ];
  for (const module of modules)
    lines.push(...section({ title: `${module.name}: ${module.summary}`, options: module.options }));
  for (const part of extra) lines.push(...section(part));
  return `${lines.join("\n")}\n`;
}

const EXIT_CODES = [
  "Exit codes of 'call': 0 success; 1 the tool or its upstream failed (isError, an upstream or network",
  "error); 2 usage: a bad flag, JSON that does not parse, arguments the tool refuses (its schema, or a value",
  "wrong in meaning such as a backwards date range), an unknown tool or one whose toolset is off, configuration",
  "the tool needs (get_platform_status without --oj-token). A reader that stops early (| head) is no error.",
];

/** `mcpkit call --help` and `mcpkit help call`: how to run one tool. */
export function callUsage(): string {
  return `${[
    "Usage: mcpkit call TOOL [JSON] [options]",
    "",
    "Runs one tool once, through the same code the server runs, and prints its result as JSON on stdout.",
    "  TOOL                   a tool name; 'mcpkit tools' lists the enabled ones and the toolsets that are off",
    "  JSON                   the arguments as one JSON object, quoted as one argument; '-' reads it from stdin",
    "  --text                 print only the result's text, or the error's message (for people)",
    "  --chart                with boj_get_data_code or boj_get_data_layer: draw each series as a sparkline",
    "",
    "'mcpkit call TOOL --help' says what TOOL does and its arguments, even for a toolset that is off.",
    "The toolset options (--root, --oj-base-url, ...) apply as when serving: 'mcpkit --help' lists them.",
    "Logs go to stderr (--log-level warn by default for call); stdout is the result only.",
    "",
    ...EXIT_CODES,
    "",
    `Example: mcpkit call boj_get_metadata '{"db":"FM08","lang":"en"}' --text`,
  ].join("\n")}\n`;
}

function section({ title, options }: HelpSection): string[] {
  if (options.length === 0) return [];
  const rows = options.map((option) => {
    const value = option.kind === "boolean" ? "" : ` ${option.valueName ?? "VALUE"}`;
    const flag = `  --${option.name}${value}${option.kind === "list" ? " (repeatable)" : ""}`;
    const env = option.env ? ` [${option.env}]` : "";
    const shown = defaultTextOf(option);
    const fallback = shown ? ` Default: ${shown}.` : "";
    return [flag, `${option.help}${env}${fallback}`] as const;
  });
  const width = Math.min(34, Math.max(...rows.map(([flag]) => flag.length)) + 2);
  const out = [`${title}:`];
  for (const [flag, text] of rows) {
    if (flag.length + 2 > width) out.push(flag, `${" ".repeat(width)}${text}`);
    else out.push(`${flag.padEnd(width)}${text}`);
  }
  out.push("");
  return out;
}
