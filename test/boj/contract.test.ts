/**
 * The parts of the boj contract that only show from outside the process: retries and their
 * spacing, cancellation reaching BOJ (the request and a backoff wait), request spacing across
 * sessions and its defaults, gateway answers, the body cap under gzip, the capabilities of a
 * server without boj, and every structuredContent checked by the SDK client's own validator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { connectClient, startHttpServer } from "../http/support.ts";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
let server: RunningServer;

/** The validator the SDK client uses by default for outputSchema. */
const ajv = new AjvJsonSchemaValidator();
const CO = { db: "CO", codes: ["TK99F1000601GCQ01000"] };

const bojArgs = (...extra: string[]) => bojTestArgs(fake.url, ...extra);

async function rpcError(on: RunningServer, name: string, args: Record<string, unknown>): Promise<McpError> {
  const error = await on.client.callTool({ name, arguments: args }).then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

function gaps(): number[] {
  return fake.requests.slice(1).map((r, i) => r.at - fake.requests[i].at);
}

beforeAll(async () => {
  server = await startStdioServer({ args: bojArgs("--boj-retry-backoff-ms", "50") });
  await server.client.listTools(); // from here on the SDK client validates structuredContent against each outputSchema
});
afterAll(async () => {
  await server.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

describe('retries through the process (docs/contracts/boj.md "Retries")', () => {
  test("500 then 503 are retried after backoff·2^0 and backoff·2^1 (50 ms, 100 ms), and the third attempt answers", async () => {
    const retries = [server.nextStderrLine(/attempt 1 of/), server.nextStderrLine(/attempt 2 of/)];
    fake.enqueue({ kind: "status", status: 500 }, { kind: "status", status: 503 });
    const result = await server.client.callTool({ name: "boj_get_data_code", arguments: CO });
    expect(result.isError).toBeFalsy();
    expect(fake.requests).toHaveLength(3);
    // The waits the server announces double from the backoff; the arrivals show it waited at least that.
    const [first, second] = await Promise.all(retries);
    expect(first).toMatch(/attempt 1 of 3 failed \(.*500.*\); retrying in 50 ms/);
    expect(second).toMatch(/attempt 2 of 3 failed \(.*503.*\); retrying in 100 ms/);
    const [firstGap, secondGap] = gaps();
    expect(firstGap).toBeGreaterThanOrEqual(45);
    expect(secondGap).toBeGreaterThanOrEqual(95);
  });

  test("BOJ_RETRY_MAX from the environment bounds the attempts; 400 and DECODE_ERROR are never retried", async () => {
    const one = await startStdioServer({ args: bojArgs("--boj-retry-backoff-ms", "1"), env: { BOJ_RETRY_MAX: "1" } });
    try {
      fake.enqueue({ kind: "status", status: 503 }, { kind: "status", status: 503 }, { kind: "status", status: 503 });
      const error = await rpcError(one, "boj_get_data_code", CO);
      expect(error.code).toBe(-32603);
      expect(error.data).toMatchObject({ error_type: "API_ERROR", status: 503, message_id: "M181091S" });
      expect(fake.requests).toHaveLength(2);

      fake.reset();
      expect((await rpcError(one, "boj_get_data_code", { db: "CO", codes: ["NOPE"] })).code).toBe(-32602);
      expect(fake.requests).toHaveLength(1);

      fake.reset();
      fake.enqueue({ kind: "raw", status: 200, body: "STATUS,200\nnot,a,boj,csv", contentType: "text/plain" });
      const decode = await rpcError(one, "boj_get_data_code", CO);
      expect(decode.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(fake.requests).toHaveLength(1);
    } finally {
      await one.close();
    }
  });

  test("503 with Retry-After: 3600 gets one request, and the error tells the model to come back in an hour", async () => {
    fake.enqueue({ kind: "status", status: 503, headers: { "retry-after": "3600" } });
    const error = await rpcError(server, "boj_get_data_code", CO);
    expect(fake.requests).toHaveLength(1);
    expect(error.code).toBe(-32603);
    expect(error.message).toContain(
      "BOJ asked to retry after 3600 s (about 1 h) (Retry-After): do not call boj_get_data_code again before then",
    );
    expect(error.data).toMatchObject({ error_type: "API_ERROR", status: 503, retry_after_s: 3600 });
  });

  test("a retry still keeps --boj-min-interval-ms from the previous attempt when that is longer than the backoff", async () => {
    const paced = await startStdioServer({
      args: [
        "--toolsets",
        "boj",
        "--boj-base-url",
        fake.url,
        "--boj-cache-bytes",
        "0",
        "--boj-min-interval-ms",
        "10000",
        "--boj-retry-backoff-ms",
        "5",
      ],
    });
    try {
      // After the 5 ms backoff the retry still waits for the slot 10 s after the first attempt, and
      // says so; it is cancelled then, so neither the test nor arrival times on a loaded machine
      // decide (the first request, which opens the connection, can arrive late by more than 100 ms).
      fake.enqueue({ kind: "status", status: 500 });
      const backoff = paced.nextStderrLine(/retrying in 5 ms/);
      const paceWait = paced.nextStderrLine(/waiting \d+ ms before calling BOJ getDataCode/);
      const cancel = new AbortController();
      const call = paced.client
        .callTool({ name: "boj_get_data_code", arguments: CO }, undefined, { signal: cancel.signal })
        .catch((error: Error) => error);
      await backoff;
      const line = await paceWait;
      cancel.abort();
      expect(await call).toBeInstanceOf(Error);
      expect(Number(/waiting (\d+) ms/.exec(line)?.[1])).toBeGreaterThan(5_000);
      expect(line).toContain("spaced by --boj-min-interval-ms (10000 ms)");
      expect(fake.requests).toHaveLength(1);
    } finally {
      await paced.close();
    }
  });
});

describe("cancellation reaches BOJ", () => {
  test("cancelling a call aborts the BOJ request in flight (BOJ sees the connection close)", async () => {
    fake.enqueue({ kind: "delay", ms: 60_000 }); // after the test's own timeout: only the cancel ends it
    const controller = new AbortController();
    const call = server.client.callTool({ name: "boj_get_data_code", arguments: CO }, undefined, {
      signal: controller.signal,
    });
    while (fake.requests.length === 0) await Bun.sleep(5);
    expect(fake.requests).toHaveLength(1);
    controller.abort();
    await call.catch(() => {});
    while (!fake.requests[0].aborted) await Bun.sleep(5);
    expect(fake.requests[0].aborted).toBe(true);
  });

  test("a call cancelled during its backoff wait sends no retry, and the server answers the next call at once", async () => {
    // A backoff longer than the test may run: nothing here waits for it. That the cancel cuts the
    // wait itself is client.test.ts's "aborts a backoff wait at once".
    const slow = await startStdioServer({ args: bojArgs("--boj-retry-backoff-ms", "60000") });
    try {
      fake.enqueue({ kind: "status", status: 500 });
      const waiting = slow.nextStderrLine(/retrying in 60000 ms/);
      const controller = new AbortController();
      const call = slow.client.callTool({ name: "boj_get_data_code", arguments: CO }, undefined, {
        signal: controller.signal,
      });
      await waiting; // the 500 has been answered; the server is in its backoff
      controller.abort();
      await call.catch(() => {});
      expect((await slow.client.callTool({ name: "boj_get_data_code", arguments: CO })).isError).toBeFalsy();
      expect(fake.requests).toHaveLength(2); // the 500 and the next call, no retry
    } finally {
      await slow.close();
    }
  });
});

describe("--boj-min-interval-ms", () => {
  test("spaces requests across two HTTP sessions of one process", async () => {
    const http = await startHttpServer([
      "--toolsets",
      "boj",
      "--boj-base-url",
      fake.url,
      "--boj-cache-bytes",
      "0",
      "--boj-min-interval-ms",
      "200",
    ]);
    const sessions = await Promise.all([connectClient(http.url), connectClient(http.url)]);
    try {
      await Promise.all(
        [0, 1, 0, 1].map((i) => sessions[i].client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } })),
      );
      expect(fake.requests).toHaveLength(4);
      // The waits the process announces, not arrival times (which a loaded machine blurs): three
      // calls waited, the last about three intervals (600 ms). Were each session paced on its own,
      // none would wait more than one (200 ms).
      const waits = [...http.stderr().matchAll(/waiting (\d+) ms before calling BOJ/g)].map((m) => Number(m[1]));
      expect(waits).toHaveLength(3);
      expect(Math.max(...waits)).toBeGreaterThan(300);
    } finally {
      await Promise.all(sessions.map((s) => s.client.close()));
      await http.stop();
    }
  });

  test("defaults to 1000 ms, and BOJ_MIN_INTERVAL_MS sets it from the environment", async () => {
    const byDefault = await startStdioServer({
      args: ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-cache-bytes", "0"],
    });
    // The longest interval the variable takes: the second call must wait however slow the machine.
    const fromEnv = await startStdioServer({
      args: ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-cache-bytes", "0"],
      env: { BOJ_MIN_INTERVAL_MS: "60000" },
    });
    try {
      const { line, withinMs } = await secondCallWaits(byDefault);
      expect(line).toContain("spaced by --boj-min-interval-ms (1000 ms)");
      // The interval less what passed between the two reservations, which the test's own view bounds:
      // exact on a machine of any speed (a fixed "> 900" would fail wherever 100 ms went by in between).
      const wait = Number(/waiting (\d+) ms/.exec(line)?.[1]);
      expect(wait).toBeLessThanOrEqual(1000);
      expect(wait).toBeGreaterThanOrEqual(1000 - withinMs);
      expect(fake.requests).toHaveLength(1);

      fake.reset();
      const { line: fromEnvLine } = await secondCallWaits(fromEnv);
      expect(fromEnvLine).toContain("spaced by --boj-min-interval-ms (60000 ms)");
      expect(fake.requests).toHaveLength(1);
    } finally {
      await Promise.all([byDefault.close(), fromEnv.close()]);
    }
  });
});

/**
 * Two concurrent calls: the first answers, the second says how long it waits for its slot and is
 * then cancelled, so the interval is never waited out. The line the second call logged.
 */
/**
 * Two calls at once: the second waits for the first's slot. Returns the wait it announced and how
 * long the test saw pass from sending both calls to reading that line, which bounds the time the
 * server can have taken between the first call's slot and the second's reservation.
 */
async function secondCallWaits(on: RunningServer): Promise<{ line: string; withinMs: number }> {
  const metadata = { name: "boj_get_metadata", arguments: { db: "CO" } };
  const announced = on.nextStderrLine(/waiting \d+ ms before calling BOJ/).then((line) => ({
    line,
    seen: performance.now(),
  }));
  const cancel = new AbortController();
  const sent = performance.now();
  const [first, second] = [
    on.client.callTool(metadata),
    on.client.callTool(metadata, undefined, { signal: cancel.signal }).catch((error: Error) => error),
  ];
  expect((await first).isError).toBeFalsy();
  const { line, seen } = await announced;
  cancel.abort();
  expect(await second).toBeInstanceOf(Error);
  return { line, withinMs: seen - sent };
}

describe("gateway answers and the body cap", () => {
  test("an HTML 400 (over-long URL) is -32602 API_ERROR with HTTP status 400, no message_id and a ≤ 500-character excerpt", async () => {
    const page = `<html><head><title>400 Bad Request</title><style>body{}</style></head><body><h1>Request-URI Too Long</h1><p>${"The requested URL is too long. ".repeat(60)}</p></body></html>`;
    fake.enqueue({ kind: "raw", status: 400, body: page, contentType: "text/html" });
    const error = await rpcError(server, "boj_get_data_code", CO);
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ error_type: "API_ERROR", status: 400, message_id: null });
    const message = (error.data as { message: string }).message;
    expect(message).toStartWith("400 Bad Request Request-URI Too Long");
    expect(message.length).toBeLessThanOrEqual(500);
    expect(message).not.toContain("<");
    expect(fake.requests).toHaveLength(1); // a 4xx is not retried
  });

  test("an HTML 403 is -32603 API_ERROR with status 403 and is not retried", async () => {
    fake.enqueue({
      kind: "raw",
      status: 403,
      body: "<html><body><h1>Access denied</h1></body></html>",
      contentType: "text/html",
    });
    const error = await rpcError(server, "boj_get_metadata", { db: "CO" });
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({
      error_type: "API_ERROR",
      status: 403,
      message_id: null,
      message: "Access denied",
    });
    expect(fake.requests).toHaveLength(1);
  });

  test("a gzip bomb (small on the wire, huge inflated) is a DECODE_ERROR, not an out-of-memory; so is a truncated gzip body", async () => {
    const capped = await startStdioServer({
      args: bojArgs("--boj-max-body-bytes", "1048576", "--boj-retry-backoff-ms", "1"),
    });
    try {
      const bomb = Bun.gzipSync(new Uint8Array(64 * 1024 * 1024).fill(0x20));
      expect(bomb.byteLength).toBeLessThan(1024 * 1024);
      fake.enqueue({
        kind: "raw",
        status: 200,
        body: bomb,
        contentType: "application/json",
        headers: { "content-encoding": "gzip" },
      });
      const error = await rpcError(capped, "boj_get_metadata", { db: "CO" });
      expect(error.code).toBe(-32603);
      expect(error.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(error.message).toContain("1048576-byte cap");
      expect(fake.requests).toHaveLength(1);

      fake.reset();
      const corrupt = Bun.gzipSync(new TextEncoder().encode('{"STATUS":200}'.repeat(100))).slice(0, 40);
      fake.enqueue({
        kind: "raw",
        status: 200,
        body: corrupt,
        contentType: "application/json",
        headers: { "content-encoding": "gzip" },
      });
      const broken = await rpcError(capped, "boj_get_metadata", { db: "CO" });
      expect(broken.code).toBe(-32603);
      expect(broken.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(broken.message).toContain("gzip");
    } finally {
      await capped.close();
    }
  });
});

describe("client-side limits", () => {
  test("1,251 codes are a VALIDATION_ERROR before any request; 1,250 are sent", async () => {
    const codes = Array.from({ length: 1251 }, (_, i) => `C${i}`);
    const error = await rpcError(server, "boj_get_data_code", { db: "CO", codes });
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ error_type: "VALIDATION_ERROR" });
    expect(error.message).toContain("1,250");
    expect(fake.requests).toHaveLength(0);
    await rpcError(server, "boj_get_data_code", { db: "CO", codes: codes.slice(0, 1250) }); // unknown codes: BOJ's M181013E
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].query.get("code")?.split(",")).toHaveLength(1250);
  });
});

