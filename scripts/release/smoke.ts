/**
 * bun scripts/release/smoke.ts BINARY — the checks the CI runner matrix (Linux, macOS, Windows)
 * runs on a release binary: --version, initialize + tools/list over stdio, one fs search inside
 * a temporary root. Exits non-zero with a line naming the failed check.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

async function smoke(binary: string): Promise<void> {
  const version = Bun.spawnSync([binary, "--version"]);
  const said = version.stdout.toString().trim();
  if (version.exitCode !== 0 || !/^mcpkit \d+\.\d+\.\d+/.test(said)) throw new Error(`--version answered "${said}"`);
  console.log(`ok: ${said}`);

  const root = mkdtempSync(join(tmpdir(), "mcpkit-smoke-"));
  try {
    writeFileSync(join(root, "note.txt"), "hello");
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, "note.txt"), old, old);
    const client = new Client({ name: "release-smoke", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: binary, args: ["--toolsets", "fs", "--root", root], stderr: "inherit" }),
    );
    try {
      console.log(`ok: initialize (${client.getServerVersion()?.name} ${client.getServerVersion()?.version})`);
      const { tools } = await client.listTools();
      if (!tools.some((tool) => tool.name === "fs_search_by_time"))
        throw new Error("tools/list lacks fs_search_by_time");
      console.log(`ok: tools/list (${tools.length} tools)`);
      const result = await client.callTool({
        name: "fs_search_by_time",
        arguments: { timeField: "modified", from: new Date(old.getTime() - 60_000).toISOString() },
      });
      if (!JSON.stringify(result.content).includes("note.txt")) {
        throw new Error(`fs_search_by_time did not find note.txt: ${JSON.stringify(result.content).slice(0, 300)}`);
      }
      console.log("ok: fs_search_by_time found the file inside the root");
    } finally {
      await client.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const binary = Bun.argv[2];
  if (!binary) {
    console.error("usage: bun scripts/release/smoke.ts BINARY");
    process.exit(2);
  }
  try {
    await smoke(resolve(binary));
  } catch (error) {
    console.error(`smoke: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
