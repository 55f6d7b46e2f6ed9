/** A JSON config that names our entry, or the servers key, twice (H6): every copy is ours to remove. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "bun:test";
import { cli, tempHome } from "./install-helpers.ts";

const FIRST = "first-duplicate-token-1a2b";
const SECOND = "second-duplicate-token-3c4d";

function write(home: string, text: string): string {
  const file = path.join(home, ".cursor", "mcp.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe("duplicate keys", () => {
  test('uninstall removes every "mcpkit" entry and leaves neither token in the file or its backup', async () => {
    const home = tempHome();
    const file = write(
      home,
      `{
  "mcpServers": {
    "mcpkit": { "command": "a", "env": { "OJ_TOKEN": "${FIRST}" } },
    "other": { "command": "x" },
    "mcpkit": { "command": "b", "env": { "OJ_TOKEN": "${SECOND}" } }
  }
}
`,
    );
    const removed = await cli(home, "uninstall", "cursor");
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('removed "mcpkit"');
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toContain("mcpkit");
    expect(JSON.parse(text)).toEqual({ mcpServers: { other: { command: "x" } } });
    const backup = fs.readFileSync(`${file}.bak`, "utf8");
    expect(backup.split('"OJ_TOKEN": "[removed by mcpkit]"')).toHaveLength(3);
    for (const token of [FIRST, SECOND]) expect(text + backup + removed.stdout).not.toContain(token);
    expect((await cli(home, "uninstall", "cursor")).stdout).toContain("nothing changed");
  });

  test('uninstall removes "mcpkit" from each of two "mcpServers" objects, the one that reads back and the other', async () => {
    const home = tempHome();
    const file = write(
      home,
      `{
  "mcpServers": { "mcpkit": { "command": "a", "env": { "OJ_TOKEN": "${FIRST}" } } },
  "theme": "dark",
  "mcpServers": { "other": { "command": "x" } }
}
`,
    );
    const removed = await cli(home, "uninstall", "cursor");
    expect(removed.code, removed.stderr).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toContain("mcpkit");
    expect(text).not.toContain(FIRST);
    expect(text).toContain('"theme": "dark"');
    if (fs.existsSync(`${file}.bak`)) expect(fs.readFileSync(`${file}.bak`, "utf8")).not.toContain(FIRST);
  });

  test("install refuses with one line while our entry is written twice, and changes nothing", async () => {
    const home = tempHome();
    const original = `{ "mcpServers": { "mcpkit": { "command": "a" }, "mcpkit": { "command": "b" } } }\n`;
    const file = write(home, original);
    const refused = await cli(home, "install", "cursor");
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toEqual([expect.stringContaining('holds "mcpkit" 2 times')]);
    expect(fs.readFileSync(file, "utf8")).toBe(original);
  });
});
