/**
 * The BOJ chart page (MCP Apps view `ui://mcpkit/boj-chart`): runs in the host's sandboxed iframe,
 * talks to the host through ext-apps' `App` (ui/initialize, tool-input, tool-result, host
 * context), draws every series of the result, and asks the host for another date range or
 * frequency by calling the same tool again (`callServerTool`), within the same output budget.
 */
import { App, applyDocumentTheme, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";
import { type ChartInput, chartSeries } from "../series.ts";
import { type ChartView, colourOf, drawChart, formatValue, nearestIndex, timeAt } from "./draw.ts";

type ToolResult = {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
};
type HostContext = ReturnType<App["getHostContext"]>;

const LAYER_TOOL = "boj_get_data_layer";
const CODE_TOOL = "boj_get_data_code";

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const chartHost = byId<HTMLDivElement>("chart");
const legend = byId<HTMLUListElement>("legend");
const note = byId<HTMLParagraphElement>("note");
const readout = byId<HTMLDivElement>("readout");
const logToggle = byId<HTMLButtonElement>("log");
const update = byId<HTMLButtonElement>("update");
const startInput = byId<HTMLInputElement>("start");
const endInput = byId<HTMLInputElement>("end");
const frequencySelect = byId<HTMLSelectElement>("frequency");

const view: ChartView = { series: [], hidden: new Set(), log: false };
let toolName = CODE_TOOL;
let toolArgs: Record<string, unknown> = {};

const app = new App({ name: "mcpkit BOJ chart", version: "1.0.0" }, {}, { autoResize: true });

app.ontoolinput = (params) => {
  toolArgs = { ...(params.arguments ?? {}) };
  if (!app.getHostContext()?.toolInfo) toolName = "layer1" in toolArgs ? LAYER_TOOL : CODE_TOOL;
  startInput.value = typeof toolArgs.start_date === "string" ? toolArgs.start_date : "";
  endInput.value = typeof toolArgs.end_date === "string" ? toolArgs.end_date : "";
  if (typeof toolArgs.frequency === "string") frequencySelect.value = toolArgs.frequency.toUpperCase();
  frequencySelect.hidden = toolName !== LAYER_TOOL;
};
app.ontoolresult = (result) => show(result as ToolResult);
app.onhostcontextchanged = (context) => applyContext(context);

function applyContext(context: HostContext): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  const name = context.toolInfo?.tool?.name;
  if (name === CODE_TOOL || name === LAYER_TOOL) {
    toolName = name;
    frequencySelect.hidden = name !== LAYER_TOOL;
  }
}

function show(result: ToolResult): void {
  const texts = (result.content ?? []).flatMap((block) => (block.type === "text" && block.text ? [block.text] : []));
  if (result.isError || !result.structuredContent) {
    view.series = [];
    setNote(texts.join("\n") || "The tool returned no data to chart.");
    render();
    return;
  }
  view.series = chartSeries(result.structuredContent as ChartInput);
  for (const code of [...view.hidden])
    if (!view.series.some((series) => series.code === code)) view.hidden.delete(code);
  setNote(budgetNote(texts) ?? (view.series.length === 0 ? "No series with dated points to chart." : ""));
  render();
  // When the last result was drawn: hosts and tests can tell a drawn chart from a pending one.
  document.body.dataset.drawnAt = String(Date.now());
}

/** The result's own note when the server shortened it to fit the output budget. */
function budgetNote(texts: string[]): string | undefined {
  const lines = texts.flatMap((text) => text.split("\n"));
  const notes = lines.filter((line) => /output budget|max-output-bytes|left out/i.test(line));
  return notes.length > 0 ? notes.join("\n") : undefined;
}

function setNote(text: string): void {
  note.textContent = text;
  note.hidden = text === "";
}

function render(): void {
  const width = Math.max(320, chartHost.clientWidth || 640);
  const svg = drawChart(chartHost, view, width);
  renderLegend();
  readout.textContent = "";
  svg.addEventListener("mousemove", (event) => hover(svg, event.clientX, width));
  svg.addEventListener("mouseleave", () => {
    readout.textContent = "";
  });
}

function renderLegend(): void {
  legend.replaceChildren(
    ...view.series.map((series, index) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.series = series.code;
      button.setAttribute("aria-pressed", String(!view.hidden.has(series.code)));
      button.title = `${series.code}: click to ${view.hidden.has(series.code) ? "show" : "hide"}`;
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = colourOf(index);
      button.append(swatch, document.createTextNode(series.name));
      button.addEventListener("click", () => {
        if (view.hidden.has(series.code)) view.hidden.delete(series.code);
        else view.hidden.add(series.code);
        render();
      });
      item.append(button);
      return item;
    }),
  );
}

function hover(svg: SVGSVGElement, clientX: number, width: number): void {
  const visible = view.series.filter((series) => !view.hidden.has(series.code));
  const time = timeAt(svg, clientX, visible, width);
  if (time === undefined) return;
  const lines = visible.map((series) => {
    const index = nearestIndex(series, time);
    const value = series.values[index];
    return `${series.dates[index]}  ${series.name}: ${value === null ? "no value" : `${formatValue(value)} ${series.unit}`}`;
  });
  readout.textContent = lines.join("\n");
}

logToggle.addEventListener("click", () => {
  view.log = !view.log;
  logToggle.setAttribute("aria-pressed", String(view.log));
  render();
});

// A button and Enter, not a form submit: a host's sandbox without allow-forms never fires submit.
update.addEventListener("click", () => void requestRange());
for (const input of [startInput, endInput])
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") void requestRange();
  });

async function requestRange(): Promise<void> {
  const next: Record<string, unknown> = { ...toolArgs };
  for (const [key, input] of [
    ["start_date", startInput],
    ["end_date", endInput],
  ] as const) {
    if (input.value.trim()) next[key] = input.value.trim();
    else delete next[key];
  }
  if (toolName === LAYER_TOOL) next.frequency = frequencySelect.value;
  delete next.start_position;
  setNote("Loading…");
  try {
    const result = await app.callServerTool({ name: toolName, arguments: next });
    toolArgs = next;
    show(result as ToolResult);
  } catch (error) {
    setNote(`The host could not run ${toolName}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

app.connect().then(
  () => applyContext(app.getHostContext()),
  (error: unknown) => setNote(`Could not reach the host: ${error instanceof Error ? error.message : String(error)}`),
);
