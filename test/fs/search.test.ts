/**
 * fs_search_by_time end to end, through a real `mcpkit` process over stdio (and `mcpkit call`):
 * the contract's examples, every argument, every error, containment, roots and created-time handling.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { convertToJsonSchema } from "../../src/core/json-schema.ts";
import { searchInput, searchOutput } from "../../src/toolsets/fs/schema.ts";
import { mcpkitCommand, type RunningServer, REPO_ROOT, runCli, startStdioServer, testEnv } from "../support/mcp.ts";

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: {
    timeField: string;
    range: { from: string | null; to: string | null };
    matches: {
      path: string;
      isDirectory: boolean;
      sizeBytes: number | null;
      modifiedAt: string;
      createdAt: string | null;
    }[];
    nextCursor: string | null;
    stats: { scannedFiles: number; scannedDirectories: number; returned: number };
  };
  isError?: boolean;
};

const at = (iso: string) => new Date(iso);
let base: string; // holds root, root2 (a sibling with a shared prefix) and outside
let root: string;
let server: RunningServer;

/** root/ layout; every file's mtime is fixed so results are exact. */
const FILES: Record<string, string> = {
  "a.md": "2025-12-10T00:00:00Z",
  "b.txt": "2025-12-15T12:00:00Z",
  "from-edge.md": "2025-12-01T00:00:00Z", // exactly 'from': included
  "to-edge.md": "2025-12-16T00:00:00Z", // exactly 'to': excluded
  "old.md": "2024-01-01T00:00:00Z",
  "docs/guide.md": "2025-12-12T00:00:00Z",
  "docs/tie-b.md": "2025-11-01T00:00:00Z",
  "docs/tie-a.md": "2025-11-01T00:00:00Z",
  "docs/deep/deeper/bottom.md": "2025-10-01T00:00:00Z",
  ".hidden/secret.md": "2025-12-11T00:00:00Z",
};
const DIRS: Record<string, string> = {
  docs: "2025-09-01T00:00:00Z",
  "docs/deep": "2025-09-02T00:00:00Z",
  "docs/deep/deeper": "2025-09-03T00:00:00Z",
  ".hidden": "2025-09-04T00:00:00Z",
};

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-fs-search-"));
  root = join(base, "root");
  for (const [file, when] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), file);
    utimesSync(join(root, file), at(when), at(when));
  }
  mkdirSync(join(base, "root2"));
  writeFileSync(join(base, "root2", "sibling.md"), "x");
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside", "leak.md"), "x");
  symlinkSync(join(base, "outside"), join(root, "link-out")); // a directory link leaving the root
  symlinkSync(join(base, "root2"), join(root, "link-sibling")); // into the prefix sibling
  symlinkSync(join(base, "outside", "leak.md"), join(root, "leak-link.md")); // a file link leaving the root
  symlinkSync(join(root, "docs"), join(root, "docs-link")); // a link staying inside
  for (const [dir, when] of Object.entries(DIRS)) utimesSync(join(root, dir), at(when), at(when));
  server = await startStdioServer({ args: ["--toolsets", "fs", "--root", root] });
});
afterAll(async () => {
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

async function search(
  args: Record<string, unknown>,
  on: RunningServer = server,
  name = "fs_search_by_time",
): Promise<Result> {
  return (await on.client.callTool({ name, arguments: args })) as Result;
}
/** The summary without its last sentence, the server's current time. */
const summaryOf = (result: Result) =>
  result.content[0].text.replace(/ Server time: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(UTC\)\.$/, "");
const paths = (result: Result) => result.structuredContent?.matches.map((m) => m.path);
const SEED_RANGE = { timeField: "modified", from: "2025-12-01T00:00:00Z", to: "2025-12-16T00:00:00Z" };

describe("tools/list", () => {
  test("shows the seed's schemas (JSON Schema 2020-12 from valibot) and read-only annotations", async () => {
    const { tools } = await server.client.listTools();
    const tool = tools.find((t) => t.name === "fs_search_by_time");
    expect(tools.map((t) => t.name)).not.toContain("fs.search_by_time");
    expect(tool).toBeDefined();
    expect(tool?.inputSchema).toMatchObject({ type: "object", additionalProperties: false, required: ["timeField"] });
    // What the process shows is what the schema module produces (units.test.ts compares that with the contract).
    expect(tool?.inputSchema).toEqual(convertToJsonSchema(searchInput, "input") as never);
    expect(tool?.outputSchema).toEqual(convertToJsonSchema(searchOutput, "output") as never);
    const matchesSchema = (tool?.outputSchema?.properties?.matches ?? { items: { properties: {} } }) as {
      items: { properties: Record<string, unknown> };
    };
    const createdAt = matchesSchema.items.properties.createdAt;
    expect(createdAt).toEqual({ type: ["string", "null"], format: "date-time" });
    expect(tool?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tool?.description).toContain("relative to the root");
    expect(tool?.description).toContain(`Allowed roots: ${root} (the first is the default`);
  });
});

describe("the seed's examples", () => {
  test("success: a one-line summary with the server's time, one line per match, and structuredContent", async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const result = await search(SEED_RANGE);
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(2);
    expect(summaryOf(result)).toBe("Found 5 files (sorted by modified desc).");
    const serverTime = Date.parse(/Server time: (\S+) \(UTC\)/.exec(result.content[0].text)?.[1] ?? "");
    expect(serverTime).toBeGreaterThanOrEqual(before);
    expect(serverTime).toBeLessThanOrEqual(Date.now());
    // structuredContent states the same time (Claude Code and VS Code show a model only that half).
    expect((result.structuredContent as { serverTime?: string }).serverTime).toBe(
      /Server time: (\S+) \(UTC\)/.exec(result.content[0].text)?.[1],
    );
    const lines = result.content[1].text.split("\n");
    expect(lines[0]).toBe("path\tmodifiedAt\tsizeBytes");
    expect(lines.slice(1)).toEqual(
      result.structuredContent?.matches.map((m) => `${m.path}\t${m.modifiedAt}\t${m.sizeBytes}`) as string[],
    );
    expect(result.structuredContent).toMatchObject({
      timeField: "modified",
      range: { from: "2025-12-01T00:00:00Z", to: "2025-12-16T00:00:00Z" },
      nextCursor: null,
      stats: { scannedFiles: Object.keys(FILES).length, scannedDirectories: 5, returned: 5 },
    });
    // from is inclusive, to exclusive; hidden entries count as entries when there is no glob.
    expect(paths(result)).toEqual(["b.txt", "docs/guide.md", ".hidden/secret.md", "a.md", "from-edge.md"]);
    const b = result.structuredContent?.matches[0];
    expect(b).toEqual({
      path: "b.txt",
      isDirectory: false,
      sizeBytes: 5,
      modifiedAt: "2025-12-15T12:00:00Z",
      createdAt: new Date(lstatSync(join(root, "b.txt")).birthtimeMs).toISOString().replace(".000Z", "Z"),
    });
  });

  test("error: from >= to gives the seed's text as an isError result", async () => {
    for (const to of ["2025-12-01T00:00:00Z", "2025-11-30T00:00:00Z", "2025-12-01T09:00:00+09:00"]) {
      const result = await search({ timeField: "modified", from: "2025-12-01T00:00:00Z", to });
      expect(result).toEqual({
        content: [{ type: "text", text: "Invalid range: 'from' must be earlier than 'to'." }],
        isError: true,
      });
    }
  });
});

describe("arguments", () => {
  test("offsets are honoured and the range is echoed in UTC", async () => {
    const result = await search({
      timeField: "modified",
      from: "2025-12-10T09:00:00+09:00",
      to: "2025-12-12T09:00:00+09:00",
    });
    expect(result.structuredContent?.range).toEqual({ from: "2025-12-10T00:00:00Z", to: "2025-12-12T00:00:00Z" });
    expect(paths(result)).toEqual([".hidden/secret.md", "a.md"]);
  });

  test("sorts: time_asc and path_asc, ties broken by path", async () => {
    const window = { timeField: "modified", from: "2025-10-15T00:00:00Z", to: "2025-12-02T00:00:00Z" };
    expect(paths(await search({ ...window, sort: "time_asc" }))).toEqual([
      "docs/tie-a.md",
      "docs/tie-b.md",
      "from-edge.md",
    ]);
    expect(paths(await search({ ...window, sort: "time_desc" }))).toEqual([
      "from-edge.md",
      "docs/tie-a.md",
      "docs/tie-b.md",
    ]);
    const all = await search({ timeField: "modified", sort: "path_asc" });
    expect(paths(all)).toEqual([...Object.keys(FILES)].sort());
    expect(summaryOf(all)).toBe("Found 10 files (sorted by path).");
  });

  test("includeDirectories / includeFiles choose the entry types; directories have sizeBytes null", async () => {
    const dirs = await search({
      timeField: "modified",
      includeFiles: false,
      includeDirectories: true,
      sort: "path_asc",
    });
    expect(paths(dirs)).toEqual([".hidden", "docs", "docs/deep", "docs/deep/deeper"]);
    expect(dirs.structuredContent?.matches.every((m) => m.isDirectory && m.sizeBytes === null)).toBe(true);
    expect(summaryOf(dirs)).toBe("Found 4 directories (sorted by path).");
    expect(dirs.content[1].text.split("\n")[1]).toMatch(/^\.hidden\/\t\S+Z\t-$/);
    const both = await search({
      timeField: "modified",
      includeDirectories: true,
      from: "2025-01-01T00:00:00Z",
      to: "2025-09-03T00:00:00Z",
    });
    expect(paths(both)).toEqual(["docs/deep", "docs"]);
    expect(both.content[0].text).toStartWith("Found 2 entries");
    const none = await search({ timeField: "modified", includeFiles: false });
    expect(none.structuredContent?.matches).toEqual([]);
  });

  test("path starts below the root; match paths stay relative to the root", async () => {
    const result = await search({ timeField: "modified", path: "docs/deep", sort: "path_asc" });
    expect(paths(result)).toEqual(["docs/deep/deeper/bottom.md"]);
    const viaLink = await search({ timeField: "modified", path: "docs-link/deep", sort: "path_asc" });
    expect(paths(viaLink)).toEqual(["docs/deep/deeper/bottom.md"]);
    for (const match of (await search({ timeField: "modified" })).structuredContent?.matches ?? []) {
      expect(match.path.startsWith("/")).toBe(false);
      expect(match.path).not.toContain(base);
    }
  });

  test("recursive=false and maxDepth count levels below the start", async () => {
    const top = ["a.md", "b.txt", "from-edge.md", "old.md", "to-edge.md"];
    expect(paths(await search({ timeField: "modified", recursive: false, sort: "path_asc" }))).toEqual(top);
    expect(paths(await search({ timeField: "modified", recursive: false, maxDepth: 5, sort: "path_asc" }))).toEqual(
      top,
    );
    expect(paths(await search({ timeField: "modified", maxDepth: 1, sort: "path_asc" }))).toEqual(top);
    expect(paths(await search({ timeField: "modified", maxDepth: 2, path: "docs", sort: "path_asc" }))).toEqual([
      "docs/guide.md",
      "docs/tie-a.md",
      "docs/tie-b.md",
    ]);
    expect(paths(await search({ timeField: "modified", maxDepth: 3, path: "docs", sort: "path_asc" }))).toEqual([
      "docs/deep/deeper/bottom.md",
      "docs/guide.md",
      "docs/tie-a.md",
      "docs/tie-b.md",
    ]);
    expect(paths(await search({ timeField: "modified", maxDepth: 0 }))).toEqual([]);
  });

  test("maxDepth 0 (the seed allows it) says that only the start directory itself is examined, in both halves", async () => {
    const notices = (result: Result) => (result.structuredContent as { notices?: string[] } | undefined)?.notices;
    const zero = await search({ timeField: "modified", maxDepth: 0, includeDirectories: true });
    expect(paths(zero)).toEqual([]);
    const notice = notices(zero)?.find((sentence) => sentence.includes("maxDepth of 0"));
    expect(notice).toContain("examines only the start directory itself");
    expect(notice).toContain("use maxDepth 1 for the entries directly in it");
    expect(zero.content[0].text).toContain(notice ?? "(no notice)");
    // Not when maxDepth is ignored (recursive=false) or examines entries.
    expect(notices(await search({ timeField: "modified", maxDepth: 0, recursive: false }))).toBeUndefined();
    expect(notices(await search({ timeField: "modified", maxDepth: 1 }))).toBeUndefined();
    // And the schema says what the numbers mean before a call.
    const schema = convertToJsonSchema(searchInput, "input") as { properties: { maxDepth: { description: string } } };
    expect(schema.properties.maxDepth.description).toContain("1 = only the entries directly in it");
    expect(schema.properties.maxDepth.description).toContain("0 examines only the start directory itself");
  });

  test("glob has fast-glob semantics relative to the start path", async () => {
    expect(paths(await search({ timeField: "modified", glob: "*.md", sort: "path_asc" }))).toEqual([
      "a.md",
      "from-edge.md",
      "old.md",
      "to-edge.md",
    ]);
    expect(paths(await search({ timeField: "modified", glob: "**/*.md", sort: "path_asc" }))).toEqual(
      Object.keys(FILES)
        .filter((f) => f.endsWith(".md") && !f.startsWith("."))
        .sort(),
    );
    expect(paths(await search({ timeField: "modified", glob: "**/.hidden/*.md" }))).toEqual([".hidden/secret.md"]);
    expect(paths(await search({ timeField: "modified", path: "docs", glob: "tie-*.md", sort: "path_asc" }))).toEqual([
      "docs/tie-a.md",
      "docs/tie-b.md",
    ]);
    expect(paths(await search({ timeField: "modified", glob: "{a,b}.*", sort: "path_asc" }))).toEqual([
      "a.md",
      "b.txt",
    ]);
    expect(
      paths(
        await search({
          timeField: "modified",
          glob: "docs/**",
          includeDirectories: true,
          includeFiles: false,
          sort: "path_asc",
        }),
      ),
    ).toEqual(["docs/deep", "docs/deep/deeper"]);
  });

  test("symbolic links are never followed and never reported", async () => {
    const all =
      paths(await search({ timeField: "modified", includeDirectories: true, limit: 1000, sort: "path_asc" })) ?? [];
    for (const link of ["link-out", "link-sibling", "leak-link.md", "docs-link"])
      expect(all.some((p) => p === link || p.startsWith(`${link}/`))).toBe(false);
    expect(all.some((p) => p.includes("leak") || p.includes("sibling"))).toBe(false);
  });
});

describe("errors are isError results whose text names the argument", () => {
  // Functions, because `root` only exists once beforeAll has run.
  const cases: [string, () => Record<string, unknown>, RegExp][] = (
    [
      ["unparsable from", { timeField: "modified", from: "yesterday" }, /"from".*ISO 8601/],
      ["unparsable to", { timeField: "modified", to: "2025-12-01" }, /"to".*ISO 8601/],
      ["impossible date", { timeField: "modified", from: "2025-02-30T00:00:00Z" }, /'from'.*2025-02-30/],
      ["limit 0", { timeField: "modified", limit: 0 }, /"limit".*1 to 1000/],
      ["limit 1001", { timeField: "modified", limit: 1001 }, /"limit".*1 to 1000/],
      ["limit 2.5", { timeField: "modified", limit: 2.5 }, /"limit".*whole number/],
      ["negative maxDepth", { timeField: "modified", maxDepth: -1 }, /"maxDepth"/],
      ["missing timeField", {}, /"timeField"/],
      ["bad timeField", { timeField: "accessed" }, /"timeField".*"modified" or "created"/],
      ["bad sort", { timeField: "modified", sort: "size" }, /"sort"/],
      ["unknown argument", { timeField: "modified", pattern: "*.md" }, /unknown argument "pattern"/],
      ["root not allowed", { timeField: "modified", root: "/etc" }, /'root' "\/etc" is not an allowed root/],
      ["sibling root with a shared prefix", () => ({ timeField: "modified", root: `${root}2` }), /not an allowed root/],
      ["path with ..", { timeField: "modified", path: ".." }, /'path' must stay inside the root/],
      [
        "path climbing into the sibling",
        { timeField: "modified", path: "../root2" },
        /'path' must stay inside the root/,
      ],
      [
        "path climbing after a dir",
        { timeField: "modified", path: "docs/../../outside" },
        /'path' must stay inside the root/,
      ],
      // Named as such: without the check realpath's refusal would answer "does not exist there".
      ["NUL in path", { timeField: "modified", path: "docs\u0000x" }, /^'path' must not contain NUL characters\.$/],
      ["absolute path", { timeField: "modified", path: "/etc" }, /'path' must be relative to the root/],
      [
        "absolute path inside the root",
        () => ({ timeField: "modified", path: join(root, "docs") }),
        /'path' must be relative/,
      ],
      ["symlinked dir pointing outside", { timeField: "modified", path: "link-out" }, /outside the root/],
      ["symlinked dir pointing into the sibling", { timeField: "modified", path: "link-sibling" }, /outside the root/],
      ["path below a link out", { timeField: "modified", path: "link-out/." }, /outside the root/],
      [
        "missing path",
        { timeField: "modified", path: "nope" },
        /'path' "nope" is not a directory inside the root.*does not exist there/,
      ],
      ["file as path", { timeField: "modified", path: "a.md" }, /not a directory/],
      ["absolute glob", { timeField: "modified", glob: "/etc/**" }, /'glob' must be relative/],
      ["glob with ..", { timeField: "modified", glob: "../**" }, /'glob' must not contain '\.\.'/],
      ["garbage cursor", { timeField: "modified", cursor: "abc" }, /Invalid cursor/],
    ] as [string, Record<string, unknown> | (() => Record<string, unknown>), RegExp][]
  ).map(([name, args, pattern]) => [name, typeof args === "function" ? args : () => args, pattern]);
  for (const [name, args, pattern] of cases) {
    test(name, async () => {
      const result = await search(args());
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content).toHaveLength(1);
      expect(result.content[0].text).toMatch(pattern);
    });
  }

  test("through a link out of the root, what exists outside answers like what does not (no existence probe)", async () => {
    const existing = await search({ timeField: "modified", path: "link-out/leak.md" });
    const missing = await search({ timeField: "modified", path: "link-out/no-such-file" });
    expect(existing.isError).toBe(true);
    expect(missing.isError).toBe(true);
    const text = (result: typeof existing, path: string) => result.content[0].text.replace(path, "PATH");
    expect(text(existing, "link-out/leak.md")).toBe(text(missing, "link-out/no-such-file"));
  });

  test("a cursor is bound to its query and tamper-evident", async () => {
    const first = await search({ timeField: "modified", limit: 2 });
    const cursor = first.structuredContent?.nextCursor as string;
    expect(typeof cursor).toBe("string");
    const next = await search({ timeField: "modified", limit: 2, cursor });
    expect(next.isError).toBeFalsy();
    for (const other of [
      { limit: 3 },
      { sort: "path_asc" },
      { glob: "**" },
      { from: "2020-01-01T00:00:00Z" },
      { timeField: "created" },
      { path: "docs" },
    ]) {
      const result = await search({ timeField: "modified", limit: 2, ...other, cursor });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain("Invalid cursor: it belongs to a different query");
    }
    const [payload, mac] = cursor.split(".");
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), p: "zzz" }),
    ).toString("base64url");
    for (const bad of [`${forged}.${mac}`, `${payload}.${mac.slice(1)}`, `${payload}x.${mac}`]) {
      const result = await search({ timeField: "modified", limit: 2, cursor: bad });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain("it was modified");
    }
  });
});

