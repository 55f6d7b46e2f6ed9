/**
 * The five `oj` tools end to end: a real `mcpkit` process over stdio, talking to the fake craboj
 * server over loopback. Covers docs/contracts/oj.md §3–§6 and the per-tool properties,
 * plus each upstream quirk of §9.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LoggingMessageNotificationSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import fc from "fast-check";
import { type FakeCraboj, startFakeCraboj } from "../fixtures/oj/fake-craboj.ts";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";

const TOKEN = "tok-0123456789abcdef";
let fake: FakeCraboj;
let server: RunningServer; // with the token
let anonymous: RunningServer; // without a token
let wide: RunningServer; // with an output budget above the 102,400-byte cap
const outputSchemas = new Map<string, Tool["outputSchema"]>();
const validator = new AjvJsonSchemaValidator();

beforeAll(async () => {
  fake = startFakeCraboj({ tokens: [TOKEN] });
  [server, anonymous, wide] = await Promise.all([
    startStdioServer({
      // The default timeout (the flag's most): only the never-answering test below lowers it, on a
      // server of its own, since a loaded machine took longer than 800 ms over ordinary answers.
      args: ["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN],
    }),
    startStdioServer({ args: ["--toolsets", "oj", "--oj-base-url", `${fake.url}/`] }),
    startStdioServer({
      args: ["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN, "--max-output-bytes", "300000"],
    }),
  ]);
  // The SDK client checks each structuredContent against the tool's outputSchema, but only for
  // tools it has listed: list them first so that every call below is validated (and check again
  // here, so the guarantee does not rest on an SDK detail).
  const [listed] = await Promise.all([
    server.client.listTools(),
    anonymous.client.listTools(),
    wide.client.listTools(),
  ]);
  for (const tool of listed.tools) outputSchemas.set(tool.name, tool.outputSchema);
});
afterAll(async () => {
  await Promise.all([server?.close(), anonymous?.close(), wide?.close()]);
  await fake?.stop();
});

interface Called {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

async function call(name: string, args: Record<string, unknown> = {}, on: RunningServer = server): Promise<Called> {
  const result = (await on.client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
  };
  expect(result.content).toHaveLength(1);
  expect(result.content[0].type).toBe("text");
  if (result.isError !== true) {
    // Every success carries structuredContent matching the declared outputSchema.
    const schema = outputSchemas.get(name);
    expect(schema).toBeDefined();
    expect(result.structuredContent).toBeDefined();
    const verdict = validator.getValidator(schema as Parameters<typeof validator.getValidator>[0])(
      result.structuredContent,
    );
    expect(verdict.errorMessage ?? "valid").toBe("valid");
  }
  return { isError: result.isError === true, text: result.content[0].text, structured: result.structuredContent };
}

async function protocolError(
  name: string,
  args: Record<string, unknown>,
  on: RunningServer = server,
): Promise<McpError> {
  try {
    await on.client.callTool({ name, arguments: args });
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error(`${name} did not fail with a JSON-RPC error`);
}

/** Runs `body` and returns the request targets the fake saw meanwhile. */
async function targetsDuring(body: () => Promise<unknown>): Promise<string[]> {
  const before = fake.requests.length;
  await body();
  return fake.requests.slice(before).map((r) => `${r.method} ${r.target}`);
}

const utcToday = () => new Date().toISOString().slice(0, 10);
const cnToday = () => new Date(Date.now() + 8 * 3_600_000).toISOString().slice(0, 10);

