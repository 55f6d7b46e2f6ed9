/**
 * One error-to-reply function for both eras (src/mcp/protocol/errors.ts): a request whose handler
 * throws an error that is not a ProtocolError is answered -32603 without the error's message (it
 * may name a path, as here), in the 2025 era as in 2026-07-28; the message goes to the server log.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { ErrorCode } from "../../src/core/tool.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";
import { meta } from "../modern/support.ts";
import { BROKEN_URI, SECRET_PATH } from "./fixtures/failing-server.ts";

const FIXTURE = resolve(REPO_ROOT, "test/protocol/fixtures/failing-server.ts");

let server: RawServer | undefined;
afterEach(async () => {
  server?.closeStdin();
  await server?.exited;
  server = undefined;
});

function start(): RawServer {
  server = startRawServer([], {}, [process.execPath, FIXTURE]);
  return server;
}

/** The error a client reads, and then the server log once the process has exited. */
async function failureAndLog(open: RawServer, request: Record<string, unknown>) {
  open.send(request);
  const { error } = (await open.response(request.id as number)) as { error: { code: number; message: string } };
  open.closeStdin();
  await open.exited;
  return { error, log: open.stderr() };
}

/** -32603 pointing at the server log, which holds the path the client must not see. */
function expectHidden(error: { code: number; message: string }, log: string): void {
  expect(error.code).toBe(ErrorCode.InternalError);
  expect(JSON.stringify(error)).not.toContain(SECRET_PATH);
  expect(error.message).toContain("server log");
  expect(log).toContain(SECRET_PATH);
}

describe("a failure of ours never shows its message to a client", () => {
  test("2025-11-25 session: -32603, no path; the path is in the server log", async () => {
    const open = start();
    await open.initialize();
    const { error, log } = await failureAndLog(open, {
      jsonrpc: "2.0",
      id: 1,
      method: "resources/read",
      params: { uri: BROKEN_URI },
    });
    expectHidden(error, log);
  });

  test("2026-07-28: the same answer, from the same function", async () => {
    const open = start();
    const { error, log } = await failureAndLog(open, {
      jsonrpc: "2.0",
      id: 1,
      method: "resources/read",
      params: { uri: BROKEN_URI, _meta: meta() },
    });
    expectHidden(error, log);
  });
});