describe("server limits", () => {
  test("--fs-max-depth stops the walk and the summary says so", async () => {
    const limited = await startStdioServer({ args: ["--toolsets", "fs", "--root", root, "--fs-max-depth", "2"] });
    try {
      const result = await search({ timeField: "modified", sort: "path_asc" }, limited);
      expect(paths(result)).not.toContain("docs/deep/deeper/bottom.md");
      expect(result.content[0].text).toContain("deeper than 2 levels");
      const shallow = await search({ timeField: "modified", maxDepth: 1 }, limited);
      expect(shallow.content[0].text).not.toContain("deeper than"); // the caller's own limit needs no notice
    } finally {
      await limited.close();
    }
  });
});

describe("roots", () => {
  test("the client's roots are used when none is configured, and re-read after roots/list_changed", async () => {
    const viaClient = await startStdioServer({ args: ["--toolsets", "fs"], roots: [join(root, "docs")] });
    try {
      expect((await viaClient.client.listTools()).tools.map((t) => t.name)).toContain("fs_search_by_time");
      expect(paths(await search({ timeField: "modified", sort: "path_asc", recursive: false }, viaClient))).toEqual([
        "guide.md",
        "tie-a.md",
        "tie-b.md",
      ]);
      // The notification goes down the same pipe ahead of the next call, and the server drops its
      // cached roots as it reads it: no wait is needed.
      await viaClient.setRoots([join(base, "outside")]);
      expect(paths(await search({ timeField: "modified" }, viaClient))).toEqual(["leak.md"]);
      const second = await search({ timeField: "modified", root: join(root, "docs") }, viaClient);
      expect(second.isError).toBe(true);
    } finally {
      await viaClient.close();
    }
  });

  test("several configured roots: 'root' picks one (default: the first)", async () => {
    const two = await startStdioServer({
      args: ["--toolsets", "fs", "--root", join(root, "docs"), "--root", join(base, "outside")],
    });
    try {
      expect(paths(await search({ timeField: "modified", recursive: false, sort: "path_asc" }, two))).toEqual([
        "guide.md",
        "tie-a.md",
        "tie-b.md",
      ]);
      expect(paths(await search({ timeField: "modified", root: join(base, "outside") }, two))).toEqual(["leak.md"]);
      expect(paths(await search({ timeField: "modified", root: join(base, "outside", ".") }, two))).toEqual([
        "leak.md",
      ]);
    } finally {
      await two.close();
    }
  });

  test("MCPKIT_ROOTS holds several roots separated by the path delimiter", async () => {
    const env = { MCPKIT_ROOTS: [join(root, "docs"), join(base, "outside")].join(":") };
    const run = await runCli(
      ["call", "fs_search_by_time", JSON.stringify({ timeField: "modified", root: join(base, "outside") })],
      { env },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(["leak.md"]);
  });

  test("without configured roots the tool stays listed; no client roots is an isError saying how to configure one", async () => {
    const noRoots = await startStdioServer({ args: ["--toolsets", "fs"] });
    try {
      expect((await noRoots.client.listTools()).tools.map((t) => t.name)).toContain("fs_search_by_time");
      const result = await search({ timeField: "modified" }, noRoots);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain("--root DIR");
      expect(noRoots.stderr()).toContain("fs: no --root given");
    } finally {
      await noRoots.close();
    }
    const emptyRoots = await startStdioServer({ args: ["--toolsets", "fs"], roots: [] });
    try {
      const result = await search({ timeField: "modified" }, emptyRoots);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain("--root DIR");
      expect(result.content[0].text).toContain("MCPKIT_ROOTS");
    } finally {
      await emptyRoots.close();
    }
  });

  test("a missing --root is a start-up error naming it", async () => {
    const run = await runCli(["--toolsets", "fs", "--root", join(base, "missing")]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("--root");
    expect(run.stderr).toContain("missing");
  });
});

describe("mcpkit call", () => {
  test("prints the result; exit 0, and 2 for arguments wrong in meaning (a usage error)", async () => {
    for (const name of ["fs_search_by_time", "fs.search_by_time"]) {
      const ok = await runCli(["call", name, JSON.stringify(SEED_RANGE), "--root", root]);
      expect(ok.code).toBe(0);
      expect(summaryOf(JSON.parse(ok.stdout))).toBe("Found 5 files (sorted by modified desc).");
    }
    const bad = await runCli([
      "call",
      "fs_search_by_time",
      JSON.stringify({ ...SEED_RANGE, to: SEED_RANGE.from }),
      "--root",
      root,
    ]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).content[0].text).toBe("Invalid range: 'from' must be earlier than 'to'.");
  });

  test("uses the current directory when no root is given, and cursors work across processes", async () => {
    const args = { timeField: "modified", sort: "path_asc", limit: 4, recursive: false };
    const first = await runCli(["call", "fs_search_by_time", JSON.stringify(args)], { cwd: root });
    expect(first.code).toBe(0);
    const page1 = JSON.parse(first.stdout).structuredContent;
    expect(page1.matches.map((m: { path: string }) => m.path)).toEqual(["a.md", "b.txt", "from-edge.md", "old.md"]);
    const second = await runCli(["call", "fs_search_by_time", JSON.stringify({ ...args, cursor: page1.nextCursor })], {
      cwd: root,
    });
    expect(second.code).toBe(0);
    const page2 = JSON.parse(second.stdout).structuredContent;
    expect(page2.matches.map((m: { path: string }) => m.path)).toEqual(["to-edge.md"]);
    expect(page2.nextCursor).toBeNull();
  });
});

describe("created time", () => {
  test("created uses the birth time where the file system records one", async () => {
    const result = await search({ timeField: "created", sort: "path_asc", recursive: false });
    expect(result.structuredContent?.matches.map((m) => m.createdAt)).toEqual(
      ["a.md", "b.txt", "from-edge.md", "old.md", "to-edge.md"].map((f) =>
        new Date(Math.floor(lstatSync(join(root, f)).birthtimeMs)).toISOString().replace(".000Z", "Z"),
      ),
    );
  });

  // sysfs keeps no birth time: Linux reports 0 there, a real "unknown created time" (no mocking).
  const SYSFS_DIR = "/sys/kernel/mm";
  const sysfsHasNoBirthTime = (() => {
    try {
      return readdirSync(SYSFS_DIR).length > 0 && lstatSync(SYSFS_DIR).birthtimeMs === 0;
    } catch {
      return false;
    }
  })();
  test.skipIf(!sysfsHasNoBirthTime)(
    "entries without a birth time are left out unless includeUnknownTime, then createdAt is null",
    async () => {
      const sys = await startStdioServer({ args: ["--toolsets", "fs", "--root", SYSFS_DIR] });
      try {
        const hidden = await search({ timeField: "created", maxDepth: 2 }, sys);
        expect(hidden.isError).toBeFalsy();
        expect(hidden.structuredContent?.matches).toEqual([]);
        expect(hidden.content[0].text).toContain("includeUnknownTime=true");
        const shown = await search(
          {
            timeField: "created",
            maxDepth: 2,
            includeDirectories: true,
            includeUnknownTime: true,
            from: "2030-01-01T00:00:00Z",
            limit: 1000,
          },
          sys,
        );
        const matches = shown.structuredContent?.matches ?? [];
        expect(matches.length).toBeGreaterThan(0);
        expect(matches.every((m) => m.createdAt === null && m.modifiedAt.endsWith("Z"))).toBe(true);
        // Unknown times sort by path, deterministically, in both time orders.
        const byPath = matches.map((m) => m.path);
        expect(byPath).toEqual([...byPath].sort());
        const asc = await search(
          {
            timeField: "created",
            maxDepth: 2,
            includeDirectories: true,
            includeUnknownTime: true,
            sort: "time_asc",
            limit: 1000,
          },
          sys,
        );
        expect(asc.structuredContent?.matches.map((m) => m.path)).toEqual(byPath);
        // modified still works there: mtime is always known.
        const modified = await search({ timeField: "modified", maxDepth: 1 }, sys);
        expect((modified.structuredContent?.matches ?? []).every((m) => m.createdAt === null)).toBe(true);
      } finally {
        await sys.close();
      }
    },
  );
});

describe("unreadable directories", () => {
  // root reads everything, so run the search as an unprivileged user when the tests run as root.
  const asRoot = process.getuid?.() === 0;
  const setpriv = Bun.which("setpriv");
  test.skipIf(asRoot && !setpriv)("are skipped, not fatal", async () => {
    const tree = mkdtempSync(join(tmpdir(), "mcpkit-fs-perm-"));
    try {
      mkdirSync(join(tree, "open"));
      mkdirSync(join(tree, "closed"));
      writeFileSync(join(tree, "open", "seen.md"), "x");
      writeFileSync(join(tree, "closed", "unseen.md"), "x");
      chmodSync(tree, 0o755);
      chmodSync(join(tree, "closed"), 0o000);
      const command = [
        ...(asRoot ? [setpriv as string, "--reuid=65534", "--regid=65534", "--clear-groups"] : []),
        ...mcpkitCommand(),
      ];
      const child = Bun.spawn(
        [
          ...command,
          "call",
          "fs_search_by_time",
          JSON.stringify({ timeField: "modified" }),
          "--root",
          tree,
          "--log-level",
          "info",
        ],
        {
          cwd: REPO_ROOT,
          env: testEnv(),
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      // Counted once, in the summary and in one log notification, never one line per directory.
      expect(result.content[0].text).toContain("1 unreadable directory was skipped.");
      expect(stderr.match(/skipped 1 unreadable directory/g)).toHaveLength(1);
      expect(result.structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(["open/seen.md"]);
      expect(result.structuredContent.stats.scannedDirectories).toBe(2);
      // The other half says it too, for clients that show a model only structuredContent.
      expect(result.structuredContent.notices).toEqual(["1 unreadable directory was skipped."]);
    } finally {
      chmodSync(join(tree, "closed"), 0o755);
      rmSync(tree, { recursive: true, force: true });
    }
  });
});

describe("names, hints and the output budget (issue 9)", () => {
  test("the contract's name fs.search_by_time is accepted on call with identical results", async () => {
    const portable = await search({ ...SEED_RANGE, sort: "path_asc" });
    const seed = await search({ ...SEED_RANGE, sort: "path_asc" }, server, "fs.search_by_time");
    expect(seed.isError).toBeFalsy();
    // Everything but the clock, which two calls may read a second apart.
    const withoutClock = (structured: unknown) => ({ ...(structured as object), serverTime: undefined });
    expect(withoutClock(seed.structuredContent)).toEqual(withoutClock(portable.structuredContent));
    expect(seed.content[1]).toEqual(portable.content[1]);
  });

  test("a recursive glob without '/' that matched nothing says that **/ matches at any depth", async () => {
    const result = await search({ timeField: "modified", glob: "guide.md" });
    expect(result.structuredContent?.matches).toEqual([]);
    expect(result.content[0].text).toContain(`use "**/guide.md" to match at any depth`);
    const found = await search({ timeField: "modified", glob: "**/guide.md" });
    expect(paths(found)).toEqual(["docs/guide.md"]);
    expect(found.content[0].text).not.toContain("at any depth");
    const flat = await search({ timeField: "modified", glob: "guide.md", recursive: false });
    expect(flat.content[0].text).not.toContain("at any depth"); // not recursive: nothing to hint
  });

  test("root errors name the allowed roots", async () => {
    const result = await search({ timeField: "modified", root: "/nowhere" });
    expect(result.content[0].text).toContain(`Use one of: ${root}`);
  });

  test("a page is what fits: both halves within the budget, the same matches in each, the literal cursor in the text, and paging to the end returns every file once (issue 19)", async () => {
    // 1,200 files: the 100 kB budget still cuts a 1,000-match page (about 950 fit), and every page
    // re-walks the tree, so more files only make the 2 kB budget's ~80 pages slower.
    const files = 1200;
    const tree = join(root, "many");
    mkdirSync(tree);
    for (let i = 0; i < files; i++)
      writeFileSync(join(tree, `file-with-a-longish-name-${String(i).padStart(4, "0")}.txt`), "x");
    try {
      for (const budget of [2_000, 20_000, 100_000]) {
        const server = await startStdioServer({
          args: ["--toolsets", "fs", "--root", root, "--max-output-bytes", String(budget)],
        });
        try {
          const args = { timeField: "modified", path: "many", limit: 1000, sort: "path_asc" };
          const seen: string[] = [];
          let cursor: string | undefined;
          let largest = { text: 0, json: 0 };
          let pages = 0;
          for (; pages < files; pages++) {
            const result = await search(cursor ? { ...args, cursor } : args, server);
            const text = result.content.map((block) => block.text).join("\n");
            const json = JSON.stringify(result.structuredContent);
            largest = {
              text: Math.max(largest.text, Buffer.byteLength(text)),
              json: Math.max(largest.json, Buffer.byteLength(json)),
            };
            expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
            expect(Buffer.byteLength(json)).toBeLessThanOrEqual(budget);
            const matches = result.structuredContent?.matches ?? [];
            expect(matches.length).toBeGreaterThan(0); // never "0 of N"
            // The text lists exactly the page's matches, line for line.
            expect(result.content[1].text.split("\n").slice(1)).toEqual(
              matches.map((m) => `${m.path}\t${m.modifiedAt}\t${m.sizeBytes}`),
            );
            seen.push(...matches.map((m) => m.path));
            const next = result.structuredContent?.nextCursor ?? null;
            if (next === null) {
              pages++;
              break;
            }
            expect(result.content[0].text).toContain(`cursor "${next}"`);
            cursor = next;
          }
          console.error(
            `fs, budget ${budget}: ${pages} pages, largest text ${largest.text} B, largest JSON ${largest.json} B`,
          );
          expect(pages).toBeGreaterThan(1); // even the largest budget cuts a 1,000-match page
          expect(seen).toHaveLength(files);
          expect(new Set(seen).size).toBe(files);
        } finally {
          await server.close();
        }
      }
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }, 60_000);
});