describe("get_daily_challenge (T1)", () => {
  test("defaults: domain=com and today's UTC date; renders the problem template", async () => {
    const before = utcToday();
    let result: Called | undefined;
    const targets = await targetsDuring(async () => (result = await call("get_daily_challenge")));
    expect([
      `GET /api/v1/daily?domain=com&date=${before}`,
      `GET /api/v1/daily?domain=com&date=${utcToday()}`,
    ]).toContain(targets[0]);
    const lines = (result as Called).text.split("\n");
    // The date is in the text too (issue 19): a client that shows only text must see which day this is.
    const date = ((result as Called).structured as { date: string }).date;
    expect(lines[0]).toBe(`Daily challenge of leetcode.com for ${date}:`);
    expect(lines[2]).toBe("# Two Sum");
    expect(lines[4]).toContain("Source: leetcode");
    expect((result as Called).structured).toMatchObject({
      status: "ready",
      domain: "com",
      problems: [{ source: "leetcode", id: "1", title: "Two Sum" }],
    });
  });

  test("cn defaults to today in UTC+8, not the UTC date (contract §4.1)", async () => {
    const before = cnToday();
    const targets = await targetsDuring(() => call("get_daily_challenge", { domain: "cn" }));
    expect([`GET /api/v1/daily?domain=cn&date=${before}`, `GET /api/v1/daily?domain=cn&date=${cnToday()}`]).toContain(
      targets[0],
    );
  });

  test("202 fetching is a success result that says when to retry", async () => {
    const result = await call("get_daily_challenge", { date: "2020-04-02" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe("The daily challenge is currently being fetched. Please retry after 30 seconds.");
    expect(result.structured).toMatchObject({ status: "fetching", retry_after: 30, problems: [] });

    fake.override(
      "GET",
      "/api/v1/daily",
      () => new Response("busy", { status: 202, headers: { "content-type": "text/plain" } }),
    );
    try {
      const later = await call("get_daily_challenge", { date: "2021-01-01" });
      expect(later.isError).toBe(false);
      expect(later.text).toContain("Please retry later.");
    } finally {
      fake.clearOverrides();
    }
  });

  test("202 during the crawler's cooldown carries the seconds left; a retry_after that is no count means 'later'", async () => {
    const answers = [
      { status: "fetching", retry_after: 12 },
      { status: "fetching", retry_after: -5 },
      { status: "fetching", retry_after: 2.5 },
      {},
      // Past a day: no wait a caller can act on ("retry after 1e+300 seconds").
      { status: "fetching", retry_after: 1e300 },
      { status: "fetching", retry_after: 86_401 },
    ];
    let next = 0;
    fake.override("GET", "/api/v1/daily", () => Response.json(answers[next++], { status: 202 }));
    try {
      const texts = [];
      for (let i = 0; i < answers.length; i++)
        texts.push((await call("get_daily_challenge", { date: "2021-01-02" })).text);
      expect(texts).toEqual([
        "The daily challenge is currently being fetched. Please retry after 12 seconds.",
        ...Array(5).fill("The daily challenge is currently being fetched. Please retry later."),
      ]);
    } finally {
      fake.clearOverrides();
    }
  });

  test("HTML content converts: <b>bold</b> → **bold**", async () => {
    fake.override("GET", "/api/v1/daily", () =>
      Response.json({
        date: "2024-01-01",
        domain: "com",
        id: 42,
        slug: "bold",
        title: "Bold",
        tags: [],
        content: "<b>bold</b>",
      }),
    );
    try {
      const result = await call("get_daily_challenge", { date: "2024-01-01" });
      expect(result.text.endsWith("\n\n---\n\n**bold**")).toBe(true);
      expect(result.text).toContain("ID: 42"); // the integer id of older payloads
    } finally {
      fake.clearOverrides();
    }
  });

  test("the newer {source, date, problems[]} wrapper works too (contract §4.3, §8)", async () => {
    fake.shape = "new";
    try {
      const result = await call("get_daily_challenge", { date: "2024-03-02" });
      expect(result.isError).toBe(false);
      expect(result.text.split("\n")[2]).toBe("# Longest Substring Without Repeating Characters");
      expect(result.structured).toMatchObject({ date: "2024-03-02", problems: [{ source: "leetcode", id: "3" }] });
    } finally {
      fake.shape = "old";
    }
  });

  test("the newer wrapper with no problem for the day is an isError saying so, not a crash", async () => {
    fake.override("GET", "/api/v1/daily", () =>
      Response.json({ source: "leetcode.com", date: "2024-03-03", problems: [] }),
    );
    try {
      const result = await call("get_daily_challenge", { date: "2024-03-03" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("No daily challenge was returned for leetcode.com on 2024-03-03");
    } finally {
      fake.clearOverrides();
    }
  });

  test("bad dates and domains are isError results naming the field, with no request", async () => {
    const targets = await targetsDuring(async () => {
      for (const args of [{ date: "2024/01/01" }, { date: "2023-02-29" }, { domain: "COM" }, { domain: "jp" }]) {
        const result = await call("get_daily_challenge", args);
        expect(result.isError).toBe(true);
        expect(result.text).toContain(Object.keys(args)[0]);
      }
    });
    expect(targets).toEqual([]);
    expect((await call("get_daily_challenge", { date: "2024/01/01" })).text).toContain(
      "invalid date format, expected YYYY-MM-DD",
    );
  });

  test("the upstream's own 400 comes back as an RFC 7807 isError", async () => {
    const result = await call("get_daily_challenge", { date: "2019-01-01" });
    expect(result).toMatchObject({ isError: true, text: "[400] Bad Request: date must be >= 2020-04-01" });
  });
});

describe("get_problem (T2)", () => {
  test("renders '# Two Sum' and the parsed fields", async () => {
    const result = await call("get_problem", { source: "leetcode", id: "1" });
    expect(result.isError).toBe(false);
    expect(
      result.text.startsWith("# Two Sum\n\n- Source: leetcode | ID: 1 | Difficulty: Easy\n- Tags: Array, Hash Table\n"),
    ).toBe(true);
    expect(result.text).toContain("- AC Rate: 57.1%");
    expect(result.text).toContain("- `2 <= nums.length <= 10^4`");
    expect(result.structured?.problem).toMatchObject({ ac_rate: 57.08, tags: ["Array", "Hash Table"], rating: null });
  });

  test("path segments are trimmed and percent-encoded: a/b, c d → a%2Fb, c%20d; the source in any case is folded", async () => {
    const targets = await targetsDuring(() => call("get_problem", { source: " LeetCode ", id: " a/b c d " }));
    expect(targets).toEqual(["GET /api/v1/problems/leetcode/a%2Fb%20c%20d"]);
  });

  test("source is an enum of the server's platforms; an unknown one is refused listing them, with no request", async () => {
    const listed = (await server.client.listTools()).tools.find((tool) => tool.name === "get_problem");
    const properties = listed?.inputSchema.properties as Record<string, { enum?: string[] }> | undefined;
    expect(properties?.source.enum).toEqual(["leetcode", "codeforces", "atcoder", "luogu", "spoj"]);
    const targets = await targetsDuring(async () => {
      const result = await call("get_problem", { source: "topcoder", id: "1" });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        'Invalid arguments for get_problem: "source": unknown source; use one of: leetcode, codeforces, atcoder, luogu, spoj (got "topcoder"). Fix the argument and call again.',
      );
    });
    expect(targets).toEqual([]);
  });

  test("empty or blank source or id → isError, no request", async () => {
    const targets = await targetsDuring(async () => {
      for (const args of [
        { source: "", id: "1" },
        { source: "  ", id: "1" },
        { source: "leetcode", id: "" },
        { source: "leetcode", id: " \t" },
        { source: "leetcode" },
      ]) {
        const result = await call("get_problem", args);
        expect(result.isError).toBe(true);
        expect(result.text).toMatch(/"(source|id)"/);
      }
    });
    expect(targets).toEqual([]);
  });

  test("404 RFC 7807 → [404] Not Found: problem not found", async () => {
    expect(await call("get_problem", { source: "leetcode", id: "404404" })).toMatchObject({
      isError: true,
      text: "[404] Not Found: problem not found",
    });
  });

  test("a null title falls back to the slug instead of failing (contract §9)", async () => {
    const result = await call("get_problem", { source: "leetcode", id: "9999" });
    expect(result.isError).toBe(false);
    expect(result.text).toStartWith("# mystery-problem\n");
    expect(result.text.endsWith("No description available.")).toBe(true);
  });

  test("Markdown statements (Codeforces, Luogu) pass through unchanged", async () => {
    const result = await call("get_problem", { source: "luogu", id: "P1001" });
    expect(result.text.endsWith("## 题目描述\n\n输入两个整数 $a, b$，输出它们的和（$|a|,|b| \\le {10}^9$）。")).toBe(
      true,
    );
  });
});

describe("find_similar_problems (T3)", () => {
  test("by source and id: rewritten_query null → 'Query: source id', percentages, null title → N/A", async () => {
    let result: Called | undefined;
    const targets = await targetsDuring(
      async () => (result = await call("find_similar_problems", { source: "leetcode", id: "3" })),
    );
    expect(targets).toEqual(["GET /api/v1/similar/leetcode/3?limit=10&threshold=0"]);
    const text = (result as Called).text;
    expect(text).toStartWith(
      "# Similar Problems\n\nQuery: leetcode 3\n\n| # | Source | ID | Title | Difficulty | Similarity | Link |\n",
    );
    expect(text).toContain("| 1 | leetcode | 1 | Two Sum | Easy | 100.0% | https://leetcode.com/problems/two-sum/ |\n");
    expect(text).toContain("| 2 | leetcode | 15 | 3Sum | Medium | 79.1% |");
    expect(text).toContain("| 4 | luogu | P1001 | N/A | 入门 | 25.0% |");
    expect(text.endsWith("|\n")).toBe(true);
  });

  test("a query wins over source + id; limit, threshold and source_filter are sent", async () => {
    const targets = await targetsDuring(() =>
      call("find_similar_problems", {
        query: "  two numbers adding up  ",
        source: "leetcode",
        id: "1",
        limit: 5,
        threshold: 0.5,
        source_filter: "leetcode,luogu",
      }),
    );
    expect(targets).toEqual([
      "GET /api/v1/similar?q=two%20numbers%20adding%20up&limit=5&threshold=0.5&source=leetcode%2Cluogu",
    ]);
  });

  test("query bounds: 'ab' and 2001 bytes are refused with no request (no fallback to source + id); 3 and 2000 are sent", async () => {
    const refused = await targetsDuring(async () => {
      for (const [query, said] of [
        ["ab", 'describe the problem in a few more words (got 2 bytes: "ab")'],
        ["x".repeat(2001), `shorten the query (got 2001 bytes: "${"x".repeat(78)}…)`],
        ["中".repeat(700), `shorten the query (got 2100 bytes: "${"中".repeat(78)}…)`],
      ]) {
        const result = await call("find_similar_problems", { query, source: "leetcode", id: "1" });
        expect(result.isError).toBe(true);
        // Framed as every other argument error (core/invoke.ts describeArgumentIssues).
        expect(result.text).toBe(
          `Invalid arguments for find_similar_problems: "query": must be between 3 and 2000 characters, counted as UTF-8 bytes like the server counts them; ${said}. Fix the argument and call again.`,
        );
      }
    });
    expect(refused).toEqual([]);
    const sent = await targetsDuring(async () => {
      for (const query of ["abc", "x".repeat(2000), "两数"])
        expect((await call("find_similar_problems", { query })).isError).toBe(false);
    });
    expect(sent).toHaveLength(3);
  });

  test("a two-character CJK query (6 bytes) is accepted, as the upstream accepts it (contract §4.3)", async () => {
    const result = await call("find_similar_problems", { query: "两数" });
    expect(result.isError).toBe(false);
    expect(result.text).toContain("Query: problems about 两数");
  });

  test("missing pair → isError; invalid limit and threshold → isError; none reach the server", async () => {
    const targets = await targetsDuring(async () => {
      for (const [args, field] of [
        [{}, "query"],
        [{ source: "leetcode" }, "id"],
        [{ source: "leetcode", id: "  " }, "id"],
        [{ id: "1" }, "source"],
        [{ source: " ", id: "1" }, "source"],
        [{ query: "   ", id: "1" }, "source"],
      ] as const) {
        const result = await call("find_similar_problems", args);
        expect(result).toEqual({
          isError: true,
          text: `Invalid arguments for find_similar_problems: "${field}": either 'query' or both 'source' and 'id' must be provided: pass a text query, or a problem's source and id (e.g. source 'leetcode', id '1'). Fix the argument and call again.`,
          structured: undefined,
        });
      }
      for (const [args, message] of [
        [{ query: "abc", limit: 0 }, "limit must be between 1 and 50"],
        [{ query: "abc", limit: 51 }, "limit must be between 1 and 50"],
        [{ query: "abc", limit: 2.5 }, "limit must be between 1 and 50"],
        [{ query: "abc", threshold: 1.01 }, "threshold must be between 0.0 and 1.0"],
        [{ query: "abc", threshold: -0.1 }, "threshold must be between 0.0 and 1.0"],
      ] as const) {
        const result = await call("find_similar_problems", args);
        expect(result.isError).toBe(true);
        expect(result.text).toContain(message);
      }
    });
    expect(targets).toEqual([]);
  });

  test("path segments encoded: a b / c/d → a%20b/c%2Fd; the source is folded to its enum value", async () => {
    const targets = await targetsDuring(() => call("find_similar_problems", { source: "Codeforces", id: "a b/c/d" }));
    expect(targets).toEqual(["GET /api/v1/similar/codeforces/a%20b%2Fc%2Fd?limit=10&threshold=0"]);
  });

  test("source and source_filter accept only the server's platforms (any case); an unknown one is named, with no request", async () => {
    const targets = await targetsDuring(async () => {
      const bad = await call("find_similar_problems", { source: "hackerrank", id: "1" });
      expect(bad.isError).toBe(true);
      expect(bad.text).toContain(
        '"source": unknown source; use one of: leetcode, codeforces, atcoder, luogu, spoj (got "hackerrank")',
      );
      const badFilter = await call("find_similar_problems", {
        query: "two sum",
        source_filter: "leetcode, hackerrank",
      });
      expect(badFilter.isError).toBe(true);
      expect(badFilter.text).toBe(
        'Invalid arguments for find_similar_problems: "source_filter": unknown source "hackerrank"; use one of: leetcode, codeforces, atcoder, luogu, spoj (comma-separated). Fix the argument and call again.',
      );
    });
    expect(targets).toEqual([]);
    const folded = await targetsDuring(() =>
      call("find_similar_problems", { query: "two sum", source_filter: " LeetCode,,luogu ,leetcode" }),
    );
    expect(folded).toEqual(["GET /api/v1/similar?q=two%20sum&limit=10&threshold=0&source=leetcode%2Cluogu"]);
  });

  test("a server that answers 405 to GET gets a JSON POST, and keeps getting it (contract §4.3, §8)", async () => {
    fake.shape = "new";
    try {
      let first: Called | undefined;
      const targets = await targetsDuring(async () => {
        first = await call("find_similar_problems", { query: "graph shortest path", limit: 3 });
        await call("find_similar_problems", { query: "another query" });
      });
      expect(first?.isError).toBe(false);
      expect(first?.text).toContain("Query: problems about graph shortest path");
      expect(targets).toEqual([
        "GET /api/v1/similar?q=graph%20shortest%20path&limit=3&threshold=0",
        "POST /api/v1/similar",
        "POST /api/v1/similar",
      ]);
      const body = JSON.parse(fake.requests.at(-2)?.body ?? "{}");
      expect(body).toEqual({ query: "graph shortest path", limit: 3, threshold: 0 });
    } finally {
      fake.shape = "old";
    }
    // The server went back to GET: one 405 on POST, then GET again, and GET from then on.
    const back = await targetsDuring(async () => {
      expect((await call("find_similar_problems", { query: "third query" })).isError).toBe(false);
      expect((await call("find_similar_problems", { query: "fourth query" })).isError).toBe(false);
    });
    expect(back).toEqual([
      "POST /api/v1/similar",
      "GET /api/v1/similar?q=third%20query&limit=10&threshold=0",
      "GET /api/v1/similar?q=fourth%20query&limit=10&threshold=0",
    ]);
  });

  test("text search: a null rewritten_query falls back to the user's query (contract §9)", async () => {
    fake.override("GET", "/api/v1/similar", () => Response.json({ rewritten_query: null, results: [] }));
    try {
      const result = await call("find_similar_problems", { query: "  shortest path in a grid  " });
      expect(result.isError).toBe(false);
      expect(result.text).toBe(
        "# Similar Problems\n\nQuery: shortest path in a grid\n\n| # | Source | ID | Title | Difficulty | Similarity | Link |\n|---|--------|----|-------|------------|------------|------|\n",
      );
      expect(result.structured).toEqual({ query: "shortest path in a grid", results: [] });
    } finally {
      fake.clearOverrides();
    }
  });
});

describe("an upstream link that is not http(s) is dropped (contract §7)", () => {
  const bad = [
    "javascript:alert(1)",
    " JavaScript:alert(document.cookie)",
    "java\nscript:alert(1)",
    "data:text/html,<b>x",
    "not a url",
  ];

  test("get_problem: the header says N/A and link is null; an HTTPS link in capitals is kept", async () => {
    for (const link of bad) {
      fake.override("GET", "/api/v1/problems/leetcode/badlink", () =>
        Response.json({ id: "badlink", source: "leetcode", title: "Bad", link, content: "<p>x</p>" }),
      );
      try {
        const result = await call("get_problem", { source: "leetcode", id: "badlink" });
        expect(result.isError).toBe(false);
        expect(result.text.split("\n")[4]).toBe("- Link: N/A");
        expect((result.structured as { problem: { link: unknown } }).problem.link).toBeNull();
        expect(result.text.toLowerCase()).not.toContain("script:");
      } finally {
        fake.clearOverrides();
      }
    }
    fake.override("GET", "/api/v1/problems/leetcode/goodlink", () =>
      Response.json({ id: "goodlink", source: "leetcode", title: "Good", link: "HTTPS://leetcode.com/problems/x/" }),
    );
    try {
      const result = await call("get_problem", { source: "leetcode", id: "goodlink" });
      expect((result.structured as { problem: { link: unknown } }).problem.link).toBe(
        "HTTPS://leetcode.com/problems/x/",
      );
    } finally {
      fake.clearOverrides();
    }
  });

  test("find_similar_problems: such a row's link is null and its cell N/A", async () => {
    fake.override("GET", "/api/v1/similar", () =>
      Response.json({
        rewritten_query: null,
        results: bad.map((link, i) => ({ source: "leetcode", id: String(i), title: "T", link, similarity: 0.5 })),
      }),
    );
    try {
      const result = await call("find_similar_problems", { query: "shortest path" });
      expect(result.isError).toBe(false);
      const rows = (result.structured as { results: { link: unknown }[] }).results;
      expect(rows.map((row) => row.link)).toEqual(bad.map(() => null));
      expect(result.text.toLowerCase()).not.toContain("script:");
      expect(result.text).not.toContain("data:");
    } finally {
      fake.clearOverrides();
    }
  });
});

describe("resolve_problem (T4)", () => {
  test("the whole query is percent-encoded; the nested problem is rendered", async () => {
    let result: Called | undefined;
    const targets = await targetsDuring(
      async () => (result = await call("resolve_problem", { query: "https://leetcode.com/problems/two-sum" })),
    );
    expect(targets).toEqual(["GET /api/v1/resolve/https%3A%2F%2Fleetcode.com%2Fproblems%2Ftwo-sum"]);
    expect(result?.text).toStartWith("# Two Sum\n");
    expect(result?.structured).toMatchObject({ resolved: { source: "leetcode", id: "two-sum" }, problem: { id: "1" } });
  });

  test("the nested problem's source wins over the top-level one", async () => {
    fake.override("GET", "/api/v1/resolve/cf1A", () =>
      Response.json({
        source: "luogu",
        id: "CF1A",
        problem: { id: "1A", source: "codeforces", slug: "1A", title: "Theatre Square", tags: [] },
      }),
    );
    try {
      const result = await call("resolve_problem", { query: "cf1A" });
      expect(result.text.split("\n")[2]).toStartWith("- Source: codeforces | ID: 1A");
    } finally {
      fake.clearOverrides();
    }
  });

  test("problem: null → isError 'problem not found (…)', not a protocol error (contract §9)", async () => {
    const result = await call("resolve_problem", { query: "no-such-problem-slug" });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toStartWith("problem not found (leetcode:no-such-problem-slug)");
  });

  test("problem: null with a 200,000-character id: the message quotes at most 500 characters of it", async () => {
    const id = "x".repeat(200_000);
    fake.override("GET", "/api/v1/resolve/long-id", () => Response.json({ source: "leetcode", id, problem: null }));
    try {
      const result = await call("resolve_problem", { query: "long-id" });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        `problem not found (leetcode:${"x".repeat(491)}…). Check the URL or ID, or call get_problem with an explicit source and id.`,
      );
    } finally {
      fake.clearOverrides();
    }
  });

  test("leetcode/two-sum resolves (sent as leetcode:two-sum)", async () => {
    const targets = await targetsDuring(async () =>
      expect((await call("resolve_problem", { query: "leetcode/two-sum" })).text).toStartWith("# Two Sum"),
    );
    expect(targets).toEqual(["GET /api/v1/resolve/leetcode%3Atwo-sum"]);
  });

  test("an empty query → isError, no request (contract §4.4)", async () => {
    const targets = await targetsDuring(async () => {
      expect((await call("resolve_problem", { query: "" })).isError).toBe(true);
      expect((await call("resolve_problem", { query: "   " })).isError).toBe(true);
    });
    expect(targets).toEqual([]);
  });
});

describe("get_platform_status (T5)", () => {
  test("with the token: version header, 4 columns, one row per platform, grouped counts", async () => {
    const result = await call("get_platform_status");
    const lines = result.text.trimEnd().split("\n");
    expect(lines[0]).toBe("# OJ Platform Status (v1.2.3)");
    expect(lines[2]).toBe("| Platform | Problems | Missing Content | Not Embedded |");
    expect(lines.slice(4)).toEqual([
      "| atcoder | 8,356 | 320 | 339 |",
      "| codeforces | 12,984 | 106 | 127 |",
      "| leetcode | 3,760 | 729 | 729 |",
      "| luogu | 15,393 | 2 | 13,358 |",
    ]);
    expect(result.structured).toMatchObject({
      version: "1.2.3",
      platforms: [{ source: "atcoder", total: 8356 }, {}, {}, {}],
    });
  });

  test("without a token: isError and no request (contract §4.5)", async () => {
    const targets = await targetsDuring(async () => {
      const result = await call("get_platform_status", {}, anonymous);
      expect(result.isError).toBe(true);
      expect(result.text).toContain("--oj-token");
    });
    expect(targets).toEqual([]);
  });
});

describe("bearer token (contract §3)", () => {
  test("every request carries the token when configured, none without", async () => {
    const withToken = fake.requests.length;
    await call("get_problem", { source: "leetcode", id: "1" });
    await call("find_similar_problems", { query: "abc" });
    await call("get_daily_challenge", { date: "2024-01-01" });
    await call("find_similar_problems", { source: "leetcode", id: "1" });
    await call("resolve_problem", { query: "cf1A" });
    await call("get_platform_status");
    const sent = fake.requests.slice(withToken);
    expect(sent).toHaveLength(6);
    expect(sent.map((r) => r.authorization)).toEqual(Array(6).fill(`Bearer ${TOKEN}`));

    const without = fake.requests.length;
    await call("get_daily_challenge", { date: "2024-01-01" }, anonymous);
    await call("find_similar_problems", { query: "abc" }, anonymous);
    await call("resolve_problem", { query: "cf1A" }, anonymous);
    const denied = await call("get_problem", { source: "leetcode", id: "1" }, anonymous);
    expect(fake.requests.slice(without).map((r) => r.authorization)).toEqual([null, null, null, null]);
    expect(fake.requests.at(-1)?.target).toBe("/api/v1/problems/leetcode/1");
    // The base URL was given with a trailing "/": it was stripped, so no "//api".
    expect(denied).toEqual({
      isError: true,
      text: "[401] Unauthorized: missing or invalid token",
      structured: undefined,
    });
  });
});

describe("client log notifications (notifications/message, logger oj)", () => {
  test("upstream errors are warnings, network failures errors, the crawler's 202 and the 405 retry info; the client's level filters them", async () => {
    const seen: { level: string; logger?: string; data: unknown }[] = [];
    server.client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void seen.push(notification.params),
    );
    try {
      await server.client.setLoggingLevel("info");
      await call("get_problem", { source: "leetcode", id: "404404" });
      await call("get_daily_challenge", { date: "2020-04-02" });
      fake.shape = "new";
      await call("find_similar_problems", { query: "notify me please" }).finally(() => (fake.shape = "old"));
      await call("find_similar_problems", { query: "and back again" });
      await protocolError("get_problem", { source: "leetcode", id: "bad-json" });
      await server.client.ping(); // its answer comes after every notification sent before it
      const messages = seen.map(({ level, logger, data }) => [
        level,
        logger,
        typeof data === "string" ? data : (data as { message: string }).message,
      ]);
      expect(messages).toEqual([
        ["warning", "oj", "get_problem: the craboj server answered [404] Not Found: problem not found"],
        [
          "info",
          "oj",
          `get_daily_challenge: the craboj server is still fetching the com daily challenge of 2020-04-02`,
        ],
        ["info", "oj", "find_similar_problems: the craboj server refused GET /api/v1/similar (405); retrying as POST"],
        ["info", "oj", "find_similar_problems: the craboj server refused POST /api/v1/similar (405); retrying as GET"],
        [
          "error",
          "oj",
          expect.stringMatching(
            /^get_problem failed: the craboj server at 127\.0\.0\.1:\d+ answered GET \/api\/v1\/problems\/leetcode\/bad-json with invalid JSON/,
          ),
        ],
      ]);
      seen.length = 0;
      await server.client.setLoggingLevel("error");
      await call("get_problem", { source: "leetcode", id: "404404" });
      await server.client.ping();
      expect(seen).toEqual([]);
    } finally {
      await server.client.setLoggingLevel("info");
      server.client.removeNotificationHandler("notifications/message");
    }
  });
});

describe("the token never reaches the client (contract §7)", () => {
  test("an upstream echoing the Authorization header: isError texts, JSON-RPC errors and results are redacted", async () => {
    const texts: string[] = [];
    for (const id of ["echo-auth-401", "echo-auth-text"]) {
      const result = await call("get_problem", { source: "leetcode", id });
      expect(result.isError).toBe(true);
      texts.push(result.text);
    }
    expect(texts[0]).toBe("[401] Unauthorized: token Bearer [redacted] is not valid");
    expect(texts[1]).toBe("[500] rejected: Bearer [redacted]");
    for (const id of ["echo-auth-shape", "echo-auth-json"]) {
      const error = await protocolError("get_problem", { source: "leetcode", id });
      expect(error.code).toBe(-32603);
      texts.push(error.message);
    }
    expect(texts.slice(2).some((message) => message.includes("[redacted]"))).toBe(true);
    const ok = await call("get_problem", { source: "leetcode", id: "echo-auth-ok" });
    expect(ok.text).toStartWith("# Echo Bearer [redacted]\n");
    texts.push(ok.text, JSON.stringify(ok.structured));
    for (const text of texts) expect(text).not.toContain(TOKEN);
    // The echo endpoints really did receive the token.
    expect(
      fake.requests.filter((r) => r.target.includes("echo-auth")).every((r) => r.authorization === `Bearer ${TOKEN}`),
    ).toBe(true);
  });
});

describe("an id or query of '.' or '..' is an argument error, with no request (contract §4)", () => {
  // The URL parser resolves dot segments: get_problem {id: ".."} requested GET /api/v1/problems/.
  const calls: [string, string, Record<string, unknown>][] = [
    ["get_problem", "id", { source: "leetcode" }],
    ["resolve_problem", "query", {}],
    ["find_similar_problems", "id", { source: "leetcode" }],
  ];
  for (const [tool, field, rest] of calls) {
    test(`${tool}: "${field}"`, async () => {
      for (const value of [".", "..", "  ..  "]) {
        let result: Called | undefined;
        const targets = await targetsDuring(async () => (result = await call(tool, { ...rest, [field]: value })));
        expect(targets).toEqual([]);
        expect(result).toEqual({
          isError: true,
          text: `Invalid arguments for ${tool}: "${field}": "." and ".." name no problem and would change the request's path (got ${JSON.stringify(value.trim())}). Fix the argument and call again.`,
          structured: undefined,
        });
      }
      // Dots inside a segment are ordinary characters.
      const targets = await targetsDuring(() => call(tool, { ...rest, [field]: "..." }));
      expect(targets.length).toBe(1);
      expect(targets[0]).toContain("...");
    });
  }
});

describe("error classification (contract §5)", () => {
  test("an error body that is not JSON by Content-Type is shown raw, even when it looks like RFC 7807 (contract §3)", async () => {
    const rfc = '{"status":404,"title":"Not Found","detail":"problem not found"}';
    fake.override(
      "GET",
      "/api/v1/problems/leetcode/plain-rfc",
      () => new Response(rfc, { status: 404, headers: { "content-type": "text/plain" } }),
    );
    try {
      expect(await call("get_problem", { source: "leetcode", id: "plain-rfc" })).toMatchObject({
        isError: true,
        text: `[404] ${rfc}`,
      });
    } finally {
      fake.clearOverrides();
    }
  });

  test("429 with Retry-After: the message gives the wait and says not to call again before then", async () => {
    fake.override(
      "GET",
      "/api/v1/problems/leetcode/busy",
      () => new Response('{"error":"slow down"}', { status: 429, headers: { "retry-after": "30" } }),
    );
    try {
      expect(await call("get_problem", { source: "leetcode", id: "busy" })).toMatchObject({
        isError: true,
        text: '[429] {"error":"slow down"} — the craboj server asked to retry after 30 s (Retry-After): do not call this tool again before then.',
      });
    } finally {
      fake.clearOverrides();
    }
  });

  test("for any 4xx/5xx response: an isError result, never a JSON-RPC error", async () => {
    const bodies = fc.oneof(
      fc
        .record({ status: fc.integer({ min: 400, max: 599 }), title: fc.string(), detail: fc.string() })
        .map((b) => ({ body: JSON.stringify(b), type: "application/problem+json" })),
      fc.string({ maxLength: 700 }).map((body) => ({ body, type: "text/plain; charset=utf-8" })),
      fc.string({ maxLength: 50 }).map((body) => ({ body: `<html><body>${body}</body></html>`, type: "text/html" })),
      fc.constant({ body: "", type: "" }),
      fc.string({ maxLength: 100 }).map((body) => ({ body, type: "application/json" })),
    );
    try {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 400, max: 599 }), bodies, async (status, { body, type }) => {
          fake.override(
            "GET",
            "/api/v1/problems/leetcode/any",
            () => new Response(body || null, { status, headers: type ? { "content-type": type } : {} }),
          );
          const result = await call("get_problem", { source: "leetcode", id: "any" });
          expect(result.isError).toBe(true);
          expect(result.text).toMatch(/^\[\d+\] /);
        }),
        { numRuns: 40 },
      );
    } finally {
      fake.clearOverrides();
    }
  });

  test("500 plain text of 1000 chars → isError with at most 500 chars of body", async () => {
    const result = await call("get_problem", { source: "leetcode", id: "plain-500" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(`[500] ${"x".repeat(500)}`);
  });

  test("499 ASCII + a 4-byte emoji: cut on the character boundary", async () => {
    const result = await call("get_problem", { source: "leetcode", id: "emoji-500" });
    expect(result.text).toBe(`[500] ${"a".repeat(499)}😀`);
  });

  test("text/html is never parsed as JSON: fallback template, for an error and for a 200 (contract §5)", async () => {
    const error = await call("get_problem", { source: "leetcode", id: "html-error" });
    expect(error).toMatchObject({ isError: true });
    expect(error.text).toStartWith("[502] <html><head><title>502 Bad Gateway</title>");
    const ok = await call("get_problem", { source: "leetcode", id: "html-ok" });
    expect(ok).toMatchObject({ isError: true, text: "[200] <html><body>maintenance</body></html>" });
  });

  test("unknown routes answer axum's empty 404: '[404] '", async () => {
    fake.override("GET", "/status", () => new Response(null, { status: 404 }));
    try {
      expect(await call("get_platform_status")).toMatchObject({ isError: true, text: "[404] " });
    } finally {
      fake.clearOverrides();
    }
  });

  test("undecodable success bodies → JSON-RPC -32603", async () => {
    for (const id of ["bad-json", "bad-utf8", "wrong-shape", "big-body"]) {
      const error = await protocolError("get_problem", { source: "leetcode", id });
      expect(error.code).toBe(-32603);
    }
    expect((await protocolError("get_problem", { source: "leetcode", id: "big-body" })).message).toContain(
      "1048576 bytes",
    );
  });

  test("a wrong-shaped body holding a huge value gives a short JSON-RPC message, not the value", async () => {
    fake.override("GET", "/api/v1/problems/leetcode/huge-field", () =>
      Response.json({ id: "x", title: "T", tags: "y".repeat(500_000) }),
    );
    try {
      const error = await protocolError("get_problem", { source: "leetcode", id: "huge-field" });
      expect(error.code).toBe(-32603);
      expect(error.message).toContain('"tags"');
      expect(error.message.length).toBeLessThan(600);
    } finally {
      fake.clearOverrides();
    }
  });

  test("a redirect to another host → -32603 naming it and --oj-base-url; that host is never asked", async () => {
    // A stand-in for an address only mcpkit's host can reach (a cloud metadata endpoint).
    const asked: string[] = [];
    const internal = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        asked.push(request.url);
        return new Response("INTERNAL-ONLY-SECRET", { status: 418 });
      },
    });
    const location = `http://127.0.0.1:${internal.port}/latest/meta-data/`;
    fake.override(
      "GET",
      "/api/v1/problems/leetcode/moved",
      () => new Response(null, { status: 302, headers: { location } }),
    );
    try {
      const error = await protocolError("get_problem", { source: "leetcode", id: "moved" });
      expect(error.code).toBe(-32603);
      expect(error.message).toContain(
        `redirected GET /api/v1/problems/leetcode/moved to another origin, http://127.0.0.1:${internal.port}, which is not followed`,
      );
      expect(error.message).toContain("Check --oj-base-url (OJ_BASE_URL)");
      expect(error.message).not.toContain("INTERNAL-ONLY-SECRET");
      expect(asked).toEqual([]);
    } finally {
      fake.clearOverrides();
      await internal.stop(true);
    }
  });

  test("a success body nested 200,000 and 500,000 levels deep → the -32603 of an unreadable body, naming the flag", async () => {
    // 1 MB of '[' then ']' (arrays) and 200,000 '{"a":' (objects): the sanitizer's walk of the parsed
    // value overflowed its stack, which came out as "Internal error in get_problem".
    const bombs = {
      arrays: `${"[".repeat(500_000)}${"]".repeat(500_000)}`,
      objects: `${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}`,
    };
    try {
      for (const [id, body] of Object.entries(bombs)) {
        fake.override(
          "GET",
          `/api/v1/problems/leetcode/${id}`,
          () => new Response(body, { headers: { "content-type": "application/json" } }),
        );
        const error = await protocolError("get_problem", { source: "leetcode", id });
        expect(error.code).toBe(-32603);
        expect(error.message).toMatch(
          new RegExp(
            `^MCP error -32603: the craboj server at 127\\.0\\.0\\.1:\\d+ answered GET /api/v1/problems/leetcode/${id} with JSON nested deeper than 64 levels: check --oj-base-url \\(OJ_BASE_URL\\)$`,
          ),
        );
      }
    } finally {
      fake.clearOverrides();
    }
  });

  test("a never-answering server → -32603 within the (lowered) timeout", async () => {
    const hasty = await startStdioServer({
      args: ["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN, "--oj-timeout-ms", "800"],
    });
    try {
      const started = performance.now();
      const error = await protocolError("get_problem", { source: "leetcode", id: "hang" }, hasty);
      const elapsed = performance.now() - started;
      expect(error.code).toBe(-32603);
      expect(error.message).toContain("timed out");
      // Not before the timeout; that it fires at all is the "timed out" above (without it, no answer).
      expect(elapsed).toBeGreaterThanOrEqual(750);
    } finally {
      await hasty.close();
    }
  });
});

