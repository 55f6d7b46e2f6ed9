/**
 * The BOJ chart (MCP Apps) in a real browser: Debian's chromium, headless, through puppeteer-core.
 * A host page built on ext-apps' own AppBridge puts the page in a sandboxed iframe and delivers a
 * recorded `boj_get_data_code` result (10 monthly series × 600 points from the fake BOJ, with
 * missing values), recorded by running `mcpkit call` as a real process. Saves screenshots as
 * boj-chart-light.png and boj-chart-dark.png in MCPKIT_SCREENSHOTS (default: a new temporary
 * directory, named in the test output). Skips with one line without chromium.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Frame, Page } from "puppeteer-core";
import { hasChromium, launchChromium } from "../support/chromium.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { readChartPage } from "./chart-support.ts";
import { REPO_ROOT, runCli } from "../support/mcp.ts";

setDefaultTimeout(30_000);
const available = hasChromium("the BOJ chart browser tests");
/** Where the light and dark screenshots go; each run (and user) gets its own folder unless told. */
const SCREENSHOTS = process.env.MCPKIT_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "mcpkit-boj-chart-"));
mkdirSync(SCREENSHOTS, { recursive: true });
if (available) console.error(`BOJ chart screenshots: ${SCREENSHOTS}`);

const CODES = Array.from({ length: 10 }, (_, n) => `PRCS20_52${String(n).padStart(8, "0")}`);
const ARGUMENTS = { db: "PR02", codes: CODES, lang: "en" };
type CallResult = {
  content: { type: string; text: string }[];
  structuredContent: {
    series: { series_code: string; name_of_time_series: string; points: { value: number | null }[] }[];
  };
};

const fake = startFakeBoj();
let browser: Browser | undefined;
let host: ReturnType<typeof Bun.serve> | undefined;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let recorded: CallResult;
let hostScript = "";
let chartPage = "";

async function callTool(args: Record<string, unknown>): Promise<CallResult> {
  const run = await runCli(
    ["call", "boj_get_data_code", JSON.stringify(args), "--toolsets", "boj", "--max-output-bytes", "1000000"],
    { env: { BOJ_BASE_URL: fake.url } },
  );
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as CallResult;
}

beforeAll(async () => {
  if (!available) return;
  [recorded, chartPage] = await Promise.all([callTool(ARGUMENTS), readChartPage(fake.url)]);
  const built = await Bun.build({
    entrypoints: [join(REPO_ROOT, "test/boj/fixtures/chart-host.ts")],
    target: "browser",
  });
  hostScript = await built.outputs[0].text();
  let theme: "light" | "dark" = "light";
  host = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/")
        return new Response(
          `<!doctype html><title>host</title><body style="margin:0"><iframe id=app sandbox="allow-scripts" style="width:820px;height:560px;border:0"></iframe><script type=module src=/host.js></script>`,
          { headers: { "content-type": "text/html" } },
        );
      if (url.pathname === "/host.js")
        return new Response(hostScript, { headers: { "content-type": "text/javascript" } });
      if (url.pathname === "/page") return new Response(chartPage, { headers: { "content-type": "text/html" } });
      if (url.pathname === "/recorded") {
        theme = url.searchParams.get("theme") === "dark" ? "dark" : theme;
        return Response.json({ theme, tool: "boj_get_data_code", arguments: ARGUMENTS, result: recorded });
      }
      if (url.pathname === "/theme") {
        theme = url.searchParams.get("set") === "dark" ? "dark" : "light";
        return new Response("ok");
      }
      if (url.pathname === "/call" && request.method === "POST") {
        const params = (await request.json()) as { arguments: Record<string, unknown> };
        return Response.json(await callTool(params.arguments));
      }
      return new Response("not found", { status: 404 });
    },
  });
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
  host?.stop(true);
  await fake.stop();
});

/** Opens the host page, waits for the chart, and counts the iframe's network requests. */
async function openChart(theme: "light" | "dark"): Promise<{ page: Page; frame: Frame; frameRequests: string[] }> {
  await fetch(`http://127.0.0.1:${host?.port}/theme?set=${theme}`);
  const page = await (browser as Browser).newPage();
  await page.setViewport({ width: 840, height: 580 });
  const frameRequests: string[] = [];
  page.on("request", (request) => {
    if (request.frame() !== page.mainFrame()) frameRequests.push(request.url());
  });
  await page.goto(`http://127.0.0.1:${host?.port}/`);
  const handle = await page.waitForSelector("#app");
  const frame = (await handle?.contentFrame()) as Frame;
  await frame.waitForFunction(`document.querySelectorAll("#chart path").length > 0`);
  return { page, frame, frameRequests };
}

const maybe = available ? describe : describe.skip;

