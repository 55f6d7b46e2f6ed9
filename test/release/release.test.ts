/**
 * `bun run release` for the host target, end to end through real processes, from ONE release of a
 * copy of the project whose package.json carries another version than the repository's (so a
 * version or name taken from anywhere but package.json shows): the archive unpacks, `sha256sum -c`
 * accepts SHA256SUMS, the binary inside answers --version and an MCP initialize, the formula names
 * the archive with its checksum and passes `ruby -c`.
 *
 * The assets beyond the archive come from the same release. The MCP bundle: `mcpb validate`
 * accepts its manifest and `mcpb info` reads the packed bundle; unzipped as a host would (binary
 * without its execute bit), the mcp_config that @anthropic-ai/mcpb's own getMcpConfigForManifest
 * expands starts the server, which answers initialize, tools/list and an fs search inside the
 * configured root. Unset options add no flag: the launcher's argument translation is checked with
 * the host's literal leftovers. server.json validates against the registry schema copied into
 * test/fixtures/registry. The npm packages are packed, installed offline from the tarballs into an
 * empty directory, and run: the launcher packed by `npm pack`, the platform package by tar with
 * exactly the files and modes `npm pack` lists for it (npm would gzip the binary at level 9, 6 s).
 *
 * A release compresses a 110 MB binary twice (tar.gz and .mcpb), which was most of its ten seconds
 * at level 9, so the file releases once, at gzip -1 and with the .mcpb stored. The repository's own version is released by .ci/run's release step
 * (`sha256sum -c`, `ruby -c`, `--version`); the default repository name is checked in parts.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv from "ajv";
import { hostTarget } from "../../scripts/release/compile.ts";
import { MCPB_CLI, bundleName, placeholder } from "../../scripts/release/mcpb.ts";
import { SERVER_SCHEMA } from "../../scripts/release/server-json.ts";
import { type CliResult, REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const hasRuby = hasSystemTool("ruby", "ruby", "the Homebrew formula syntax check (ruby -c)");
const hasUnzip = hasSystemTool("unzip", "unzip", "unpacking the .mcpb bundle");
const hasNode = hasSystemTool("node", "nodejs", "the bundle's node-type entry point");
const hasNpm = hasSystemTool("npm", "npm", "packing and installing the npm packages");

const HOST = hostTarget()!;
/** The repository's version, which must appear nowhere in the copy's release. */
const REPO_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
/** The version the copy of the project is released as. */
const VERSION = `${REPO_VERSION}-rc.7`;
const REPOSITORY = "acme-test/mcpkit";
/** A release build is CPU-bound for 10–20 s alone; on a loaded 2-core machine it took over 120 s. */
const TIMEOUT = 300_000;

let work: string;
let out: string;
let npmDir: string;

async function exec(
  command: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  try {
    return await runProcess(command, { ...options, timeoutMs: TIMEOUT });
  } catch {
    throw new Error(`'${command[0]}' is not installed (Debian/Ubuntu: apt-get install -y ${command[0]})`);
  }
}