describe("output caps: 102,400 bytes (+ suffix) and the output budget, the smaller wins (contract §6)", () => {
  test("with a budget above the cap: 200 KiB of Markdown → at most 102,400 + 17 bytes, valid UTF-8, ends with the suffix", async () => {
    const result = await call("get_problem", { source: "leetcode", id: "huge-statement" }, wide);
    const bytes = Buffer.byteLength(result.text, "utf8");
    expect(bytes).toBeLessThanOrEqual(102_400 + 17);
    expect(bytes).toBeGreaterThan(102_400 - 4);
    expect(result.text.toWellFormed()).toBe(result.text);
    expect(result.text.endsWith("\n\n... (truncated)")).toBe(true);
  });

  test("with the default budget (100,000): both halves cut below it at a line, saying where the rest is", async () => {
    const lines = Array.from({ length: 4_000 }, (_, i) => `<p>line ${i} ${"x".repeat(40)}</p>`).join("\n");
    fake.override("GET", "/api/v1/problems/leetcode/long", () =>
      Response.json({
        id: "long",
        source: "leetcode",
        slug: "long",
        title: "Long",
        link: "https://leetcode.com/problems/long/",
        content: lines,
      }),
    );
    try {
      const result = await call("get_problem", { source: "leetcode", id: "long" });
      expect(result.isError).toBe(false);
      expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(100_000);
      expect(Buffer.byteLength(result.text)).toBeGreaterThan(95_000);
      const [kept, note] = [
        result.text.slice(0, result.text.lastIndexOf("\n[")),
        result.text.slice(result.text.lastIndexOf("\n[") + 1),
      ];
      expect(kept).toMatch(/x{40}\n$/); // a whole line, not a cut one
      expect(note).toMatch(
        /^\[get_problem: text cut at \d+ of \d+ bytes to fit the output budget of 100000 bytes \(--max-output-bytes\); /,
      );
      expect(note).toContain("read the whole statement at https://leetcode.com/problems/long/");
      // structuredContent is held to the same budget, cut at a line with the same pointer (issue 19).
      expect(Buffer.byteLength(JSON.stringify(result.structured))).toBeLessThanOrEqual(100_000);
      const structured = (result.structured as { problem: { content: string } }).problem.content;
      expect(structured).toMatch(
        /x{40}\n+\[get_problem: cut at \d+ of \d+ bytes to fit the output budget of 100000 bytes/,
      );
      expect(structured).toContain("read the whole statement at https://leetcode.com/problems/long/");
    } finally {
      fake.clearOverrides();
    }
  });

  test("for any statement size and unit: the text stays within both limits and is valid UTF-8", async () => {
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 90_000, max: 120_000 }),
          fc.constantFrom("a", "é", "中", "😀"),
          fc.boolean(),
          async (size, unit, useWide) => {
            const content = unit.repeat(Math.ceil(size / Buffer.byteLength(unit)));
            fake.override("GET", "/api/v1/problems/leetcode/sized", () =>
              Response.json({ id: "sized", source: "leetcode", slug: "s", title: "S", content }),
            );
            const result = await call("get_problem", { source: "leetcode", id: "sized" }, useWide ? wide : server);
            expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(useWide ? 102_417 : 100_000);
            expect(result.text.toWellFormed()).toBe(result.text);
          },
        ),
        { numRuns: 12 },
      );
    } finally {
      fake.clearOverrides();
    }
  });
});

