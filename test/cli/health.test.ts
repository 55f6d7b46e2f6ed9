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
