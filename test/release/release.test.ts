/**
 * `bun run release` for the host target, end to end through real processes: the archive unpacks,
 * `sha256sum -c` accepts SHA256SUMS, the binary inside answers --version and an MCP initialize,
 * the formula names the archive with its checksum and passes `ruby -c`, and a project whose
 * package.json carries another version yields new names everywhere.
 *
 * Compiling takes seconds, so the file builds twice in all: the project as it is, and a copy
 * with a changed version.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { hostTarget } from "../../scripts/release/compile.ts";
import { DEFAULT_REPOSITORY } from "../../scripts/release/project.ts";
import { type CliResult, REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const hasRuby = hasSystemTool("ruby", "ruby", "the Homebrew formula syntax check (ruby -c)");

const HOST = hostTarget()!;
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const OTHER_VERSION = `${VERSION}-rc.${process.pid}`;
const REPOSITORY = "acme-test/mcpkit";
const BUILD_TIMEOUT_MS = 90_000;

let work: string;
let out: string;

type Outcome = CliResult;

async function exec(command: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Outcome> {
  try {
    return await runProcess(command, { ...options, timeoutMs: BUILD_TIMEOUT_MS });
  } catch {
    throw new Error(`'${command[0]}' is not installed (Debian/Ubuntu: apt-get install -y ${command[0]})`);
  }
}

/** Runs PROJECT/scripts/release.ts for the host target into OUT_DIR. */
async function release(project: string, outDir: string, env: Record<string, string> = {}): Promise<Outcome> {
  const base = testEnv(env);
  if (!env.GITHUB_REPOSITORY) delete base.GITHUB_REPOSITORY;
  return exec(
    [
      process.execPath,
      join(project, "scripts/release.ts"),
      "--targets",
      "host",
      "--out",
      outDir,
      "--npm-out",
      `${outDir}-npm`,
    ],
    {
      cwd: project,
      env: base,
    },
  );
}

/** A copy of the project (sources, scripts, docs; node_modules linked) with PACKAGE_CHANGES applied. */
function copyProject(dir: string, packageChanges: Record<string, unknown>, leaveOut: string[] = []): string {
  for (const entry of ["src", "scripts", "packaging", "README.md", "LICENSE", "tsconfig.json"]) {
    if (!leaveOut.includes(entry)) cpSync(join(REPO_ROOT, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, ...packageChanges }, null, 2));
  return dir;
}

function formulaEntries(formula: string): { url: string; sha256: string }[] {
  const urls = [...formula.matchAll(/^\s*url "([^"]+)"$/gm)].map((m) => m[1]);
  const sums = [...formula.matchAll(/^\s*sha256 "([0-9a-f]{64})"$/gm)].map((m) => m[1]);
  expect(sums).toHaveLength(urls.length);
  return urls.map((url, i) => ({ url, sha256: sums[i] }));
}

