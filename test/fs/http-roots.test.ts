/**
 * Issue 10, F2: over HTTP a client's roots describe the client's machine, so they are never
 * trusted. Without --root the fs toolset is off; with --root, client roots inside it only narrow
 * the search and every other client root (here `file:///`) is ignored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { mcpkitCommand, REPO_ROOT, testEnv } from "../support/mcp.ts";

interface HttpMcpkit {
  url: string;
  stderr(): string;
  /** All of stderr, once the process has closed it. */
  stderrEnded: Promise<string>;
  stop(): Promise<void>;
}

/** `mcpkit --http 127.0.0.1:0 ARGS…`, once it logs the URL it listens on. */
async function startHttp(args: string[]): Promise<HttpMcpkit> {
  const child = Bun.spawn([...mcpkitCommand(), "--http", "127.0.0.1:0", ...args], {
    cwd: REPO_ROOT,
    env: testEnv(),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let stderr = "";
  const ended = Promise.withResolvers<string>();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcpkit did not listen:\n${stderr}`)), 15_000);
    void (async () => {
      for await (const chunk of child.stderr) {
        stderr += new TextDecoder().decode(chunk);
        const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      }
      ended.resolve(stderr);
      reject(new Error(`mcpkit exited:\n${stderr}`));
    })();
  });
  return {
    url,
    stderr: () => stderr,
    stderrEnded: ended.promise,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

async function connect(url: string, roots: string[], uris = roots.map((dir) => pathToFileURL(dir).href)) {
  const client = new Client(
    { name: "mcpkit-fs-http", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: uris.map((uri) => ({ uri })) }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: { matches: { path: string }[] } };

let base: string;
let root: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-fs-http-"));
  root = join(base, "served");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "top.md"), "x");
  writeFileSync(join(root, "sub", "inner.md"), "x");
  mkdirSync(join(base, "elsewhere"));
  writeFileSync(join(base, "elsewhere", "server-secret.md"), "x");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("with --root", () => {
  let server: HttpMcpkit;
  beforeAll(async () => {
    server = await startHttp(["--toolsets", "fs", "--root", root]);
  });
  afterAll(async () => server?.stop());

  const search = async (client: Client, args: Record<string, unknown> = {}) =>
    (await client.callTool({
      name: "fs_search_by_time",
      arguments: { timeField: "modified", sort: "path_asc", includeDirectories: true, ...args },
    })) as Result;

  test("a client offering file:/// searches only the configured root", async () => {
    const client = await connect(server.url, ["/", base]);
    try {
      const result = await search(client);
      expect(result.structuredContent?.matches.map((m) => m.path)).toEqual(["sub", "sub/inner.md", "top.md"]);
      for (const requested of ["/", base, join(base, "elsewhere")]) {
        const refused = await search(client, { root: requested });
        expect(refused.isError).toBe(true);
        expect(refused.content[0].text).toContain(`Use one of: ${root}`);
      }
      const tools = (await client.listTools()).tools;
      expect(tools.find((tool) => tool.name === "fs_search_by_time")?.description).toContain(`Allowed roots: ${root}`);
    } finally {
      await client.close();
    }
  });

  test("client roots inside the configured root narrow the search; outside ones are ignored", async () => {
    const client = await connect(server.url, [join(root, "sub"), "/"]);
    try {
      const result = await search(client);
      expect(result.structuredContent?.matches.map((m) => m.path)).toEqual(["inner.md"]);
      expect((await search(client, { root })).isError).toBe(true); // narrowed: the wider root is not offered to this client
    } finally {
      await client.close();
    }
  });
});

test("a client's 3,000 roots that name no directory cost a few log lines a call, not one a root", async () => {
  const server = await startHttp(["--toolsets", "fs", "--root", root]);
  // The first names a path of 5,000 characters: it is shown shortened.
  const bogus = [`file:///${"x".repeat(5_000)}`, ...Array.from({ length: 2_999 }, (_, i) => `file:///n/${i}`)];
  const client = await connect(server.url, [], [...bogus, pathToFileURL(join(root, "sub")).href]);
  try {
    for (let call = 0; call < 2; call++) {
      const result = (await client.callTool({
        name: "fs_search_by_time",
        arguments: { timeField: "modified", sort: "path_asc" },
      })) as Result;
      expect(result.structuredContent?.matches.map((m) => m.path)).toEqual(["inner.md"]);
    }
  } finally {
    await client.close();
    await server.stop();
  }
  const ignored = (await server.stderrEnded).split("\n").filter((line) => line.includes("client root"));
  // Each call: five roots named, then one line counting the other 2,995 (a line each before: 6,000).
  expect(ignored).toHaveLength(12);
  expect(ignored[0]).toContain(`root directory \\"/${"x".repeat(150)}`);
  expect(ignored[1]).toContain('root directory \\"/n/0\\" does not exist');
  expect(ignored[5]).toContain("ignoring 2995 more client roots");
  expect(Math.max(...ignored.map((line) => line.length))).toBeLessThan(400);
});

test("without --root over HTTP, fs is off: not listed, and the start-up log says why", async () => {
  const server = await startHttp(["--log-level", "info"]);
  try {
    const client = await connect(server.url, ["/"]);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain("fs_search_by_time");
    } finally {
      await client.close();
    }
    expect(server.stderr()).toContain(
      "--root DIR (or MCPKIT_ROOTS): over HTTP only the server's own directories are searched",
    );
  } finally {
    await server.stop();
  }
});

test("naming fs over HTTP without --root is a start-up error naming --root", async () => {
  const child = Bun.spawn([...mcpkitCommand(), "--http", "127.0.0.1:0", "--toolsets", "fs"], {
    cwd: REPO_ROOT,
    env: testEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(code).toBe(2);
  expect(stderr).toContain("toolset fs needs --root DIR");
});
