/**
 * `/healthz` and the Host header (issue 34, "Also"): probes that name any Host still get the
 * status, but what the server holds (open sessions, tool calls) is shown only to a Host that /mcp
 * accepts, so a page that rebinds its own name to a loopback server learns nothing more. Raw
 * HTTP/1.1 over a socket, so the Host header is exactly what a rebinding browser sends.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { type HttpServerProcess, openRawSession, startHttpServer } from "./support.ts";

let server: HttpServerProcess;

beforeAll(async () => {
  server = await startHttpServer(["--toolsets", "boj", "--boj-base-url", "http://127.0.0.1:9"]);
  await openRawSession(server.url);
});
afterAll(() => server?.stop());

/** GET /healthz with exactly these headers; the status and the JSON body. */
function healthz(headers: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      text += chunk;
    });
    socket.on("error", reject);
    socket.on("end", () => {
      const [head, body] = text.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), body: JSON.parse(body) });
    });
    socket.write(`GET /healthz HTTP/1.1\r\n${headers.map((line) => `${line}\r\n`).join("")}Connection: close\r\n\r\n`);
  });
}

test("a rebinding page's Host (or Origin) gets the status alone; the server's own Host gets the counts", async () => {
  const own = await healthz([`Host: 127.0.0.1:${server.port}`]);
  expect(own).toEqual({ status: 200, body: { status: "ok", sessions: 1, calls: { running: 0, waiting: 0 } } });
  const rebound = await healthz(["Host: evil.example"]);
  expect(rebound).toEqual({ status: 200, body: { status: "ok" } });
  const foreignOrigin = await healthz([`Host: localhost:${server.port}`, "Origin: http://evil.example"]);
  expect(foreignOrigin).toEqual({ status: 200, body: { status: "ok" } });
});
