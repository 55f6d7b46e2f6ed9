/**
 * A value a client sends is repeated in an error message only cut to a few dozen characters and
 * never by a recursion its depth can overflow: over HTTP (no line-depth cap, unlike stdio) a field
 * nested 60,000 deep turned a bad argument into a 500 / -32603 "Internal error" with an ERROR log
 * line any client could write (JSON.stringify spent 1.6 s of CPU on each such value before its
 * stack overflowed), and a 500 KB value was echoed whole. Each case here gets the -32602
 * that names its field, both eras, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MODERN, meta } from "../modern/support.ts";
import { type HttpServerProcess, MCP_HEADERS, PROTOCOL_VERSION, openRawSession, startHttpServer } from "./support.ts";

const DEEP = `${"[".repeat(60_000)}${"]".repeat(60_000)}`;
const HUGE = JSON.stringify("x".repeat(500_000));

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer(["--toolsets", "boj"]);
});
afterAll(async () => {
  await server?.stop();
});

/** A JSON-RPC body whose `params` text is spliced in as written (the test's own JSON.stringify would overflow too). */
const bodyWith = (method: string, paramsJson: string) =>
  `{"jsonrpc":"2.0","id":7,"method":"${method}","params":${paramsJson}}`;
const envelope = (extra = "") => `"_meta":${JSON.stringify(meta()).slice(0, -1)}${extra ? `,${extra}` : ""}}`;

async function postModern(method: string, paramsJson: string, headers: Record<string, string> = {}) {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": method, ...headers },
    body: bodyWith(method, paramsJson),
  });
  const text = await response.text();
  return { status: response.status, text, error: JSON.parse(text).error as { code: number; message: string } };
}

async function postInSession(session: string, method: string, paramsJson: string) {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION },
    body: bodyWith(method, paramsJson),
  });
  const text = await response.text();
  return { status: response.status, text, error: JSON.parse(text).error as { code: number; message: string } };
}

function expectNamedRefusal(answer: { text: string; error: { code: number; message: string } }, field: string) {
  expect(answer.error.code).toBe(-32602);
  expect(answer.error.message).toContain(field);
  expect(answer.text.length).toBeLessThan(2_000);
}

describe("2026-07-28", () => {
  test("a log level nested 60,000 deep: 400 / -32602 naming the field, not an internal error", async () => {
    const answer = await postModern("tools/list", `{${envelope(`"io.modelcontextprotocol/logLevel":${DEEP}`)}}`);
    expect(answer.status).toBe(400);
    expectNamedRefusal(answer, "io.modelcontextprotocol/logLevel");
    expect(answer.error.message).toContain("(got [[[[[[[[");
  });

  test("a 500 KB log level is repeated cut, not whole", async () => {
    const answer = await postModern("tools/list", `{${envelope(`"io.modelcontextprotocol/logLevel":${HUGE}`)}}`);
    expect(answer.status).toBe(400);
    expectNamedRefusal(answer, "io.modelcontextprotocol/logLevel");
  });

  test("tool arguments nested 60,000 deep: -32602 naming the argument", async () => {
    const answer = await postModern(
      "tools/call",
      `{"name":"boj_get_metadata","arguments":{"db":${DEEP}},${envelope()}}`,
      { "mcp-name": "boj_get_metadata" },
    );
    expectNamedRefusal(answer, "db");
  });

  test("a tool name that is not a string is refused as such, not as a header mismatch", async () => {
    const answer = await postModern("tools/call", `{"name":5,"arguments":{},${envelope()}}`, { "mcp-name": "5" });
    expectNamedRefusal(answer, '"name": expected a string');
  });
});

describe("2025-11-25", () => {
  test("logging/setLevel and completion/complete with values nested 60,000 deep: -32602 naming the field", async () => {
    const session = await openRawSession(server.url);
    expectNamedRefusal(await postInSession(session, "logging/setLevel", `{"level":${DEEP}}`), '"level"');
    expectNamedRefusal(
      await postInSession(
        session,
        "completion/complete",
        `{"ref":{"type":${DEEP}},"argument":{"name":"a","value":"b"}}`,
      ),
      '"ref.type"',
    );
  });
});

test("none of it reached the log as a failure of the server", async () => {
  const ping = await fetch(server.url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
    body: bodyWith("server/discover", `{${envelope()}}`),
  });
  expect(ping.status).toBe(200);
  await ping.text();
  expect(server.stderr()).not.toContain("ERROR");
  expect(server.stderr()).not.toContain("Maximum call stack");
});