describe("an upstream link of any length keeps the cut note within the budget", () => {
  test("--max-output-bytes 20000, a 737-byte link and a 115 KB statement: one cut, by the tool, each half saying so", async () => {
    const small = await startStdioServer({
      args: ["--toolsets", "oj", "--oj-base-url", fake.url, "--oj-token", TOKEN, "--max-output-bytes", "20000"],
    });
    const link = `https://leetcode.com/problems/x/?ref=${"a".repeat(700)}`;
    const content = Array.from({ length: 2_300 }, (_, i) => `<p>line ${i} ${"x".repeat(40)}</p>`).join("\n");
    fake.override("GET", "/api/v1/problems/leetcode/longlink", () =>
      Response.json({ id: "longlink", source: "leetcode", slug: "l", title: "L", link, content }),
    );
    try {
      await small.client.listTools(); // the SDK client then validates structuredContent
      const result = (await small.client.callTool({
        name: "get_problem",
        arguments: { source: "leetcode", id: "longlink" },
      })) as unknown as {
        content: { text: string }[];
        structuredContent: { problem: { content: string; link: string }; truncated?: { continuation: string } };
      };
      const text = result.content[0].text;
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(20_000);
      // The tool's own note, not the last resort's (which took the cut structuredContent for complete).
      expect(text).not.toContain("output cut at");
      expect(text).not.toContain("structuredContent holds the complete result");
      const note = text.slice(text.lastIndexOf("\n[") + 1);
      expect(note).toStartWith("[get_problem: text cut at ");
      expect(note).toContain(`read the whole statement at ${link.slice(0, 117)}… (cut with …`);
      expect(Buffer.byteLength(note)).toBeLessThan(600);
      expect(text).toContain(`- Link: ${link}\n`);
      const structured = result.structuredContent;
      expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(20_000);
      expect(structured.problem.link).toBe(link);
      expect(structured.problem.content).toMatch(/\[get_problem: cut at \d+ of \d+ bytes/);
      expect(structured.truncated?.continuation).toStartWith(
        "The statement (content) is cut to fit the output budget of 20000 bytes (--max-output-bytes); read the whole statement at https://leetcode.com/problems/x/",
      );
    } finally {
      fake.clearOverrides();
      await small.close();
    }
  });

  test("a result that fits carries no truncated field", async () => {
    const result = await call("get_problem", { source: "leetcode", id: "1" });
    expect(result.isError).toBe(false);
    expect(result.structured && "truncated" in result.structured).toBe(false);
  });
});

describe("a statement that is most of the result keeps most of the budget in structuredContent too", () => {
  // Claude Code and VS Code show a model only structuredContent: a 100 KB statement was cut there
  // to nothing ("cut at 0 of 102417 bytes") under budgets up to 5,000 while the text kept 1,400.
  for (const budget of [2_000, 20_000]) {
    test(`--max-output-bytes ${budget}: the statement keeps about as much as in the text`, async () => {
      const small = await startStdioServer({
        args: [
          "--toolsets",
          "oj",
          "--oj-base-url",
          fake.url,
          "--oj-token",
          TOKEN,
          "--max-output-bytes",
          String(budget),
        ],
      });
      // Quotes, backslashes and control characters grow in JSON: the fit accounts for that too.
      const escaped = Array.from({ length: 3_000 }, (_, i) => `"q" \\ \u0001 line ${i}`).join("\n");
      fake.override("GET", "/api/v1/problems/leetcode/escaped", () =>
        Response.json({ id: "escaped", source: "leetcode", slug: "e", title: "E", content: escaped }),
      );
      try {
        await small.client.listTools(); // the SDK client then validates structuredContent
        for (const id of ["huge-statement", "escaped"]) {
          const result = (await small.client.callTool({
            name: "get_problem",
            arguments: { source: "leetcode", id },
          })) as unknown as { structuredContent: { problem: { content: string } } };
          const json = Buffer.byteLength(JSON.stringify(result.structuredContent));
          const content = result.structuredContent.problem.content;
          const shown = Number(/cut at (\d+) of \d+ bytes/.exec(content)?.[1]);
          expect({ id, fits: json <= budget }).toEqual({ id, fits: true });
          expect({ id, used: json > budget * 0.9 }).toEqual({ id, used: true });
          expect(shown).toBeGreaterThan((budget - 1_000) / (id === "escaped" ? 2 : 1));
          expect(content.startsWith(id === "escaped" ? '"q" \\ ' : "多字节文本")).toBe(true);
        }
      } finally {
        fake.clearOverrides();
        await small.close();
      }
    });
  }
});
