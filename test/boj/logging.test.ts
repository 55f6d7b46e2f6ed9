/**
 * What the boj toolset tells the user's client while it works (issue 9 §3) and what upstream
 * text may reach a client or a terminal (issue 10 "Also"): retries, pacing waits and upstream
 * failures as MCP `notifications/message` filtered by `logging/setLevel`; stderr lines without
 * `status=undefined`; escape sequences in BOJ's answers stripped before any result, error
 * message or log line, through the real process and through `mcpkit call`.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { dataJson } from "../fixtures/boj/format.ts";
import { type RunningServer, runCli, startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const CO = { db: "CO", codes: ["TK99F1000601GCQ01000"] };
const ESC = "\u001b";
const BEL = "\u0007";
/**
 * A colour change, an OSC window title, a C1 CSI, a bidi override and isolate and a zero-width
 * space: all must vanish, the words must stay.
 */
const HOSTILE = `\u001b[31mDB down\u001b[0m\u001b]0;pwned-title\u0007 no\u202e\u2066w\u2069\u200b\u009b2J`;

const bojArgs = (...extra: string[]) => bojTestArgs(fake.url, "--boj-retry-backoff-ms", "5", ...extra);

interface Seen {
  level: string;
  logger?: string;
  data: any;
}

async function withServer(args: string[], run: (server: RunningServer, seen: Seen[]) => Promise<void>): Promise<void> {
  const server = await startStdioServer({ args });
  const seen: Seen[] = [];
  server.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    seen.push(notification.params as Seen);
  });
  try {
    await run(server, seen);
  } finally {
    await server.close();
  }
}

function hostileJson(status: number, messageId: string): string {
  return JSON.stringify({
    STATUS: status,
    MESSAGEID: messageId,
    MESSAGE: HOSTILE,
    DATE: "2025-12-02T13:13:14.587+09:00",
  });
}

function expectClean(text: string): void {
  expect(text).not.toContain(ESC);
  expect(text).not.toContain(BEL);
  expect(text).not.toContain("\u009b");
  expect(text).not.toContain("pwned-title");
  expect(text).not.toMatch(/[\p{Cf}\u2028\u2029]/u);
}

/** Every notification sent before it has reached the client once a ping's answer has. */
const settle = (server: RunningServer) => server.client.ping();

describe("MCP logging", () => {
  test("at level info, a 503 that is retried sends a warning naming the attempt, the wait and the reason", async () => {
    await withServer(bojArgs("--log-level", "debug"), async (server, seen) => {
      await server.client.setLoggingLevel("info");
      fake.enqueue({ kind: "status", status: 503 });
      expect((await server.client.callTool({ name: "boj_get_data_code", arguments: CO })).isError).toBeFalsy();
      await settle(server);
      const retries = seen.filter((n) => n.level === "warning");
      expect(retries).toHaveLength(1);
      expect(retries[0].logger).toBe("boj");
      expect(retries[0].data).toMatchObject({
        endpoint: "getDataCode",
        attempt: 1,
        of: 3,
        wait_ms: 5,
        status: 503,
        message_id: "M181091S",
        error_type: "API_ERROR",
      });
      expect(retries[0].data.message).toContain("attempt 1 of 3 failed (API_ERROR 503 M181091S");
      expect(retries[0].data.message).toContain("retrying in 5 ms");
      expect(fake.requests).toHaveLength(2);
      // The stderr mirror has the same line and never an undefined field.
      expect(server.stderr()).toContain("attempt 1 of 3 failed");
    });
  });

  test("at level error, the same retry sends nothing", async () => {
    await withServer(bojArgs(), async (server, seen) => {
      await server.client.setLoggingLevel("error");
      fake.enqueue({ kind: "status", status: 503 });
      expect((await server.client.callTool({ name: "boj_get_data_code", arguments: CO })).isError).toBeFalsy();
      await settle(server);
      expect(fake.requests).toHaveLength(2);
      expect(seen).toEqual([]);
    });
  });

  test("a final upstream failure is an error notification", async () => {
    await withServer(bojArgs(), async (server, seen) => {
      await server.client.setLoggingLevel("info");
      fake.enqueue({ kind: "html", status: 502 }, { kind: "html", status: 502 }, { kind: "html", status: 502 });
      await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } }).catch(() => {});
      await settle(server);
      const failure = seen.find((n) => n.level === "error");
      expect(failure?.data.message).toContain("BOJ getMetadata failed after 3 attempts: TRANSPORT_ERROR");
    });
  });

  test("a pacing wait is an info one", async () => {
    // The longest interval the flag allows, which no test outlasts: the retry 5 ms after the first
    // attempt waits for its slot however slow the machine (with 100 ms, a loaded machine's first
    // attempt could take longer than that, and then nothing waited). The wait is read, then cancelled.
    await withServer(bojArgs("--boj-min-interval-ms", "60000"), async (server, seen) => {
      await server.client.setLoggingLevel("info");
      fake.enqueue({ kind: "html", status: 502 });
      const waiting = server.nextStderrLine(/waiting \d+ ms/);
      const controller = new AbortController();
      const call = server.client
        .callTool({ name: "boj_get_metadata", arguments: { db: "CO" } }, undefined, { signal: controller.signal })
        .catch(() => {});
      await waiting;
      await settle(server);
      controller.abort();
      await call;
      const waits = seen.filter((n) => n.level === "info" && String(n.data.message).startsWith("waiting"));
      expect(waits).toHaveLength(1);
      expect(waits[0].data.wait_ms).toBeGreaterThan(30_000);
      expect(waits[0].data.message).toContain("--boj-min-interval-ms (60000 ms)");
    });
  });

  test("stderr never says status=undefined, even for failures without a status", async () => {
    await withServer(bojArgs("--log-level", "debug", "--boj-retry-max", "1"), async (server) => {
      fake.enqueue({ kind: "drop" }, { kind: "drop" });
      await server.client.callTool({ name: "boj_get_data_code", arguments: CO }).catch(() => {});
      await server.stderrLine(/failed after 2 attempts/); // the last line the failure writes
      const stderr = server.stderr();
      expect(stderr).toContain("TRANSPORT_ERROR");
      expect(stderr).not.toContain("undefined");
    });
  });
});