describe("outputSchema", () => {
  test("the outputSchema, under the SDK client's own validator, rejects a value that is not number|null and a missing field", async () => {
    const { tools } = await server.client.listTools();
    const validators = new Map(tools.map((tool) => [tool.name, ajv.getValidator(tool.outputSchema!)]));
    expect(validators.size).toBe(7);
    const validate = validators.get("boj_get_data_code")!;
    const good = (await server.client.callTool({ name: "boj_get_data_code", arguments: CO }))
      .structuredContent as Record<string, any>;
    expect(validate(good).valid).toBe(true);
    const stringValue = structuredClone(good);
    stringValue.series[0].points[0].value = "11";
    expect(validate(stringValue).valid).toBe(false);
    const nullValue = structuredClone(good);
    nullValue.series[0].points[0].value = null;
    expect(validate(nullValue).valid).toBe(true);
    const missingField = structuredClone(good);
    delete missingField.series[0].unit;
    expect(validate(missingField).valid).toBe(false);
  });

  test("every structuredContent the tools return passes the SDK client's validation", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["boj_get_data_code", { ...CO, start_date: "202401", end_date: "202504", include_raw: true }],
      ["boj_get_data_code", { db: "BP01", codes: ["BPBP6JYNCB"], format: "csv" }],
      ["boj_get_data_code", { db: "BP01", codes: ["BPBP6JYNCB"], format: "CSV", lang: "EN", include_raw: true }],
      ["boj_get_data_code", { db: "PR01", codes: ["PRCG20_2200000000"], format: "csv" }],
      ["boj_get_data_code", { ...CO, start_date: "195001", end_date: "195004" }],
      ["boj_get_data_layer", { db: "MD10", frequency: "Q", layers: ["*"], lang: "en" }],
      ["boj_get_data_layer", { db: "MD10", frequency: "q", layers: ["*"], format: "csv", start_position: 255 }],
      ["boj_get_metadata", { db: "FM08" }],
      ["boj_get_metadata", { db: "FM08", format: "csv", include_raw: true }],
      ["boj_get_metadata", { db: "FM08", lang: "en" }],
      ["boj_list_databases", {}],
      ...["all", "get_data_code", "get_data_layer", "get_metadata"].map(
        (endpoint): [string, Record<string, unknown>] => ["boj_get_parameter_catalog", { endpoint }],
      ),
      ["boj_get_parameter_catalog", {}],
      ["boj_get_message_catalog", {}],
      ...[200, 400, 500, 503].map((status): [string, Record<string, unknown>] => [
        "boj_get_message_catalog",
        { status },
      ]),
    ];
    for (const [name, args] of calls) {
      // callTool itself throws when structuredContent breaks the outputSchema (listTools ran in beforeAll).
      const result = await server.client.callTool({ name, arguments: args });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeDefined();
    }
  });
});

