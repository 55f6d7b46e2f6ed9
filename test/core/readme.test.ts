/**
 * The README a newcomer reads (issue 19 §3): its order, its snippets and its claims, checked
 * against the files and against what the real process does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { startIdp } from "../auth-server/harness.ts";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { startHttpServer } from "../http/support.ts";
import { REPO_ROOT, runCli, startStdioServer } from "../support/mcp.ts";

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The text of one `##` or `###` section, up to the next heading of the same or a higher level. */
function section(title: string): string {
  const heading = new RegExp(`^(#{2,3}) ${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m").exec(readme);
  if (!heading) throw new Error(`README has no section "${title}"`);
  const rest = readme.slice(heading.index + heading[0].length);
  const next = new RegExp(`^#{2,${heading[1].length}} `, "m").exec(rest);
  return rest.slice(0, next ? next.index : undefined);
}

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "mcpkit-readme-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe("order and links", () => {
  test("Quick start comes right after the introduction, then the contents; every contents link has its heading", () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings.slice(0, 3)).toEqual(["Quick start", "Contents", "Install"]);
    const anchor = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-");
    const anchors = new Set([...readme.matchAll(/^#{2,3} (.+)$/gm)].map((match) => anchor(match[1])));
    const contents = readme.slice(readme.indexOf("## Contents"), readme.indexOf("## Install"));
    for (const [, target] of contents.matchAll(/\]\(#([^)]+)\)/g))
      expect({ target, found: anchors.has(target) }).toEqual({ target, found: true });
  });

  test("the Quick start's commands run: the server on its defaults, the tests, and the tries without a client", async () => {
    const quick = section("Quick start");
    expect(quick).toContain("bun run start          # serve MCP over stdio with the default toolsets");
    expect(quick).toContain("bun test               # run the test suite");
    expect(packageJson.scripts.start).toBe("bun src/main.ts");
    const tools = await runCli(["tools"]);
    expect(tools.code).toBe(0);
    expect(quick).toContain("`bun run start tools` lists the tools");
    const call = await runCli(["call", "boj_list_databases", "--text"]);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("FM08");
    expect(quick).toContain("`bun run start call boj_list_databases --text` runs one");
  });
});

describe("command line", () => {
  test("the Command line section shows the same usage lines as --help", async () => {
    const synopsis = (lines: string[]) =>
      lines.filter((line) => line.startsWith("mcpkit")).map((line) => line.split(/ {2,}/)[0]);
    const block = /```\n([\s\S]*?)```/.exec(section("Command line"))?.[1] ?? "";
    const { stdout } = await runCli(["--help"]);
    const usage = stdout.slice(stdout.indexOf("Usage:"), stdout.indexOf("\n\n", stdout.indexOf("Usage:")));
    const fromHelp = synopsis(usage.split("\n").map((line) => line.trim()));
    expect(fromHelp.length).toBeGreaterThan(5);
    expect(synopsis(block.split("\n"))).toEqual(fromHelp);
  });
});

describe("client snippets", () => {
  const snippets = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]);

  test("every JSON snippet parses when pasted, and none switches on oj against a placeholder host", () => {
    expect(snippets.length).toBeGreaterThan(2);
    for (const snippet of snippets) {
      expect(() => JSON.parse(snippet)).not.toThrow();
      expect(snippet).not.toContain("OJ_BASE_URL");
    }
  });

  test("each snippet's arguments start mcpkit as pasted, for a user whose Documents folder exists", async () => {
    mkdirSync(join(home, "Documents"), { recursive: true });
    const desktop = snippets
      .map((snippet) => JSON.parse(snippet) as { mcpServers?: Record<string, { args: string[] }> })
      .flatMap((config) => Object.values(config.mcpServers ?? {}));
    expect(desktop.length).toBeGreaterThanOrEqual(2); // macOS/Linux and Windows
    for (const { args } of desktop) {
      const run = await runCli([...args, "tools"], { env: { HOME: home, USERPROFILE: home } });
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^fs_search_by_time\s/m);
    }
  });

  test("the config file's location is given per OS, and the Inspector in one line", () => {
    const clients = section("Use it from an MCP client");
    expect(clients).toContain("~/Library/Application Support/Claude/claude_desktop_config.json");
    expect(clients).toContain("%APPDATA%\\Claude\\claude_desktop_config.json");
    expect(clients).toMatch(/`npx @modelcontextprotocol\/inspector mcpkit [^`]*`/);
  });
});

describe("uninstall names every file mcpkit creates", () => {
  const uninstall = section("Uninstall");

  test("--auth oauth: the default state folder, and sqlite:PATH given to --state", async () => {
    const idp = await startIdp();
    const stateHome = join(home, "state-home");
    const given = join(home, "given");
    const oauth = (extra: string[], env: Record<string, string> = {}) =>
      startHttpServer(
        [
          ...["--auth", "oauth", "--upstream-issuer", idp.issuer, "--upstream-client-id", "mcpkit-upstream"],
          ...["--allow", "alice@example.com=*", "--toolsets", "boj", ...extra],
        ],
        { env: { MCPKIT_UPSTREAM_CLIENT_SECRET: "upstream-secret", ...env } },
      );
    try {
      const byDefault = await oauth([], { XDG_STATE_HOME: stateHome });
      await byDefault.stop();
      const created = filesUnder(stateHome).map((file) => relative(stateHome, file));
      expect(created).toContain(join("mcpkit", "auth.db"));
      expect(uninstall).toContain("`$XDG_STATE_HOME/mcpkit/`");
      for (const file of created) expect(uninstall).toContain(`\`${file.replace(/^mcpkit\//, "")}\``);

      const withState = await oauth(["--state", `sqlite:${join(given, "team.db")}`]);
      await withState.stop();
      const names = filesUnder(given).map((file) => relative(given, file));
      expect(names).toContain("team.db");
      for (const name of names) expect(uninstall).toContain(`\`${name.replace(/^team\.db/, "PATH")}\``);
    } finally {
      await idp.stop();
    }
  });

  test("--boj-shared-state sqlite:PATH, while a process has it open", async () => {
    const fake = startFakeBoj();
    const dir = join(home, "shared");
    const server = await startStdioServer({
      args: ["--toolsets", "boj", "--boj-base-url", fake.url, "--boj-shared-state", `sqlite:${join(dir, "boj.db")}`],
    });
    try {
      const result = await server.client.callTool({ name: "boj_get_metadata", arguments: { db: "CO" } });
      expect(result.isError).toBeFalsy();
      const names = filesUnder(dir).map((file) => relative(dir, file));
      expect(names).toContain("boj.db");
      for (const name of names) expect(uninstall).toContain(`\`${name.replace(/^boj\.db/, "PATH")}\``);
    } finally {
      await server.close();
      await fake.stop();
    }
  });
});

