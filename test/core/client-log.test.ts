/**
 * The logging capability: tools tell the client what a user would want to see, filtered by the
 * level the client set with logging/setLevel, mirrored to stderr, never on stdout outside JSON-RPC.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { REPO_ROOT, testEnv } from "../support/mcp.ts";

const PROBE = resolve(import.meta.dir, "fixtures/probe-server.ts");

interface Probe {
  client: Client;
  messages: { level: string; logger?: string; data: unknown }[];
  stderr(): string;
}

let open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.map((client) => client.close()));
  open = [];
});

async function startProbe(args: string[] = []): Promise<Probe> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROBE, ...args],
    env: testEnv(),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "log-test", version: "1.0.0" });
  const messages: Probe["messages"] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    messages.push(notification.params);
  });
  await client.connect(transport);
  open.push(client);
  return { client, messages, stderr: () => stderr };
}

async function notifiedLevels(probe: Probe): Promise<string[]> {
  await probe.client.callTool({ name: "probe_notify", arguments: {} });
  // Notifications travel before the result on the same pipe; one more round trip makes sure all arrived.
  await probe.client.ping();
  return probe.messages.map((message) => message.level);
}

describe("notifications/message", () => {
  test("the server declares the logging capability", async () => {
    const probe = await startProbe();
    expect(probe.client.getServerCapabilities()?.logging).toEqual({});
  });

  test("without logging/setLevel, info and above reach the client; debug stays in the server log", async () => {
    const probe = await startProbe();
    expect(await notifiedLevels(probe)).toEqual([
      "info",
      "notice",
      "warning",
      "error",
      "critical",
      "alert",
      "emergency",
    ]);
    expect(probe.messages[0]).toEqual({
      level: "info",
      logger: "probe",
      data: { message: "probe info", level: "info" },
    });
  });

  test("logging/setLevel warning filters out debug, info and notice", async () => {
    const probe = await startProbe();
    await probe.client.setLoggingLevel("warning");
    expect(await notifiedLevels(probe)).toEqual(["warning", "error", "critical", "alert", "emergency"]);
  });

  test("logging/setLevel debug lets everything through", async () => {
    const probe = await startProbe();
    await probe.client.setLoggingLevel("debug");
    expect((await notifiedLevels(probe)).length).toBe(8);
  });

  test("an unknown level is -32602 and changes nothing", async () => {
    const probe = await startProbe();
    await probe.client.setLoggingLevel("warning");
    await expect(probe.client.setLoggingLevel("loud" as never)).rejects.toThrow(/-32602|Invalid/);
    expect(await notifiedLevels(probe)).toEqual(["warning", "error", "critical", "alert", "emergency"]);
  });

  test("client log messages are mirrored to stderr", async () => {
    const probe = await startProbe();
    await notifiedLevels(probe);
    expect(probe.stderr()).toContain("probe warning");
    expect(probe.stderr()).toContain('logger="probe"');
  });
});

describe("the output budget", () => {
  test("a result over --max-output-bytes is cut at a line and says how much was shown; structuredContent stays whole", async () => {
    const probe = await startProbe(["--max-output-bytes", "20000"]);
    const result = (await probe.client.callTool({ name: "probe_big", arguments: { lines: 1000 } })) as {
      content: { type: string; text: string }[];
      structuredContent: { lines: number };
    };
    const text = result.content[0].text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(20_000);
    expect(text).toMatch(/output cut at \d+ of 101000 bytes/);
    expect(text).toContain("--max-output-bytes");
    // Cut at a line boundary: every kept line is whole.
    const kept = text.split("\n").filter((line) => line.startsWith("line "));
    expect(kept.length).toBeGreaterThan(150);
    for (const line of kept) expect(line.length).toBe(100);
    expect(result.structuredContent).toEqual({ lines: 1000 });
  });

  test("a result within the budget is untouched", async () => {
    const probe = await startProbe();
    const result = (await probe.client.callTool({ name: "probe_big", arguments: { lines: 900 } })) as {
      content: { text: string }[];
    };
    expect(result.content[0].text.split("\n").length).toBe(901);
    expect(result.content[0].text).not.toContain("output cut");
  });
});
