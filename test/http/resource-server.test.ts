/**
 * Unit checks of the resource server that are not visible from outside the process.
 */
import { expect, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { createResourceServer } from "../../src/mcp/http/auth/resource-server.ts";

test("authenticating many distinct tokens registers none of them with the logger (its redaction list would grow without bound)", async () => {
  const lines: string[] = [];
  const log = createLogger("trace", (line) => lines.push(line));
  let registered = 0;
  const redact = log.redact;
  log.redact = (secret) => {
    registered++;
    redact(secret);
  };
  const server = createResourceServer({
    resource: "http://127.0.0.1:1/mcp",
    issuer: "http://127.0.0.1:9",
    audience: ["http://127.0.0.1:1/mcp"],
    requiredScopes: [],
    scopesSupported: ["boj:read"],
    log,
  });
  const tokens = Array.from({ length: 200 }, (_, i) => `eyJhbGciOiJub25lIn0.eyJzdWIiOiJ${i}In0.sig${i}`);
  for (const token of tokens) {
    const result = await server.authenticate(
      new Request("http://127.0.0.1:1/mcp", { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    );
    expect(result).toBeInstanceOf(Response);
    const response = result as Response;
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain(token);
    expect(response.headers.get("www-authenticate")).not.toContain(token);
  }
  expect(registered).toBe(0);
  expect(lines.some((line) => tokens.some((token) => line.includes(token)))).toBe(false);
});
