/**
 * The chart page's HTML (`ui://mcpkit/boj-chart`), built at compile time by a Bun macro. Loaded
 * only when a client reads the resource, so a start-up never pays for it.
 */
import { buildChartPage } from "./page-build.ts" with { type: "macro" };

export const CHART_PAGE: string = buildChartPage();