function sumsFile(dir: string): Map<string, string> {
  const lines = readFileSync(join(dir, "SHA256SUMS"), "utf8").trimEnd().split("\n");
  return new Map(
    lines.map((line) => {
      const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
      if (!match) throw new Error(`SHA256SUMS line is not "<sha256>  <file>": ${line}`);
      return [match[2], match[1]];
    }),
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcpkit-release-test-"));
  out = join(work, "out");
  const result = await release(REPO_ROOT, out, { GITHUB_REPOSITORY: REPOSITORY });
  if (result.code !== 0) throw new Error(`bun run release failed (exit ${result.code}):\n${result.stderr}`);
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("release for the host target", () => {
  test("leaves no formula in the repository: checksums live only in the release and the tap", () => {
    const tracked = Bun.spawnSync(["git", "ls-files", "*.rb"], { cwd: REPO_ROOT }).stdout.toString();
    const stale = tracked
      .split("\n")
      .filter(Boolean)
      .filter((file) => /sha256 "[0-9a-f]{64}"/.test(readFileSync(join(REPO_ROOT, file), "utf8")));
    expect(stale).toEqual([]);
  });

  const stem = () => `mcpkit-${VERSION}-${HOST}`;
  const archive = () => `${stem()}${HOST.startsWith("windows") ? ".zip" : ".tar.gz"}`;
  const bundle = () => `${stem()}.mcpb`;

  test("writes one archive, one MCP bundle, SHA256SUMS, the formula and server.json, and nothing else", () => {
    expect(readdirSync(out).sort()).toEqual([archive(), bundle(), "SHA256SUMS", "mcpkit.rb", "server.json"].sort());
  });

  test("the archive holds the binary, README.md and LICENSE under a folder named like it", async () => {
    const listing = await exec(["tar", "-tzf", join(out, archive())]);
    expect(listing.code).toBe(0);
    expect(listing.stdout.trim().split("\n").sort()).toEqual(
      [`${stem()}/`, `${stem()}/LICENSE`, `${stem()}/README.md`, `${stem()}/mcpkit`].sort(),
    );
    const unpack = await exec(["tar", "-xzf", join(out, archive()), "-C", work]);
    expect(unpack.code).toBe(0);
    expect(readFileSync(join(work, stem(), "LICENSE"), "utf8")).toBe(readFileSync(join(REPO_ROOT, "LICENSE"), "utf8"));
    expect(readFileSync(join(work, stem(), "README.md"), "utf8")).toBe(
      readFileSync(join(REPO_ROOT, "README.md"), "utf8"),
    );
  });

  test("sha256sum -c accepts SHA256SUMS, which lists every archive and bundle", async () => {
    const sums = sumsFile(out);
    expect([...sums.keys()].sort()).toEqual([archive(), bundle()].sort());
    const check = await exec(["sha256sum", "-c", "SHA256SUMS"], { cwd: out });
    expect(check.stderr).toBe("");
    expect(check.stdout).toBe(`${bundle()}: OK\n${archive()}: OK\n`);
    expect(check.code).toBe(0);
  });

  test("the unpacked binary answers --version with package.json's version", async () => {
    const result = await exec([join(work, stem(), "mcpkit"), "--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `mcpkit ${VERSION}\n` });
  });

  test("the unpacked binary answers an MCP initialize over stdio", async () => {
    const root = mkdtempSync(join(work, "root-"));
    const transport = new StdioClientTransport({
      command: join(work, stem(), "mcpkit"),
      args: ["--root", root],
      env: testEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "release-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: "mcpkit", version: VERSION });
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  test.skipIf(!hasRuby)(
    "the formula names the archive with its checksum and the release URL, and passes ruby -c",
    async () => {
      const formula = readFileSync(join(out, "mcpkit.rb"), "utf8");
      const sums = sumsFile(out);
      const entries = formulaEntries(formula);
      const homebrewArchives = [...sums.keys()].filter((name) => name.endsWith(".tar.gz"));
      expect(entries.map((e) => e.url)).toEqual(
        homebrewArchives.map((name) => `https://github.com/${REPOSITORY}/releases/download/v${VERSION}/${name}`),
      );
      for (const entry of entries) expect(entry.sha256).toBe(sums.get(entry.url.split("/").pop()!)!);
      expect(formula).toContain(`version "${VERSION}"`);
      expect(formula).toContain('shell_output("#{bin}/mcpkit --version")');
      const syntax = await exec(["ruby", "-c", join(out, "mcpkit.rb")]);
      expect(syntax).toMatchObject({ code: 0, stdout: "Syntax OK\n" });
    },
  );
});

describe("release from a package.json with another version", () => {
  test(
    "changes the archive, folder, SHA256SUMS, formula and --version names, with the default repository",
    async () => {
      const project = copyProject(mkdtempSync(join(work, "project-")), { version: OTHER_VERSION });
      const otherOut = join(work, "other-out");
      const result = await release(project, otherOut);
      expect(result.stderr).not.toContain("release:");
      expect(result.code).toBe(0);

      const names = readdirSync(otherOut).filter((name) => name.startsWith("mcpkit-"));
      const stem = `mcpkit-${OTHER_VERSION}-${HOST}`;
      expect(names.sort()).toEqual([`${stem}.mcpb`, `${stem}.tar.gz`]);
      expect([...sumsFile(otherOut).keys()].sort()).toEqual(names);
      const listing = await exec(["tar", "-tzf", join(otherOut, `${stem}.tar.gz`)]);
      expect(
        listing.stdout
          .trim()
          .split("\n")
          .every((path) => path.startsWith(`${stem}/`)),
      ).toBe(true);

      const formula = readFileSync(join(otherOut, "mcpkit.rb"), "utf8");
      expect(formula).not.toContain(`"${VERSION}"`);
      expect(formula).toContain(`version "${OTHER_VERSION}"`);
      expect(formulaEntries(formula).map((e) => e.url)).toEqual([
        `https://github.com/${DEFAULT_REPOSITORY}/releases/download/v${OTHER_VERSION}/${stem}.tar.gz`,
      ]);

      const unpack = await exec(["tar", "-xzf", join(otherOut, `${stem}.tar.gz`), "-C", otherOut]);
      expect(unpack.code).toBe(0);
      const version = await exec([join(otherOut, stem, "mcpkit"), "--version"]);
      expect(version.stdout).toBe(`mcpkit ${OTHER_VERSION}\n`);
    },
    BUILD_TIMEOUT_MS,
  );

  test("refuses a version that is not semver, naming package.json's field", async () => {
    const project = copyProject(mkdtempSync(join(work, "bad-version-")), { version: "one.two" });
    const result = await release(project, join(work, "bad-out"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"version" must be a semantic version');
  });

  test("refuses to build without README.md, which every archive carries", async () => {
    const project = copyProject(mkdtempSync(join(work, "no-readme-")), {}, ["README.md"]);
    const result = await release(project, join(work, "no-readme-out"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("README.md is missing");
  });
});