/** Runs PROJECT/scripts/release.ts for the host target into OUT_DIR (npm packages into OUT_DIR-npm). */
async function release(project: string, outDir: string, env: Record<string, string> = {}): Promise<CliResult> {
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
    { cwd: project, env: base },
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

const stem = `mcpkit-${VERSION}-${HOST}`;
const archive = `${stem}${HOST.startsWith("windows") ? ".zip" : ".tar.gz"}`;
const bundle = bundleName(VERSION, HOST);

const npmEnv = () => ({
  PATH: process.env.PATH ?? "",
  HOME: work,
  npm_config_cache: join(work, "npm-cache"),
  npm_config_update_notifier: "false",
});

/** What `npm pack` puts in a package's tarball: each file's path and mode, from `npm pack --dry-run --json`. */
async function npmPackList(dir: string): Promise<{ path: string; mode: number }[]> {
  const pack = await runProcess(["npm", "pack", dir, "--dry-run", "--json"], {
    cwd: work,
    env: npmEnv(),
    timeoutMs: TIMEOUT,
  });
  if (pack.code !== 0) throw new Error(`npm pack --dry-run ${dir} failed: ${pack.stderr}`);
  const [{ files }] = JSON.parse(pack.stdout) as [{ files: { path: string; mode: number }[] }];
  return files.map(({ path, mode }) => ({ path, mode })).sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The platform package's tarball as `npm pack` would write it, without npm's gzip -9 of the 110 MB
 * binary (6 s of CPU; npm has no setting for its level). npm pack lists the files of a stand-in
 * (the same folder, the binary a small file of the same mode: npm reads no file's contents but
 * package.json's), which must be every file of the real folder with its mode; tar then packs
 * exactly those under `package/`, as npm lays a tarball out.
 */
async function packPlatformPackage(packs: string): Promise<string> {
  const real = join(npmDir, HOST);
  const standIn = join(work, "platform-stand-in");
  cpSync(real, standIn, { recursive: true, filter: (source) => !source.endsWith(join("bin", "mcpkit")) });
  writeFileSync(join(standIn, "bin", "mcpkit"), "#!/bin/sh\n");
  chmodSync(join(standIn, "bin", "mcpkit"), statSync(join(real, "bin", "mcpkit")).mode & 0o777);
  const listed = await npmPackList(standIn);
  const inFolder = readdirSync(real, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(real.length + 1))
    .sort();
  expect(listed.map((file) => file.path)).toEqual(inFolder);
  expect(listed.find((file) => file.path === "bin/mcpkit")?.mode).toBe(0o755);
  const layout = join(work, "platform-tarball");
  mkdirSync(layout);
  symlinkSync(real, join(layout, "package"));
  // A .tar, which `npm install <tarball file>` takes as it takes a .tgz: gzip is not what is checked,
  // and the 110 MB binary would cost 2 s to compress and 1.5 s more to install.
  const tarball = join(packs, `mcpkit-${HOST}-${VERSION}.tar`);
  const names = listed.map((file) => `package/${file.path}`);
  const tar = await runProcess(["tar", "-C", layout, "-h", "-cf", tarball, ...names], { timeoutMs: TIMEOUT });
  if (tar.code !== 0) throw new Error(`tar of the platform package failed: ${tar.stderr}`);
  return tarball;
}

/**
 * Packs both npm packages (the launcher with `npm pack`, the platform package as it would) and
 * installs them offline from the tarballs into an empty app; returns the app's folder and the
 * launcher's tarball. Started as soon as the release is written, so it overlaps the archive and
 * bundle tests.
 */
async function packAndInstallNpm(): Promise<{ app: string; launcherTarball: string }> {
  const packs = join(work, "packs");
  const app = join(work, "app");
  mkdirSync(packs, { recursive: true });
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "package.json"), '{"name":"app","private":true}\n');
  const pack = await runProcess(["npm", "pack", join(npmDir, "mcpkit"), "--silent"], {
    cwd: packs,
    env: npmEnv(),
    timeoutMs: TIMEOUT,
  });
  if (pack.code !== 0) throw new Error(`npm pack ${join(npmDir, "mcpkit")} failed: ${pack.stderr}`);
  const launcherTarball = join(packs, pack.stdout.trim());
  const tarballs = [await packPlatformPackage(packs), launcherTarball];
  // Offline, from the tarballs alone: the other platforms' optional packages are skipped.
  const install = await runProcess(["npm", "install", "--offline", "--no-audit", "--no-fund", ...tarballs], {
    cwd: app,
    env: npmEnv(),
    timeoutMs: TIMEOUT,
  });
  if (install.code !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  return { app, launcherTarball };
}

/** packAndInstallNpm's result or its error, settled without an await so a failure is no unhandled rejection. */
let npmInstalled: Promise<{ app: string; launcherTarball: string } | Error> | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcpkit-release-test-"));
  const project = copyProject(mkdtempSync(join(work, "project-")), { version: VERSION });
  out = join(work, "out");
  npmDir = `${out}-npm`;
  // gzip -1 and a stored .mcpb: what the assets hold is checked, not their size, and level 9 costs
  // 5 s of CPU more for the .tar.gz, 6 s for the .mcpb (parts.test.ts checks level 9 is mcpb pack's).
  const result = await release(project, out, {
    GITHUB_REPOSITORY: REPOSITORY,
    MCPKIT_RELEASE_GZIP_LEVEL: "1",
    MCPKIT_RELEASE_ZIP_LEVEL: "0",
  });
  if (result.code !== 0) throw new Error(`bun run release failed (exit ${result.code}):\n${result.stderr}`);
  if (hasNpm)
    npmInstalled = packAndInstallNpm().catch((error: unknown) =>
      error instanceof Error ? error : new Error(String(error)),
    );
}, TIMEOUT);

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

  test("writes one archive, one MCP bundle, SHA256SUMS, the formula and server.json, named after package.json's version", () => {
    expect(readdirSync(out).sort()).toEqual([archive, bundle, "SHA256SUMS", "mcpkit.rb", "server.json"].sort());
  });

  test(
    "the archive holds the binary, README.md and LICENSE under a folder named like it",
    async () => {
      // One pass: -v lists each entry as it is unpacked (the archive was read twice, to list and to unpack).
      const unpack = await exec(["tar", "-xvzf", join(out, archive), "-C", work]);
      expect(unpack.code).toBe(0);
      expect(unpack.stdout.trim().split("\n").sort()).toEqual(
        [`${stem}/`, `${stem}/LICENSE`, `${stem}/README.md`, `${stem}/mcpkit`].sort(),
      );
      expect(readFileSync(join(work, stem, "LICENSE"), "utf8")).toBe(readFileSync(join(REPO_ROOT, "LICENSE"), "utf8"));
      expect(readFileSync(join(work, stem, "README.md"), "utf8")).toBe(
        readFileSync(join(REPO_ROOT, "README.md"), "utf8"),
      );
      // Listing and unpacking a 40 MB archive took over 5 s (bun test's default) under a loaded parallel run.
    },
    TIMEOUT,
  );

  test("sha256sum -c accepts SHA256SUMS, which lists every archive and bundle", async () => {
    const sums = sumsFile(out);
    expect([...sums.keys()].sort()).toEqual([archive, bundle].sort());
    const check = await exec(["sha256sum", "-c", "SHA256SUMS"], { cwd: out });
    expect(check.stderr).toBe("");
    expect(check.stdout).toBe(`${bundle}: OK\n${archive}: OK\n`);
    expect(check.code).toBe(0);
  });

  test("the unpacked binary answers --version with package.json's version", async () => {
    const result = await exec([join(work, stem, "mcpkit"), "--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `mcpkit ${VERSION}\n` });
  });

  test("the unpacked binary answers an MCP initialize over stdio", async () => {
    const root = mkdtempSync(join(work, "root-"));
    const transport = new StdioClientTransport({
      command: join(work, stem, "mcpkit"),
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

  test("the formula names the archive with its checksum, the version and the release URL, and no other version", () => {
    const formula = readFileSync(join(out, "mcpkit.rb"), "utf8");
    const sums = sumsFile(out);
    const entries = formulaEntries(formula);
    const homebrewArchives = [...sums.keys()].filter((name) => name.endsWith(".tar.gz"));
    expect(entries.map((e) => e.url)).toEqual(
      homebrewArchives.map((name) => `https://github.com/${REPOSITORY}/releases/download/v${VERSION}/${name}`),
    );
    for (const entry of entries) expect(entry.sha256).toBe(sums.get(entry.url.split("/").pop()!)!);
    expect(formula).toContain(`version "${VERSION}"`);
    expect(formula).not.toContain(`"${REPO_VERSION}"`);
    expect(formula).toContain('shell_output("#{bin}/mcpkit --version")');
  });

  test.skipIf(!hasRuby)("the formula passes ruby -c", async () => {
    const syntax = await exec(["ruby", "-c", join(out, "mcpkit.rb")]);
    expect(syntax).toMatchObject({ code: 0, stdout: "Syntax OK\n" });
  });
});

describe("a project the release refuses", () => {
  test("a version that is not semver, naming package.json's field", async () => {
    const project = copyProject(mkdtempSync(join(work, "bad-version-")), { version: "one.two" });
    const result = await release(project, join(work, "bad-out"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"version" must be a semantic version');
  });

  test("a gzip level that is not a digit from 1 to 9, naming the variable", async () => {
    const project = copyProject(mkdtempSync(join(work, "bad-level-")), {});
    const result = await release(project, join(work, "bad-level-out"), { MCPKIT_RELEASE_GZIP_LEVEL: "fast" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('MCPKIT_RELEASE_GZIP_LEVEL must be a digit from 1 to 9 (got "fast")');
  });

  test("a zip level that is not a digit from 0 to 9, naming the variable", async () => {
    const project = copyProject(mkdtempSync(join(work, "bad-zip-level-")), {});
    const result = await release(project, join(work, "bad-zip-level-out"), { MCPKIT_RELEASE_ZIP_LEVEL: "10" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('MCPKIT_RELEASE_ZIP_LEVEL must be a digit from 0 to 9 (got "10")');
  });

  test("no README.md, which every archive carries", async () => {
    const project = copyProject(mkdtempSync(join(work, "no-readme-")), {}, ["README.md"]);
    const result = await release(project, join(work, "no-readme-out"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("README.md is missing");
  });
});

describe.if(hasUnzip && hasNode)("MCP bundle (.mcpb)", () => {
  let unpacked: string;
  let root: string;

  beforeAll(async () => {
    unpacked = join(work, "bundle");
    root = join(work, "bundle-root");
    const unzip = await runProcess(["unzip", "-q", join(out, bundle), "-d", unpacked], { timeoutMs: TIMEOUT });
    if (unzip.code !== 0) throw new Error(`unzip failed: ${unzip.stderr}`);
  }, TIMEOUT);

  test(
    "SHA256SUMS lists the bundle and mcpb validate/info accept it",
    async () => {
      const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
      expect(sums).toContain(`  ${bundle}\n`);
      const validate = await runProcess([process.execPath, MCPB_CLI, "validate", join(unpacked, "manifest.json")], {
        timeoutMs: TIMEOUT,
      });
      expect(validate.stdout + validate.stderr).toContain("Manifest schema validation passes");
      expect(validate.code).toBe(0);
      const info = await runProcess([process.execPath, MCPB_CLI, "info", join(out, bundle)], { timeoutMs: TIMEOUT });
      expect(info.code).toBe(0);
      expect(info.stdout + info.stderr).toContain("mcpkit");
    },
    TIMEOUT,
  );

  test("the bundle is reproducible: every entry carries the archives' fixed time, not the time of packing", async () => {
    const listing = await runProcess(["unzip", "-Z", "-T", join(out, bundle)]);
    const entries = listing.stdout.split("\n").filter((line) => / unx /.test(line));
    expect(entries.length).toBe(5);
    // zipinfo -T prints yyyymmdd.hhmmss: 1980-01-01 00:00 (SOURCE_DATE_EPOCH unset), as the .tar.gz entries.
    for (const entry of entries) expect(entry).toContain(" 19800101.000000 ");
  });

  test("manifest declares spec 0.3, package.json's version, platform overrides and the user_config options", () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
    expect(manifest.manifest_version).toBe("0.3");
    expect(manifest.version).toBe(VERSION);
    expect(manifest.server.mcp_config.platform_overrides.win32.args.join(" ")).toContain("mcpkit.exe");
    expect(manifest.user_config.roots).toMatchObject({ type: "directory", multiple: true });
    expect(manifest.user_config.oj_token.sensitive).toBe(true);
    expect(Object.keys(manifest.user_config).sort()).toEqual(["oj_base_url", "oj_token", "roots", "toolsets"]);
  });

  test(
    "starts from the expanded mcp_config with the binary unpacked without its exec bit",
    async () => {
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, "note.txt"), "hello");
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(join(root, "note.txt"), old, old);
      const binary = join(unpacked, "server", "mcpkit");
      chmodSync(binary, 0o600); // as macOS Claude Desktop extracts it (mcpb #294)
      const manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
      const config = await getMcpConfigForManifest({
        manifest,
        extensionPath: unpacked,
        systemDirs: {},
        userConfig: { roots: [root], toolsets: "fs" },
        pathSeparator: "/",
      });
      if (!config) throw new Error("no mcp_config for the manifest");
      // mcpb leaves an unset option as its literal placeholder; the launcher must drop the pair, or
      // mcpkit would get "${user_config.oj_base_url}" as a URL and refuse to start.
      expect(config.args).toContain(placeholder("user_config.oj_base_url"));
      const transport = new StdioClientTransport({
        command: config.command === "node" ? "node" : config.command,
        args: config.args,
        env: { PATH: process.env.PATH ?? "", HOME: work, ...(config.env as Record<string, string>) },
        stderr: "pipe",
      });
      const client = new Client({ name: "mcpb-test", version: "1.0.0" });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()).toMatchObject({ name: "mcpkit", version: VERSION });
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        expect(names).toContain("fs_search_by_time");
        expect(names).not.toContain("get_platform_status"); // --toolsets fs reached the binary
        const result = await client.callTool({
          name: "fs_search_by_time",
          arguments: { timeField: "modified", from: new Date(old.getTime() - 60_000).toISOString(), glob: "*.txt" },
        });
        expect(JSON.stringify(result.content)).toContain("note.txt");
        expect(statSync(binary).mode & 0o100).toBe(0o100);
      } finally {
        await client.close();
      }
    },
    TIMEOUT,
  );
});

describe("server.json", () => {
  const registrySchema = () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, "test/fixtures/registry/server.schema.json"), "utf8"));
    const ajv = new Ajv({ strict: false, allErrors: true });
    // The schema's only formats are "uri"; ajv knows none without ajv-formats, so check them here.
    ajv.addFormat("uri", (value: string) => URL.canParse(value));
    return { schema, ajv };
  };

  test("validates against the 2025-12-11 registry schema and names the real bundle", () => {
    const { schema, ajv } = registrySchema();
    expect(schema.$id).toBe(SERVER_SCHEMA);
    const serverJson = JSON.parse(readFileSync(join(out, "server.json"), "utf8"));
    const valid = ajv.validate(schema, serverJson);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(serverJson.$schema).toBe(SERVER_SCHEMA);
    expect(serverJson.version).toBe(VERSION);
    const sums = sumsFile(out);
    const mcpb = serverJson.packages.filter((p: { registryType: string }) => p.registryType === "mcpb");
    expect(mcpb).toHaveLength(1);
    expect(mcpb[0].identifier).toBe(`https://github.com/${REPOSITORY}/releases/download/v${VERSION}/${bundle}`);
    expect(mcpb[0].fileSha256).toBe(sums.get(bundle)!);
    const npm = serverJson.packages.find((p: { registryType: string }) => p.registryType === "npm");
    expect(npm).toMatchObject({ identifier: "mcpkit", version: VERSION, transport: { type: "stdio" } });
  });

  test("a server.json the registry would refuse fails the same schema check", () => {
    const { schema, ajv } = registrySchema();
    const serverJson = JSON.parse(readFileSync(join(out, "server.json"), "utf8"));
    serverJson.packages[0].fileSha256 = "not-a-sha";
    expect(ajv.validate(schema, serverJson)).toBe(false);
  });
});

describe.if(hasNpm)("npm packages", () => {
  let app: string;
  let launcherTarball: string;

  beforeAll(async () => {
    const installed = await npmInstalled;
    if (installed === undefined) throw new Error("the release did not run, so nothing was packed");
    if (installed instanceof Error) throw installed;
    ({ app, launcherTarball } = installed);
  }, TIMEOUT);

  test("the launcher lists every platform as optional and the host package carries os/cpu", () => {
    const launcher = JSON.parse(readFileSync(join(npmDir, "mcpkit", "package.json"), "utf8"));
    expect(launcher.version).toBe(VERSION);
    expect(Object.keys(launcher.optionalDependencies)).toContain(`@mcpkit/${HOST}`);
    expect(launcher.scripts?.postinstall).toBeUndefined();
    const platform = JSON.parse(readFileSync(join(npmDir, HOST, "package.json"), "utf8"));
    expect(platform.os).toEqual([process.platform]);
    expect(platform.cpu).toEqual([process.arch]);
  });

  test(
    "installed with --omit=optional, the bin runs no platform package an ancestor node_modules offers",
    async () => {
      // The planted package sits where require.resolve would find it from the app: a parent folder's node_modules.
      const outer = join(work, "omit-optional");
      const planted = join(outer, "node_modules", "@mcpkit", HOST, "bin", "mcpkit");
      mkdirSync(join(planted, ".."), { recursive: true });
      writeFileSync(planted, "#!/bin/sh\necho planted ran\n");
      chmodSync(planted, 0o755);
      const lean = join(outer, "app");
      mkdirSync(lean, { recursive: true });
      writeFileSync(join(lean, "package.json"), '{"name":"lean-app","private":true}\n');
      const install = await runProcess(
        ["npm", "install", "--offline", "--omit=optional", "--no-audit", "--no-fund", launcherTarball],
        { cwd: lean, env: npmEnv(), timeoutMs: TIMEOUT },
      );
      if (install.code !== 0) throw new Error(`npm install --omit=optional failed: ${install.stderr}`);
      const result = await runProcess([join(lean, "node_modules", ".bin", "mcpkit"), "--version"], {
        cwd: lean,
        env: npmEnv(),
        timeoutMs: TIMEOUT,
      });
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`the optional dependency @mcpkit/${HOST} is not installed`);
      expect(result.stderr).toContain("--include=optional");
      expect(result.code).toBe(1);
    },
    TIMEOUT,
  );

  test(
    "npx mcpkit --version runs the installed native binary",
    async () => {
      const result = await runProcess(["npx", "--offline", "mcpkit", "--version"], {
        cwd: app,
        env: npmEnv(),
        timeoutMs: TIMEOUT,
      });
      expect(result.stdout).toBe(`mcpkit ${VERSION}\n`);
      expect(result.code).toBe(0);
    },
    TIMEOUT,
  );

  test(
    "the installed bin answers initialize and tools/list over stdio, and passes the exit code on",
    async () => {
      const transport = new StdioClientTransport({
        command: join(app, "node_modules", ".bin", "mcpkit"),
        args: ["--toolsets", "fs", "--root", work],
        env: { PATH: process.env.PATH ?? "", HOME: work },
        stderr: "pipe",
      });
      const client = new Client({ name: "npm-test", version: "1.0.0" });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()?.name).toBe("mcpkit");
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("fs_search_by_time");
      } finally {
        await client.close();
      }
      const bad = await runProcess([join(app, "node_modules", ".bin", "mcpkit"), "--no-such-flag"], {
        cwd: app,
        env: npmEnv(),
        timeoutMs: TIMEOUT,
      });
      const direct = await runProcess([join(npmDir, HOST, "bin", "mcpkit"), "--no-such-flag"], {
        timeoutMs: TIMEOUT,
      });
      expect(direct.code).not.toBe(0);
      expect(bad.code).toBe(direct.code);
    },
    TIMEOUT,
  );
});
