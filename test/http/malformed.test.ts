/**
 * Malformed requests get 4xx with a sentence, never 500, and never an ERROR or WARN line: they
 * arrive before authentication, so anyone could fill the log with them (issue 10 F7). Sent over
 * a raw socket, since fetch would normalise or refuse these Host headers itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type HttpServerProcess,
  PROTOCOL_VERSION,
  initializeBody,
  openRawSession,
  startHttpServer,
} from "./support.ts";

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer(["--toolsets", "boj", "--log-level", "debug"]);
});
afterAll(async () => {
  await server.stop();
});

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/** Writes `text` as-is and reads one response (the request says Connection: close). */
async function raw(text: string): Promise<RawResponse> {
  const answer = Promise.withResolvers<string>();
  let received = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data(_socket, data) {
        received += new TextDecoder().decode(data);
      },
      close() {
        answer.resolve(received);
      },
      error(_socket, error) {
        answer.reject(error);
      },
    },
  });
  socket.write(text);
  socket.flush();
  const timer = setTimeout(() => answer.reject(new Error(`no answer to ${JSON.stringify(text.slice(0, 80))}`)), 30_000);
  try {
    const response = await answer.promise;
    const split = response.indexOf("\r\n\r\n");
    return { status: Number(response.split(" ")[1]), head: response.slice(0, split), body: response.slice(split + 4) };
  } finally {
    clearTimeout(timer);
    socket.end();
  }
}

function request(lines: { method?: string; target?: string; headers: string[]; body?: string }): string {
  const body = lines.body ?? "";
  return `${lines.method ?? "POST"} ${lines.target ?? "/mcp"} HTTP/1.1\r\n${[...lines.headers, `Content-Length: ${body.length}`, "Connection: close"].join("\r\n")}\r\n\r\n${body}`;
}

const JSON_HEADERS = ["Content-Type: application/json", "Accept: application/json, text/event-stream"];

describe("malformed Host headers", () => {
  const hosts = [
    "127.0.0.1#evil",
    "evil.com@127.0.0.1",
    "127.0.0.1/x",
    "",
    "127.999.999.999",
    "127.0.0.1:99999",
    "[::1",
    "[fe80::1%25eth0]",
    "127.0.0.1:80:80",
    "a b",
    "x".repeat(5000),
    "127.0.0.1\\x",
  ];
  for (const host of hosts) {
    test(`Host ${JSON.stringify(host.slice(0, 40))} gets 400 with a sentence, not 500`, async () => {
      const response = await raw(request({ headers: [`Host: ${host}`, ...JSON_HEADERS], body: initializeBody() }));
      expect(response.status).toBe(400);
      if (response.body) {
        const message = (JSON.parse(response.body) as { error: { message: string } }).error.message;
        expect(message).toMatch(/^Bad Request: .*Host/);
        expect(message.length).toBeLessThan(400);
      }
    });
  }

  test("a request with no Host header at all gets 400 too", async () => {
    const response = await raw(
      `POST /mcp HTTP/1.1\r\n${JSON_HEADERS.join("\r\n")}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(response.status).toBe(400);
  });

  test("/healthz with a malformed Host is 400, with a well-formed one 200", async () => {
    expect((await raw(request({ method: "GET", target: "/healthz", headers: ["Host: 127.0.0.1#evil"] }))).status).toBe(
      400,
    );
    expect(
      (await raw(request({ method: "GET", target: "/healthz", headers: [`Host: 127.0.0.1:${server.port}`] }))).status,
    ).toBe(200);
  });
});

describe("other odd input answers 4xx with a sentence", () => {
  const host = () => `Host: 127.0.0.1:${server.port}`;
  test("odd methods, Content-Type, Accept, MCP-Protocol-Version and session ids", async () => {
    const sessionId = await openRawSession(server.url);
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const session = [`Mcp-Session-Id: ${sessionId}`, `MCP-Protocol-Version: ${PROTOCOL_VERSION}`];
    const cases: [string, ReturnType<typeof request>][] = [
      ["method TRACE", request({ method: "TRACE", headers: [host()] })],
      [
        "Content-Type garbage",
        request({
          headers: [host(), "Content-Type: ;;;=", "Accept: application/json, text/event-stream", ...session],
          body: ping,
        }),
      ],
      [
        "no Content-Type",
        request({ headers: [host(), "Accept: application/json, text/event-stream", ...session], body: ping }),
      ],
      [
        "Accept garbage",
        request({ headers: [host(), "Content-Type: application/json", "Accept: */*;q=x,,,", ...session], body: ping }),
      ],
      [
        "protocol version garbage",
        request({
          headers: [host(), ...JSON_HEADERS, `Mcp-Session-Id: ${sessionId}`, "MCP-Protocol-Version: ../../etc"],
          body: ping,
        }),
      ],
      [
        "session id with odd characters",
        request({
          headers: [
            host(),
            ...JSON_HEADERS,
            "Mcp-Session-Id: %00<script>'\"",
            `MCP-Protocol-Version: ${PROTOCOL_VERSION}`,
          ],
          body: ping,
        }),
      ],
      [
        "session id of 4,000 characters",
        request({ headers: [host(), ...JSON_HEADERS, `Mcp-Session-Id: ${"a".repeat(4000)}`], body: ping }),
      ],
      [
        "Origin garbage",
        request({ headers: [host(), ...JSON_HEADERS, "Origin: http://[::1"], body: initializeBody() }),
      ],
      ["Origin null", request({ headers: [host(), ...JSON_HEADERS, "Origin: null"], body: initializeBody() })],
      ["body not UTF-8 JSON", request({ headers: [host(), ...JSON_HEADERS, ...session], body: "\xff\xfe{" })],
      [
        "GET with odd Last-Event-ID",
        request({ method: "GET", headers: [host(), "Accept: text/event-stream", ...session, "Last-Event-ID: \x01x"] }),
      ],
      [
        "path with percent garbage",
        request({ target: "/mcp%zz/../%00", headers: [host(), ...JSON_HEADERS], body: ping }),
      ],
    ];
    // A method Bun's parser does not know never reaches the server: the connection is closed, no 500.
    expect(Number.isNaN((await raw(request({ method: "BREW", headers: [host(), ...JSON_HEADERS] }))).status)).toBe(
      true,
    );
    for (const [name, text] of cases) {
      const response = await raw(text);
      expect(`${name}: ${response.status}`).toMatch(/: 4\d\d$/);
      // Bun's parser answers some of these (a control character in a header) before our code; ours carry a sentence.
      if (response.body.startsWith("{"))
        expect((JSON.parse(response.body) as { error: { message: string } }).error.message.length).toBeGreaterThan(10);
    }
  });
});

// Last: it reads the log every test above produced.
test("none of it produced an ERROR or WARN line; the malformed Host refusals are logged at debug", () => {
  const log = server.stderr();
  expect(log).toContain("malformed request refused");
  const loud = log.split("\n").filter((line) => / (ERROR|WARN) /.test(line));
  expect(loud).toEqual([]);
});
