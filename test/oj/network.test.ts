/**
 * docs/contracts/oj.md §5 and §3 from outside the process: for any network-level failure (connection
 * closed, garbage or cut-off responses, a server that stalls before or during the body) the tool
 * call is a JSON-RPC -32603 error, within the timeout, and the server keeps serving.
 * The upstream is a raw TCP listener on loopback, so each failure is produced byte by byte.
 *
 * Two servers on that listener: only a stall meets the 200 ms timeout (`hasty`); every other
 * answer goes to one whose timeout (30 s, the flag's most) outlasts the test, so what the upstream
 * did ends it, never a clock. A good answer through the 200 ms server failed "timed out" on a
 * loaded machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";

const TIMEOUT_MS = 200;
/** --oj-timeout-ms's most: no call to `patient` ends by its timeout before the test's own 30 s. */
const PATIENT_TIMEOUT_MS = 30_000;
const PROBLEM = JSON.stringify({
  id: "1",
  source: "leetcode",
  slug: "two-sum",
  title: "Two Sum",
  tags: [],
  content: "<p>x</p>",
});

const FAILURES = {
  /** Accepts, then closes without a byte. */
  close: (socket: Socket) => void socket.end(),
  /** Not HTTP at all. */
  garbage: (socket: Socket) => void socket.end("SSH-2.0-OpenSSH_9.6\r\n\r\n"),
  /** The status line and half a header, then the connection ends. */
  "cut-headers": (socket: Socket) => void socket.end("HTTP/1.1 200 OK\r\nContent-Ty"),
  /** A complete head promising 100 bytes, then 6 bytes and the end. */
  "cut-body": (socket: Socket) =>
    void socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":'),
  /** Never answers (the timeout must fire). */
  "stall-headers": (_socket: Socket) => {},
  /** Sends the head and part of the body, then nothing (the timeout must cover the body too). */
  "stall-body": (socket: Socket) =>
    void socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":'),
} as const;
type Failure = keyof typeof FAILURES | "ok";

let mode: Failure = "ok";
let listener: TCPSocketListener<undefined>;
let hasty: RunningServer;
let patient: RunningServer;
const open = new Set<Socket>();

beforeAll(async () => {
  listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (socket) => void open.add(socket),
      close: (socket) => void open.delete(socket),
      data(socket) {
        if (mode === "ok") {
          socket.end(
            `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(PROBLEM)}\r\nConnection: close\r\n\r\n${PROBLEM}`,
          );
        } else {
          FAILURES[mode](socket);
        }
      },
    },
  });
  const withTimeout = (ms: number) =>
    startStdioServer({
      args: ["--toolsets", "oj", "--oj-base-url", `http://127.0.0.1:${listener.port}`, "--oj-timeout-ms", String(ms)],
    });
  [hasty, patient] = await Promise.all([withTimeout(TIMEOUT_MS), withTimeout(PATIENT_TIMEOUT_MS)]);
});
afterAll(async () => {
  await Promise.all([hasty?.close(), patient?.close()]);
  for (const socket of open) socket.end();
  listener?.stop(true);
});

async function callWith(failure: Failure, server = patient): Promise<{ outcome: unknown; ms: number }> {
  mode = failure;
  const started = performance.now();
  let outcome: unknown;
  try {
    outcome = await server.client.callTool({ name: "get_problem", arguments: { source: "leetcode", id: "1" } });
  } catch (error) {
    outcome = error;
  }
  // Release sockets a stalling mode left open, so the next run starts clean.
  for (const socket of open) socket.end();
  return { outcome, ms: performance.now() - started };
}

describe("network failures (contract §5)", () => {
  test("the listener answers normally when asked to (the harness itself works)", async () => {
    const { outcome } = await callWith("ok");
    expect((outcome as { content: { text: string }[] }).content[0].text).toStartWith("# Two Sum\n");
  });

  // Each failure once, in turn, rather than a random sample of them: every one is always covered.
  // No wall-clock window: a stall is ended by the 200 ms timeout ("timed out", not before it), and
  // every other failure by what the upstream did (never "timed out", with 30 s to spare).
  test.each(Object.keys(FAILURES) as (keyof typeof FAILURES)[])(
    "%s: JSON-RPC -32603 naming the request, and the server keeps serving",
    async (failure) => {
      const stall = failure.startsWith("stall");
      const server = stall ? hasty : patient;
      const { outcome, ms } = await callWith(failure, server);
      expect(outcome, failure).toBeInstanceOf(McpError);
      expect((outcome as McpError).code).toBe(-32603);
      expect((outcome as McpError).message).toContain("GET /api/v1/problems/leetcode/1");
      if (stall) {
        expect((outcome as McpError).message).toContain("timed out");
        expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
      } else {
        expect((outcome as McpError).message).not.toContain("timed out");
      }
      if (stall) {
        // Still answering, and still asking the upstream (a 200 ms call ends either way, so only
        // that it is answered as the same -32603 counts, not whether the answer beat the clock).
        await server.client.ping();
        const { outcome: next } = await callWith("close", server);
        expect((next as McpError).message).toContain("GET /api/v1/problems/leetcode/1");
      } else {
        const { outcome: after } = await callWith("ok", server);
        expect((after as { content: { text: string }[] }).content[0].text).toStartWith("# Two Sum\n");
      }
    },
  );
});