maybe("the BOJ chart in a host (MCP Apps, headless chromium)", () => {
  test("draws one line per series with every point, gaps for missing values, legend names, hover values and a log axis; no network", async () => {
    const { page, frame, frameRequests } = await openChart("light");
    const paths = await frame.$$eval("#chart path", (nodes) =>
      nodes.map((node) => ({
        code: node.getAttribute("data-series"),
        points: Number(node.getAttribute("data-points")),
        runs: (node.getAttribute("d") ?? "").split("M").length - 1,
      })),
    );
    await frame.waitForFunction("document.body.dataset.drawnAt !== undefined");
    const drawnAt = Number(await frame.$eval("body", (node) => node.dataset.drawnAt));
    const delivered = (await page.evaluate("window.delivered")) as number;
    expect(drawnAt).toBeGreaterThanOrEqual(delivered);
    console.error(`chart: tool-result to drawn chart in ${drawnAt - delivered} ms (10 series x 600 points)`);
    const series = recorded.structuredContent.series;
    expect(series).toHaveLength(10);
    expect(paths.map((path) => path.code)).toEqual(series.map((one) => one.series_code));
    for (const [i, one] of series.entries()) {
      expect(one.points).toHaveLength(600);
      const present = one.points.filter((point) => point.value !== null).length;
      expect(present).toBeLessThan(600); // the data has gaps…
      expect(paths[i].points).toBe(present); // …every present value is drawn…
      expect(paths[i].runs).toBeGreaterThan(1); // …and each gap breaks the line (never a zero)
    }
    expect(await frame.$$eval("#legend button", (nodes) => nodes.map((node) => node.textContent))).toEqual(
      series.map((one) => one.name_of_time_series),
    );

    // Hover: the read-out names a date and a series value.
    const box = await (await frame.$("#chart svg"))?.boundingBox();
    if (!box) throw new Error("no chart box");
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
    await frame.waitForFunction(`document.getElementById("readout").textContent !== ""`);
    const readout = await frame.$eval("#readout", (node) => node.textContent ?? "");
    expect(readout).toMatch(/^\d{6} {2}Services producer price index 1: [\d,.]+ CY2020=100/);

    // The log toggle changes the y-axis: its ticks become powers of ten.
    const linear = await frame.$$eval("#chart .y-tick", (nodes) => nodes.map((node) => node.textContent));
    await frame.click("#log");
    const log = await frame.$$eval("#chart .y-tick", (nodes) => nodes.map((node) => node.textContent));
    expect(log).not.toEqual(linear);
    expect(log.every((tick) => /^(1(0|,000|00|0,000|00,000)*|0\.0*1|[0-9.]+e[+-]\d+)$/.test(tick ?? ""))).toBe(true);
    expect(await frame.$eval("#chart .y-label", (node) => node.textContent)).toContain("log scale");

    // The legend hides and shows a series.
    await frame.click(`#legend button[data-series="${series[0].series_code}"]`);
    expect(await frame.$$eval("#chart path", (nodes) => nodes.length)).toBe(9);
    await frame.click(`#legend button[data-series="${series[0].series_code}"]`);
    expect(await frame.$$eval("#chart path", (nodes) => nodes.length)).toBe(10);

    await frame.click("#log");
    await page.screenshot({ path: join(SCREENSHOTS, "boj-chart-light.png") });
    expect(frameRequests).toEqual([]);
    await page.close();
  });

  test("asks the host for another date range through the same tool, and redraws what comes back", async () => {
    const { page, frame, frameRequests } = await openChart("light");
    await frame.$eval("#start", (node) => void ((node as unknown as { value: string }).value = "201001"));
    await frame.$eval("#end", (node) => void ((node as unknown as { value: string }).value = "201912"));
    await frame.click("#update");
    await frame.waitForFunction(
      `[...document.querySelectorAll("#chart path")].every((node) => Number(node.getAttribute("data-points")) <= 120)`,
    );
    const calls = (await page.evaluate("window.calls")) as {
      name: string;
      arguments: Record<string, unknown>;
    }[];
    expect(calls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual([
      { name: "boj_get_data_code", arguments: { ...ARGUMENTS, start_date: "201001", end_date: "201912" } },
    ]);
    const points = await frame.$$eval("#chart path", (nodes) =>
      nodes.map((node) => Number(node.getAttribute("data-points"))),
    );
    expect(points).toHaveLength(10);
    expect(Math.max(...points)).toBeGreaterThan(100);
    expect(frameRequests).toEqual([]);
    await page.close();
  });

  test("follows the host's dark theme", async () => {
    const { page, frame } = await openChart("dark");
    expect(await frame.$eval("html", (node) => node.getAttribute("data-theme"))).toBe("dark");
    const background = await frame.evaluate("getComputedStyle(document.body).backgroundColor");
    expect(background).toBe("rgb(13, 17, 23)");
    await page.screenshot({ path: join(SCREENSHOTS, "boj-chart-dark.png") });
    await page.close();
  });
});
