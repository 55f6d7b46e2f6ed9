/**
 * The release assets beyond the archives, from one `bun run release --targets host`: the MCP bundle,
 * server.json and the npm packages. The MCP bundle: `mcpb validate` accepts its manifest and
 * `mcpb info` reads the packed bundle; unzipped as a host would (binary without its execute bit),
 * the mcp_config that @anthropic-ai/mcpb's own getMcpConfigForManifest expands starts the server,
 * which answers initialize, tools/list and an fs search inside the configured root. Unset options
 * add no flag: the launcher's argument translation is checked with the host's literal leftovers.
 * server.json validates against the registry schema copied into test/fixtures/registry. The npm
 * packages are packed, installed offline from the tarballs into an empty directory, and run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";
import Ajv from "ajv";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { hostTarget } from "../../scripts/release/compile.ts";
import { MCPB_CLI, bundleName, placeholder } from "../../scripts/release/mcpb.ts";
import { SERVER_SCHEMA } from "../../scripts/release/server-json.ts";
import { REPO_ROOT, runProcess } from "../support/mcp.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const hasUnzip = hasSystemTool("unzip", "unzip", "unpacking the .mcpb bundle");
const hasNode = hasSystemTool("node", "nodejs", "the bundle's node-type entry point");
const hasNpm = hasSystemTool("npm", "npm", "packing and installing the npm packages");
const HOST = hostTarget()!;
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const TIMEOUT = 120_000;

let work: string;
let out: string;
let unpacked: string;
let root: string;
let npmDir: string;

describe.if(hasUnzip && hasNode)("MCP bundle (.mcpb)", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mcpkit-mcpb-"));
    out = join(work, "out");
    unpacked = join(work, "bundle");
    root = join(work, "root");
    npmDir = join(work, "npm");
    const command = ["scripts/release.ts", "--targets", "host", "--out", out, "--npm-out", npmDir];
    const built = await runProcess([process.execPath, ...command], {
      cwd: REPO_ROOT,
      timeoutMs: TIMEOUT,
    });
    if (built.code !== 0) throw new Error(`release failed: ${built.stderr}`);
    const unzip = await runProcess(["unzip", "-q", join(out, bundleName(VERSION, HOST)), "-d", unpacked], {
      timeoutMs: TIMEOUT,
    });
    if (unzip.code !== 0) throw new Error(`unzip failed: ${unzip.stderr}`);
  }, TIMEOUT);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test(
    "SHA256SUMS lists the bundle and mcpb validate/info accept it",
    async () => {
      const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
      expect(sums).toContain(`  ${bundleName(VERSION, HOST)}\n`);
      const validate = await runProcess([process.execPath, MCPB_CLI, "validate", join(unpacked, "manifest.json")], {
        timeoutMs: TIMEOUT,
      });
      expect(validate.stdout + validate.stderr).toContain("Manifest schema validation passes");
      expect(validate.code).toBe(0);
      const info = await runProcess([process.execPath, MCPB_CLI, "info", join(out, bundleName(VERSION, HOST))], {
        timeoutMs: TIMEOUT,
      });
      expect(info.code).toBe(0);
      expect(info.stdout + info.stderr).toContain("mcpkit");
    },
    TIMEOUT,
  );

  test("the bundle is reproducible: every entry carries the archives' fixed time, not the time of packing", async () => {
    const listing = await runProcess(["unzip", "-Z", "-T", join(out, bundleName(VERSION, HOST))]);
    const entries = listing.stdout.split("\n").filter((line) => / unx /.test(line));
    expect(entries.length).toBe(5);
    // zipinfo -T prints yyyymmdd.hhmmss: 1980-01-01 00:00 (SOURCE_DATE_EPOCH unset), as the .tar.gz entries.
    for (const entry of entries) expect(entry).toContain(" 19800101.000000 ");
  });

  test("manifest declares spec 0.3, platform overrides and the user_config options", () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
    expect(manifest.manifest_version).toBe("0.3");
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
        expect(client.getServerVersion()?.name).toBe("mcpkit");
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

  test("server.json validates against the 2025-12-11 registry schema and names the real bundle", () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, "test/fixtures/registry/server.schema.json"), "utf8"));
    expect(schema.$id).toBe(SERVER_SCHEMA);
    const ajv = new Ajv({ strict: false, allErrors: true });
    // The schema's only formats are "uri"; ajv knows none without ajv-formats, so check them here.
    ajv.addFormat("uri", (value: string) => URL.canParse(value));
    const serverJson = JSON.parse(readFileSync(join(out, "server.json"), "utf8"));
    const valid = ajv.validate(schema, serverJson);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(serverJson.$schema).toBe(SERVER_SCHEMA);
    expect(serverJson.version).toBe(VERSION);
    const sums = new Map(
      readFileSync(join(out, "SHA256SUMS"), "utf8")
        .trim()
        .split("\n")
        .map((line) => line.split("  ").reverse() as [string, string]),
    );
    const mcpb = serverJson.packages.filter((p: { registryType: string }) => p.registryType === "mcpb");
    expect(mcpb).toHaveLength(1);
    expect(mcpb[0].identifier).toEndWith(`/releases/download/v${VERSION}/${bundleName(VERSION, HOST)}`);
    expect(mcpb[0].fileSha256).toBe(sums.get(bundleName(VERSION, HOST))!);
    const npm = serverJson.packages.find((p: { registryType: string }) => p.registryType === "npm");
    expect(npm).toMatchObject({ identifier: "mcpkit", version: VERSION, transport: { type: "stdio" } });
  });

  test("a server.json the registry would refuse fails the same schema check", () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, "test/fixtures/registry/server.schema.json"), "utf8"));
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat("uri", (value: string) => URL.canParse(value));
    const serverJson = JSON.parse(readFileSync(join(out, "server.json"), "utf8"));
    serverJson.packages[0].fileSha256 = "not-a-sha";
    expect(ajv.validate(schema, serverJson)).toBe(false);
  });

  describe.if(hasNpm)("npm packages", () => {
    let app: string;
    const npmEnv = () => ({
      PATH: process.env.PATH ?? "",
      HOME: work,
      npm_config_cache: join(work, "npm-cache"),
      npm_config_update_notifier: "false",
    });

    beforeAll(async () => {
      const packs = join(work, "packs");
      app = join(work, "app");
      mkdirSync(packs, { recursive: true });
      mkdirSync(app, { recursive: true });
      writeFileSync(join(app, "package.json"), '{"name":"app","private":true}\n');
      for (const dir of [join(npmDir, HOST), join(npmDir, "mcpkit")]) {
        const pack = await runProcess(["npm", "pack", dir, "--silent"], {
          cwd: packs,
          env: npmEnv(),
          timeoutMs: TIMEOUT,
        });
        if (pack.code !== 0) throw new Error(`npm pack ${dir} failed: ${pack.stderr}`);
      }
      const tarballs = readdirSync(packs).map((name) => join(packs, name));
      // Offline, from the tarballs alone: the other platforms' optional packages are skipped.
      const install = await runProcess(["npm", "install", "--offline", "--no-audit", "--no-fund", ...tarballs], {
        cwd: app,
        env: npmEnv(),
        timeoutMs: TIMEOUT,
      });
      if (install.code !== 0) throw new Error(`npm install failed: ${install.stderr}`);
    }, TIMEOUT);

    test("the launcher lists every platform as optional and the host package carries os/cpu", () => {
      const launcher = JSON.parse(readFileSync(join(npmDir, "mcpkit", "package.json"), "utf8"));
      expect(Object.keys(launcher.optionalDependencies)).toContain(`@mcpkit/${HOST}`);
      expect(launcher.scripts?.postinstall).toBeUndefined();
      const platform = JSON.parse(readFileSync(join(npmDir, HOST, "package.json"), "utf8"));
      expect(platform.os).toEqual([process.platform]);
      expect(platform.cpu).toEqual([process.arch]);
    });

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
});
