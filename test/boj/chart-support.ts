/** How the chart tests get the page: for now the built page itself (the resource wiring comes with the merge). */
import { CHART_PAGE } from "../../src/toolsets/boj/chart/page.ts";

export async function readChartPage(_bojUrl: string): Promise<string> {
  return CHART_PAGE;
}