describe("development", () => {
  test("every environment switch a test reads is in the Development section", () => {
    const development = section("Development");
    const sources = new Bun.Glob("test/**/*.ts").scanSync({ cwd: REPO_ROOT });
    const read = new Set<string>();
    for (const path of sources) {
      // Fixtures are child processes the tests configure; their variables are not switches for people.
      if (path.includes("/fixtures/")) continue;
      const text = readFileSync(join(REPO_ROOT, path), "utf8");
      for (const [, name] of text.matchAll(/(?:process\.env|Bun\.env)\.([A-Z][A-Z0-9_]+)/g)) read.add(name);
    }
    expect(read.size).toBeGreaterThan(2);
    // The system's own variables, passed through to child processes, are nobody's switch.
    for (const system of ["PATH", "HOME", "TMPDIR", "USER"]) read.delete(system);
    for (const name of read)
      expect({ name, documented: development.includes(`\`${name}=`) }).toEqual({ name, documented: true });
  });

  test("how to run one test, lint and format, and what .ci/run installs with apt", () => {
    const development = section("Development");
    expect(development).toMatch(/bun test test\/\S+\.test\.ts +# one file/);
    expect(development).toContain("bun run lint");
    expect(development).toContain("bun run format");
    expect(packageJson.scripts.lint).toStartWith("biome check");
    expect(packageJson.scripts.format).toStartWith("biome check --write");
    const ci = readFileSync(join(REPO_ROOT, ".ci/run"), "utf8");
    const installed = [...ci.matchAll(/\|\| missing\+=\((\w+)\)/g)].map((match) => match[1]);
    expect(installed.length).toBeGreaterThan(3);
    for (const name of installed) expect(development).toContain(`\`${name}\``);
  });

  test("CONTRIBUTING, SECURITY and CHANGELOG exist and are linked; package.json names the engine", () => {
    for (const file of ["CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md"]) {
      expect(readFileSync(join(REPO_ROOT, file), "utf8").length).toBeGreaterThan(200);
      expect(readme).toContain(`](${file})`);
    }
    const security = readFileSync(join(REPO_ROOT, "SECURITY.md"), "utf8");
    expect(security).toContain("## Reporting a vulnerability");
    expect(security).toContain("## In scope");
    expect(packageJson.engines.bun).toMatch(/^>=1\.4/);
  });
});

describe("install links", () => {
  test("the README's one-click links decode to the released package run through npx", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const cursor = /\(cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?([^)]+)\)/.exec(readme)?.[1] ?? "";
    const params = new URLSearchParams(cursor);
    expect(params.get("name")).toBe("mcpkit");
    expect(JSON.parse(Buffer.from(params.get("config") ?? "", "base64").toString())).toEqual({
      command: "npx",
      args: ["-y", "mcpkit"],
    });
    const vscode = /\(vscode:mcp\/install\?([^)]+)\)/.exec(readme)?.[1] ?? "";
    expect(JSON.parse(decodeURIComponent(vscode))).toEqual({
      name: "mcpkit",
      type: "stdio",
      command: "npx",
      args: ["-y", "mcpkit"],
    });
  });
});
