/**
 * MCP 2025-11-25, Authorization, "Access Token Privilege Restriction" (and Security Best Practices,
 * "Token Passthrough"): "The MCP server MUST NOT pass through the token it received from the MCP
 * client." mcpkit's tools call two upstreams: BOJ, which takes no credentials, and craboj, which
 * takes mcpkit's own --oj-token. The client's access token reaches neither, in any header, URL or
 * body, whole or in part, while a real process with `--auth jwt` serves both toolsets over HTTP.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type FakeBoj, startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { bojTestArgs } from "../boj/support.ts";
import { type AuthServer, type HttpServerProcess, connectClient, startAuthServer, startHttpServer } from "./support.ts";

/** A leak need not be whole to count: 16 characters already single out one token. */
const PIECE = 16;
// Random, so that no fixture or default could produce it by chance.
const OJ_TOKEN = `oj-${crypto.randomUUID()}`;

let auth: AuthServer;
let boj: FakeBoj;
let craboj: FakeCraboj;
let server: HttpServerProcess;

beforeAll(async () => {
  auth = await startAuthServer();
  boj = startFakeBoj();
  // The newer shape, so that the text search goes out as a POST with a JSON body to check as well.
  craboj = startFakeCraboj({ tokens: [OJ_TOKEN], shape: "new" });
  server = await startHttpServer(
    bojTestArgs(boj.url, "--toolsets", "boj,oj", "--oj-base-url", craboj.url, "--auth", "jwt", "--issuer", auth.issuer),
    // From the environment, as a deployment keeps it out of the process list.
    { env: { OJ_TOKEN } },
  );
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([boj?.stop(), craboj?.stop(), auth?.stop()]);
});

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  // An error result could come from mcpkit before any upstream call; only answers prove the trip was made.
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
}

/** The names in `texts` where some 16-character piece of `secret` appears. */
function leaks(secret: string, texts: Record<string, string>): string[] {
  const pieces = new Set<string>();
  for (let i = 0; i + PIECE <= secret.length; i++) pieces.add(secret.slice(i, i + PIECE));
  return Object.entries(texts).flatMap(([where, text]) =>
    [...pieces].some((piece) => text.includes(piece)) ? [where] : [],
  );
}

test("an authorized client's calls reach BOJ with no Authorization and craboj with only mcpkit's own token", async () => {
  const accessToken = await auth.token({ scope: "boj:read oj:read", resource: server.url });
  expect(accessToken.length).toBeGreaterThan(PIECE);
  const { client } = await connectClient(server.url, accessToken);
  try {
    await callOk(client, "boj_get_data_code", { db: "FM08", codes: ["FXERD01"] });
    await callOk(client, "boj_get_metadata", { db: "FM08" });
    await callOk(client, "get_problem", { source: "leetcode", id: "two-sum" });
    await callOk(client, "find_similar_problems", { query: "two numbers that add up to a target" });
  } finally {
    await client.close();
  }

  expect(boj.requests.length).toBeGreaterThanOrEqual(2);
  expect(craboj.requests.length).toBeGreaterThanOrEqual(2);
  // The POST that carries a body was among them, so bodies were really checked.
  expect(craboj.requests.some((request) => request.method === "POST" && request.body !== "")).toBe(true);

  const seen: Record<string, string> = {};
  for (const [i, request] of boj.requests.entries()) {
    expect(request.headers.authorization).toBeUndefined();
    // A GET has no body: what BOJ received is its URL and headers.
    expect(request.method).toBe("GET");
    seen[`BOJ #${i} URL`] = `${request.path}?${request.query}`;
    for (const [name, value] of Object.entries(request.headers)) seen[`BOJ #${i} header ${name}`] = `${name}: ${value}`;
  }
  for (const [i, request] of craboj.requests.entries()) {
    expect(request.authorization).toBe(`Bearer ${OJ_TOKEN}`);
    seen[`craboj #${i} URL`] = request.target;
    seen[`craboj #${i} body`] = request.body;
    for (const [name, value] of Object.entries(request.headers))
      seen[`craboj #${i} header ${name}`] = `${name}: ${value}`;
  }
  expect(leaks(accessToken, seen)).toEqual([]);
});