describe("control characters from upstream", () => {
  test("a retried 503 whose MESSAGE carries escape sequences reaches the client's log clean", async () => {
    await withServer(bojArgs(), async (server, seen) => {
      await server.client.setLoggingLevel("debug");
      fake.enqueue({ kind: "raw", status: 503, body: hostileJson(503, "M181091S") });
      expect((await server.client.callTool({ name: "boj_get_data_code", arguments: CO })).isError).toBeFalsy();
      await settle(server);
      const retry = seen.find((n) => n.level === "warning");
      expect(retry?.data.message).toContain("DB down now");
      expectClean(JSON.stringify(retry));
      expectClean(server.stderr());
    });
  });

  test("mcpkit call: a BOJ error body with ANSI/OSC sequences is stripped from stdout and stderr", async () => {
    for (const textOnly of [false, true]) {
      fake.reset();
      fake.enqueue({ kind: "raw", status: 400, body: hostileJson(400, "M181005E") });
      const result = await runCli([
        "call",
        "boj_get_data_code",
        JSON.stringify(CO),
        ...(textOnly ? ["--text"] : []),
        "--boj-base-url",
        fake.url,
        "--boj-min-interval-ms",
        "0",
      ]);
      expect(result.code).toBe(1); // an upstream failure, not a usage error (issue 19)
      expectClean(result.stdout);
      expectClean(result.stderr);
      // Said once (issue 35): with --text the error is stdout itself; otherwise stdout is JSON and stderr says it.
      expect(textOnly ? result.stdout : result.stderr).toContain("DB down now");
      if (!textOnly) expect(JSON.parse(result.stdout).error.data.message).toBe("DB down now");
    }
  });

  test("mcpkit call: a gateway page and a successful answer with escape sequences are stripped too", async () => {
    fake.enqueue({
      kind: "raw",
      status: 403,
      body: `<html><body><h1>${HOSTILE}</h1></body></html>`,
      contentType: "text/html",
    });
    const gateway = await runCli([
      "call",
      "boj_get_metadata",
      '{"db":"CO"}',
      "--boj-base-url",
      fake.url,
      "--boj-min-interval-ms",
      "0",
    ]);
    expect(gateway.code).toBe(1); // an upstream failure, not a usage error (issue 19)
    expectClean(gateway.stdout);
    expectClean(gateway.stderr);
    expect(JSON.parse(gateway.stdout).error.data.message).toBe("DB down now");

    const body = dataJson(
      {
        status: 200,
        messageId: "M181000I",
        message: HOSTILE,
        date: "2025-12-02T13:13:14.587+09:00",
        parameter: [["DB", "CO"]],
        nextPosition: null,
        series: [
          {
            code: "TK99F1000601GCQ01000",
            nameJ: `名前${HOSTILE}`,
            name: "",
            unitJ: "%",
            unit: "",
            frequency: "QUARTERLY",
            categoryJ: HOSTILE,
            category: "",
            lastUpdate: 20251002,
            points: [[202401, 11]],
          },
        ],
      },
      "JP",
    );
    fake.enqueue({ kind: "raw", status: 200, body });
    const success = await runCli([
      "call",
      "boj_get_data_code",
      JSON.stringify(CO),
      "--text",
      "--boj-base-url",
      fake.url,
      "--boj-min-interval-ms",
      "0",
    ]);
    expect(success.code).toBe(0);
    expectClean(success.stdout);
    expect(success.stdout).toContain("名前DB down now");
  });
});
