/**
 * `mcpkit health URL` reads only what it shows of the answer (200 characters): a /healthz that
 * sends an endless body is still a quick, bounded answer. Before, the whole body was read, so such
 * an answer ran into the 3 s timeout ("no answer") with everything that had come held in memory.
 */
import { afterAll, expect, test } from "bun:test";
import { endlessAnswer } from "../support/endless-body.ts";
import { runCli } from "../support/mcp.ts";

let sent = () => 0;
const endless = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch() {
    const answer = endlessAnswer(`ok ${"x".repeat(64 * 1024)}`, "text/plain");
    sent = answer.sent;
    return answer.response;
  },
});
afterAll(() => endless.stop(true));

test("an endless /healthz answer: status and the first 200 characters, exit 0", async () => {
  const { code, stdout, stderr } = await runCli(["health", `http://127.0.0.1:${endless.port}/healthz`]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(stdout).toBe(`200 ok ${"x".repeat(197)}\n`);
  expect(sent()).toBeLessThan(16 * 1024 * 1024);
});

/**
 * fetch reads file: and data: URLs too and calls what it read a 200: `health file:///etc/passwd` printed
 * the file and exited 0 (healthy). Only http(s) is taken now, a usage error (exit 2) otherwise.
 */
test.each([
  ["file:///etc/passwd", "file:///etc/passwd"],
  ["data:text/plain,ok", "data:text/plain,ok"],
  ["not a URL", "127.0.0.1:8080/healthz"],
])("%s: refused as not an http(s) URL, nothing fetched, exit 2", async (_, url) => {
  const { code, stdout, stderr } = await runCli(["health", url]);
  expect(stdout).toBe("");
  expect(stderr).toBe(
    `mcpkit: 'mcpkit health' takes the http:// or https:// URL of a server's /healthz, such as http://127.0.0.1:8080/healthz (got ${JSON.stringify(url)})\n`,
  );
  expect(code).toBe(2);
});

test("an unreachable URL with a user name and password: neither is printed", async () => {
  // A port that was just free on loopback: connecting is refused at once.
  const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = closed.port;
  await closed.stop(true);
  const { code, stdout, stderr } = await runCli(["health", `http://admin:HUNTER2@127.0.0.1:${port}/healthz`]);
  expect(stdout).toBe("");
  expect(stderr).not.toContain("HUNTER2");
  expect(stderr).not.toContain("admin");
  expect(stderr).toBe(`mcpkit: ***@127.0.0.1:${port}/healthz is unreachable\n`);
  expect(code).toBe(1);
});

test("a second argument is refused (exit 2) before anything is asked, not ignored", async () => {
  // Before: the extra word was dropped and the first URL's check reported alone.
  const { code, stdout, stderr } = await runCli(["health", "http://127.0.0.1:9/healthz", "extra"]);
  expect(code).toBe(2);
  expect(stdout).toBe("");
  expect(stderr).toContain("'mcpkit health' takes one URL at most, got 2 arguments; usage: mcpkit health [URL]");
});