describe("without boj", () => {
  test("a server whose toolsets have no resources or prompts advertises no resources, prompts or completions", async () => {
    const root = mkdtempSync(join(tmpdir(), "mcpkit-boj-off-"));
    const other = await startStdioServer({ args: ["--toolsets", "fs", "--root", root] });
    try {
      const capabilities = other.client.getServerCapabilities() ?? {};
      expect(capabilities.tools).toBeDefined();
      expect(capabilities.resources).toBeUndefined();
      expect(capabilities.prompts).toBeUndefined();
      expect(capabilities.completions).toBeUndefined();
      const { tools } = await other.client.listTools();
      expect(tools.some((t) => t.name.startsWith("boj_"))).toBe(false);
      // The client refuses to send these itself when the capability is absent; ask over the raw transport.
      const reply = new Promise<{ error?: { code: number } }>((resolve) => {
        const previous = other.transport.onmessage;
        other.transport.onmessage = (message) => {
          if ("id" in message && message.id === "raw-1") resolve(message as never);
          else previous?.(message);
        };
      });
      await other.transport.send({
        jsonrpc: "2.0",
        id: "raw-1",
        method: "resources/read",
        params: { uri: "boj://catalog/databases" },
      });
      expect((await reply).error?.code).toBe(-32601);
    } finally {
      await other.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
