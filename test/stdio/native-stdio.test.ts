/**
 * The stdio server reads and writes through Bun's own stdin reader and stdout/stderr writers
 * (src/mcp/stdio/native-stdio.ts, core/log.ts), never `process.stdin`/`stdout`/`stderr`: those
 * Node streams cost a start-up ~4 ms of CPU (scripts/bench/startup.ts). Both eras, from the
 * sources, with a preload that makes any use of the three throw and be noted.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { meta } from "../modern/support.ts";
import { legacyOpening } from "./peer.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-native-stdio-"));
  writeFileSync(join(dir, "a.txt"), "a");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (message: Record<string, unknown>) => `${JSON.stringify(message)}\n`;
const OPENINGS = {
  "2026-07-28": [
    line({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta() } }),
    line({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta() } }),
  ],
  "2025-11-25": [legacyOpening(), line({ jsonrpc: "2.0", id: 2, method: "tools/list" })],
};

for (const [era, opening] of Object.entries(OPENINGS)) {
  test(`${era}: a stdio server answers and logs without process.stdin, process.stdout or process.stderr`, async () => {
    const out = join(dir, `used-${era}.json`);
    const probe = join(REPO_ROOT, "test/stdio/fixtures/std-streams-probe.ts");
    const result = await runProcess(
      [process.execPath, "--preload", probe, join(REPO_ROOT, "src/main.ts"), "--toolsets", "fs", "--root", dir],
      { cwd: REPO_ROOT, env: testEnv({ STD_STREAMS_PROBE_OUT: out }), stdin: opening.join("") },
    );
    expect(result.code, result.stderr).toBe(0);
    const answers = result.stdout
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text));
    expect(answers).toHaveLength(2);
    for (const answer of answers) expect(answer.result).toBeDefined();
    expect(answers[1].id).toBe(2);
    expect(answers[1].result.tools.map((tool: { name: string }) => tool.name)).toEqual(["fs_search_by_time"]);
    // The log still reaches stderr, through Bun's writer.
    expect(result.stderr).toContain("serving MCP on stdio");
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([]);
  });
}
