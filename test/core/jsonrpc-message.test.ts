/**
 * One JSON-RPC message check for stdio and HTTP (src/mcp/protocol/message.ts): the same malformed
 * message gets the same -32600 sentence on both transports, naming what to fix.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HttpServerProcess, MCP_HEADERS, startHttpServer } from "../http/support.ts";
import { until } from "../modern/support.ts";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";

const CASES: [string, unknown, string][] = [
  ["a batch", [{ jsonrpc: "2.0", id: 1, method: "ping" }], "batches are not supported"],
  ["not an object", "ping", "expected a JSON-RPC 2.0 message object"],
  ["another JSON-RPC version", { jsonrpc: "1.0", id: 1, method: "ping" }, '"jsonrpc" must be "2.0"'],
  ["an empty method", { jsonrpc: "2.0", id: 2, method: "" }, '"method" must be a non-empty string'],
  [
    "params that are not an object",
    { jsonrpc: "2.0", id: 3, method: "ping", params: [1] },
    '"params" must be an object',
  ],
  ["a fractional id", { jsonrpc: "2.0", id: 1.5, method: "ping" }, '"id" must be a string or an integer'],
  // Past 2^53 the parser has rounded it: it could not be answered under the id the client sent.
  ["an id past 2^53", { jsonrpc: "2.0", id: 2 ** 53, method: "ping" }, "send larger ids as strings"],
  [
    "an id of 20 digits",
    JSON.parse('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}'),
    "within ±(2^53 − 1)",
  ],
  ["neither method nor result", { jsonrpc: "2.0", id: 4 }, 'expected "method"'],
];

/** A response the client sent malformed: over HTTP its POST is answered 400; over stdio nothing answers a response. */
const MALFORMED_RESPONSE = { jsonrpc: "2.0", id: 5, error: { code: "x" } };

let http: HttpServerProcess;
let stdio: RawServer;
beforeAll(async () => {
  http = await startHttpServer(["--toolsets", "boj"]);
  stdio = startRawServer(["--toolsets", "boj"]);
  await stdio.initialize();
});
afterAll(async () => {
  stdio?.kill("SIGKILL");
  await http?.stop();
});

async function overHttp(message: unknown) {
  const response = await fetch(http.url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(message) });
  return {
    status: response.status,
    body: (await response.json()) as { id?: unknown; error: { code: number; message: string } },
  };
}

describe("one JSON-RPC message check on both transports", () => {
  test("each malformed message gets -32600 with the same sentence over stdio and HTTP (400)", async () => {
    const before = stdio.lines().length;
    for (const [, message] of CASES) stdio.send(JSON.stringify(message));
    await until(() => stdio.lines().length >= before + CASES.length, "an answer to each malformed line");
    const stdioAnswers = stdio
      .lines()
      .slice(before)
      .map((line) => JSON.parse(line));
    for (const [index, [what, message, words]] of CASES.entries()) {
      const overStdio = stdioAnswers[index];
      const { status, body } = await overHttp(message);
      expect(status, what).toBe(400);
      expect(body.error.code, what).toBe(-32600);
      expect(body.error.message, what).toContain(words);
      expect(overStdio.error, what).toEqual(body.error);
      expect(overStdio.id ?? null, what).toEqual(body.id ?? null);
    }
  });

  test("a malformed response: HTTP answers its POST 400 -32600; stdio answers nothing, as JSON-RPC never answers a response", async () => {
    const { status, body } = await overHttp(MALFORMED_RESPONSE);
    expect(status).toBe(400);
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('"error" must be an object');
    const before = stdio.lines().length;
    stdio.send(JSON.stringify(MALFORMED_RESPONSE));
    stdio.send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }));
    await until(() => stdio.lines().length >= before + 1, "the ping's answer");
    // Its -32600 went out under id 5 before, where a client's own request 5 would take it as its answer.
    expect(
      stdio
        .lines()
        .slice(before)
        .map((line) => JSON.parse(line)),
    ).toEqual([{ jsonrpc: "2.0", id: 6, result: {} }]);
  });
});
