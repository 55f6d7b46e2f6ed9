import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "bun:test";
import { parse } from "jsonc-parser";
import { configPath } from "../../src/cli/install/paths.ts";
import { COMMAND, cli, PREFIX, run, SCRIPT, SELF, tempHome } from "./install-helpers.ts";

describe("configPath", () => {
  test("computes each client's file per OS", () => {
    const mac = { platform: "darwin" as const, env: { HOME: "/Users/me" } };
    const win = {
      platform: "win32" as const,
      env: { USERPROFILE: "C:\\Users\\me", APPDATA: "C:\\Users\\me\\AppData\\Roaming" },
    };
    const linux = { platform: "linux" as const, env: { HOME: "/home/me" } };
    expect(configPath("claude-desktop", mac)).toBe(
      "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
    );
    expect(configPath("claude-desktop", win)).toBe(
      "C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
    );
    expect(configPath("claude-desktop", linux)).toBe("/home/me/.config/Claude/claude_desktop_config.json");
    expect(configPath("vscode", mac)).toBe("/Users/me/Library/Application Support/Code/User/mcp.json");
    expect(configPath("vscode", win)).toBe("C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json");
    expect(configPath("vscode", linux)).toBe("/home/me/.config/Code/User/mcp.json");
    expect(configPath("claude-code", win)).toBe("C:\\Users\\me\\.claude.json");
    expect(configPath("cursor", linux)).toBe("/home/me/.cursor/mcp.json");
    expect(configPath("codex", mac)).toBe("/Users/me/.codex/config.toml");
    expect(configPath("gemini", linux)).toBe("/home/me/.gemini/settings.json");
  });
});

describe("mcpkit install", () => {
  for (const [client, rel, key] of [
    ["claude-desktop", ".config/Claude/claude_desktop_config.json", "mcpServers"],
    ["claude-code", ".claude.json", "mcpServers"],
    ["cursor", ".cursor/mcp.json", "mcpServers"],
    ["vscode", ".config/Code/User/mcp.json", "servers"],
    ["gemini", ".gemini/settings.json", "mcpServers"],
  ] as const) {
    test(`${client}: writes an absolute entry, keeps other servers, is idempotent, uninstalls only its entry`, async () => {
      if (process.platform !== "linux") return;
      const home = tempHome();
      const file = path.join(home, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const original = `{\n  "theme": "dark",\n  "${key}": {\n    "other": { "command": "x" }\n  }\n}\n`;
      fs.writeFileSync(file, original, { mode: 0o640 });
      fs.mkdirSync(path.join(home, "docs"));
      const first = await cli(home, "install", client, "--root", "~/docs", "--oj-token", "s3cret");
      expect(first.code).toBe(0);
      expect(first.stdout + first.stderr).not.toContain("s3cret");
      const doc = JSON.parse(fs.readFileSync(file, "utf8"));
      expect(doc.theme).toBe("dark");
      expect(doc[key].other).toEqual({ command: "x" });
      expect(doc[key].mcpkit.command).toBe(COMMAND);
      expect(doc[key].mcpkit.args).toEqual([...PREFIX, "--root", path.join(home, "docs")]);
      expect(doc[key].mcpkit.env).toEqual({ OJ_TOKEN: "s3cret" });
      if (client === "vscode") expect(doc[key].mcpkit.type).toBe("stdio");
      expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(original);
      // It holds the token now: 0600, not the 0640 it had (a file without a token keeps its mode).
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const written = fs.readFileSync(file, "utf8");
      const again = await cli(home, "install", client, "--root", "~/docs", "--oj-token", "s3cret");
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("nothing changed");
      expect(fs.readFileSync(file, "utf8")).toBe(written);
      const removed = await cli(home, "uninstall", client);
      expect(removed.code).toBe(0);
      expect(fs.readFileSync(file, "utf8")).toBe(original);
      // The backup is the file as it was, but for the token of the entry that went.
      expect(removed.stdout).toContain("without the OJ_TOKEN it held");
      expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(written.replace('"s3cret"', '"[removed by mcpkit]"'));
      expect(fs.statSync(`${file}.bak`).mode & 0o777).toBe(0o600);
    });
  }

  test("vscode: a JSONC mcp.json keeps its comments and trailing commas", async () => {
    const home = tempHome();
    const file = path.join(home, "mcp.json");
    const original = `// my servers\n{\n  "servers": {\n    /* keep */ "a": { "type": "stdio", "command": "a", },\n  },\n}\n`;
    fs.writeFileSync(file, original);
    const result = await cli(home, "install", "vscode", "--config", file);
    expect(result.code).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain("// my servers");
    expect(text).toContain(`/* keep */ "a": { "type": "stdio", "command": "a", },`);
    const doc = parse(text, [], { allowTrailingComma: true });
    expect(doc.servers.mcpkit).toEqual({ type: "stdio", command: COMMAND, args: [...PREFIX] });
  });

  test("uninstall keeps the comments of the servers beside its entry, and leaves no double blank line", async () => {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    const servers = (...lines: string[]) =>
      `{\n  "mcpServers": {\n${lines.map((line) => `    ${line}\n`).join("")}  }\n}\n`;
    const ours = '"mcpkit": { "command": "/old/mcpkit" }';
    const github = '"github": { "command": "gh-mcp" }';
    for (const [before, after] of [
      [
        servers(`${ours},`, "// github: token rotates monthly", github),
        servers("// github: token rotates monthly", github),
      ],
      [servers(`${github}, // github: rotates`, ours), servers(`${github} // github: rotates`)],
      [servers(`${github}, /* gh */`, `${ours},`, '"a": 1'), servers(`${github}, /* gh */`, '"a": 1')],
    ]) {
      fs.writeFileSync(file, before);
      const removed = await cli(home, "uninstall", "cursor");
      expect(removed.code, removed.stderr).toBe(0);
      expect(fs.readFileSync(file, "utf8")).toBe(after);
    }

    const toml = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(toml));
    const github2 = '# github: token rotates monthly\n[mcp_servers.github]\ncommand = "gh-mcp"\n';
    const mcpkit = '[mcp_servers.mcpkit]\ncommand = "/old/mcpkit"\nargs = []\n';
    for (const [before, after] of [
      [`model = "o3"\n\n${mcpkit}\n${github2}`, `model = "o3"\n\n${github2}`],
      [
        `${mcpkit}# github: token rotates monthly\n\n[mcp_servers.github]\n`,
        "# github: token rotates monthly\n\n[mcp_servers.github]\n",
      ],
      [`model = "o3"\n\n${mcpkit}\n[mcp_servers.mcpkit.env]\nA = "b"\n\n${github2}`, `model = "o3"\n\n${github2}`],
      // A setting of ours taken out by hand is ours, token and all; the github comment after it is github's (review).
      [`${mcpkit}# args = ["--oj-token", "zzzzsecretzzzz"]\n${github2}`, github2],
    ]) {
      fs.writeFileSync(toml, before);
      const removed = await cli(home, "uninstall", "codex");
      expect(removed.code, removed.stderr).toBe(0);
      expect(fs.readFileSync(toml, "utf8")).toBe(after);
    }
  });

  test("codex: adds [mcp_servers.mcpkit] and keeps other tables byte-for-byte", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(file));
    const original = `model = "o3" # mine\n\n[mcp_servers.other]\ncommand = "x"\n\n[profiles.fast]\nmodel = "mini"\n`;
    fs.writeFileSync(file, original);
    fs.mkdirSync(path.join(home, "r"));
    expect((await cli(home, "install", "codex", "--root", path.join(home, "r"))).code).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    expect(text.startsWith(original)).toBe(true);
    const doc = Bun.TOML.parse(text) as { mcp_servers: Record<string, { command: string; args: string[] }> };
    expect(doc.mcp_servers.mcpkit).toEqual({ command: COMMAND, args: [...PREFIX, "--root", path.join(home, "r")] });
    expect((await cli(home, "install", "codex", "--root", path.join(home, "r"))).stdout).toContain("nothing changed");
    expect((await cli(home, "uninstall", "codex")).code).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(original);
  });

  test("codex: replaces its own table and sub-table in place; an inline mcp_servers is refused untouched", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(file));
    const head = `# top\n[mcp_servers.mcpkit]\ncommand = "old"\n\n[mcp_servers.mcpkit.env]\nOJ_TOKEN = "old-token"\n\n`;
    const tail = `[mcp_servers.other]\ncommand = "x" # keep\n[mcp_servers.other.env]\nOJ_TOKEN = "old-token"\n`;
    fs.writeFileSync(file, head + tail);
    expect((await cli(home, "install", "codex", "--oj-token", "new-token")).code).toBe(0);
    // A rotated token leaves no copy in the backup; another server's settings stay as they were.
    expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(head.replace('"old-token"', '"[removed by mcpkit]"') + tail);
    const text = fs.readFileSync(file, "utf8");
    expect(text.startsWith("# top\n[mcp_servers.mcpkit]\n")).toBe(true);
    expect(text.endsWith(`\n\n${tail}`)).toBe(true);
    const doc = Bun.TOML.parse(text) as { mcp_servers: Record<string, unknown> };
    expect(doc.mcp_servers.mcpkit).toEqual({ command: COMMAND, args: [...PREFIX], env: { OJ_TOKEN: "new-token" } });
    expect(doc.mcp_servers.other).toEqual({ command: "x", env: { OJ_TOKEN: "old-token" } });

    const inline = 'mcp_servers = { other = { command = "x" } }\n';
    fs.writeFileSync(file, inline);
    const refused = await cli(home, "install", "codex");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("cannot edit [mcp_servers.mcpkit] safely");
    expect(fs.readFileSync(file, "utf8")).toBe(inline);
  });

  test("the backup is a byte copy when no token goes, never written through a link in its place", async () => {
    const home = tempHome();
    const file = path.join(home, "mcp.json");
    // A comment that is not ASCII, CRLF: the backup keeps the bytes as they were.
    const original = Buffer.from('// café ☕\r\n{ "mcpServers": {} }\r\n');
    fs.writeFileSync(file, original);
    const victim = path.join(home, "victim.txt");
    fs.writeFileSync(victim, "untouched");
    fs.symlinkSync(victim, `${file}.bak`);
    const result = await cli(home, "install", "cursor", "--config", file, "--oj-token", "tok-12345678");
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(victim, "utf8")).toBe("untouched");
    expect(fs.lstatSync(`${file}.bak`).isSymbolicLink()).toBe(false);
    expect(Buffer.compare(fs.readFileSync(`${file}.bak`), original)).toBe(0);
    expect(result.stdout).not.toContain("without the OJ_TOKEN");
  });

  test("a config that starts with a byte order mark keeps it, CRLF too; its backup is the file as it was", async () => {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    const original = '\uFEFF{\r\n  "mcpServers": {\r\n    "github": { "command": "gh" }\r\n  }\r\n}\r\n';
    fs.writeFileSync(file, original);
    const dry = await cli(home, "install", "cursor", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('+    "mcpkit": {');
    const installed = await cli(home, "install", "cursor");
    expect(installed.code, installed.stderr).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    expect(text.startsWith('\uFEFF{\r\n  "mcpServers": {\r\n    "github": { "command": "gh" },\r\n')).toBe(true);
    expect(text.replaceAll("\r\n", "")).not.toContain("\n");
    expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(original);
    const removed = await cli(home, "uninstall", "cursor");
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(original);

    const toml = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(toml));
    fs.writeFileSync(toml, '\uFEFFmodel = "o3"\n');
    expect((await cli(home, "install", "codex")).code).toBe(0);
    expect(fs.readFileSync(toml, "utf8").startsWith('\uFEFFmodel = "o3"\n\n[mcp_servers.mcpkit]\n')).toBe(true);
    expect((await cli(home, "uninstall", "codex")).code).toBe(0);
    expect(fs.readFileSync(toml, "utf8")).toBe('\uFEFFmodel = "o3"\n');
  });

  test("a JSON config nested deeper than 1000 levels is refused in one line and left as it was; 1000 are read", async () => {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    // The servers object and the root are two levels; brackets in a comment or a string are not counted.
    const deepest = `{ "mcpServers": {}, "x": ${nested(999)}, "s": "${"[".repeat(5000)}" /* ${"{".repeat(5000)} */ }\n`;
    fs.writeFileSync(file, deepest);
    const installed = await cli(home, "install", "cursor");
    expect(installed.code, installed.stderr).toBe(0);
    expect((await cli(home, "uninstall", "cursor")).code).toBe(0);

    for (const depth of [1000, 200_000]) {
      const deep = `{ "mcpServers": { "mcpkit": { "command": "x" } }, "x": ${nested(depth)} }\n`;
      fs.writeFileSync(file, deep);
      for (const args of [
        ["install", "cursor"],
        ["uninstall", "cursor"],
        ["install", "cursor", "--dry-run"],
      ]) {
        const refused = await cli(home, ...args);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          `mcpkit ${args[0]}: ${file} nests arrays and objects deeper than 1000 levels, more than mcpkit reads; fix or move it, then run again\n`,
        );
        expect(fs.readFileSync(file, "utf8")).toBe(deep);
      }
    }
  });

  test("a config that is not UTF-8 is refused, naming the file and the byte, and left as it was", async () => {
    const home = tempHome();
    const json = path.join(home, ".cursor", "mcp.json");
    const toml = path.join(home, ".codex", "config.toml");
    const latin1 = (text: string, at: number) =>
      Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xe9]), Buffer.from(text.slice(at))]);
    // A U+FFFD written in the file (EF BF BD) before the byte is counted as the three bytes it is.
    const jsonBytes = latin1('// \uFFFD caf\n{ "mcpServers": { "mcpkit": { "command": "x" } } }\n', 10);
    const tomlBytes = latin1('# caf\n[mcp_servers.mcpkit]\ncommand = "x"\n', 5);
    for (const [client, file, bytes, offset] of [
      ["cursor", json, jsonBytes, 12],
      ["codex", toml, tomlBytes, 5],
    ] as const) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
      for (const args of [
        ["install", client],
        ["uninstall", client],
        ["uninstall", client, "--dry-run"],
      ]) {
        const refused = await cli(home, ...args);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          `mcpkit ${args[0]}: ${file} is not UTF-8 text (byte ${offset} is not valid UTF-8); save it as UTF-8, then run again\n`,
        );
        expect(Buffer.compare(fs.readFileSync(file), bytes)).toBe(0);
        expect(fs.existsSync(`${file}.bak`)).toBe(false);
      }
    }
  });

  test("codex: a token written by hand in any form leaves the backup, or no backup is kept", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(file));
    for (const [written, token] of [
      ['"SECRET\\u0035"', "SECRET5"],
      ["'SECRET6'", "SECRET6"],
      ['"""\nSECRET7"""', "SECRET7"],
      ['"x"', "x"], // the same text as the command: only the token goes
    ]) {
      const original = `[mcp_servers.mcpkit]\ncommand = "x"\n\n[mcp_servers.mcpkit.env]\nOJ_TOKEN = ${written}\n`;
      fs.writeFileSync(file, original);
      fs.rmSync(`${file}.bak`, { force: true });
      const removed = await cli(home, "uninstall", "codex");
      expect(removed.code, removed.stderr).toBe(0);
      if (removed.stdout.includes("no backup")) {
        expect(fs.existsSync(`${file}.bak`)).toBe(false);
        continue;
      }
      expect(removed.stdout).toContain("without the OJ_TOKEN it held");
      const backup = Bun.TOML.parse(fs.readFileSync(`${file}.bak`, "utf8")) as {
        mcp_servers: { mcpkit: { command: string; env: { OJ_TOKEN: string } } };
      };
      expect({ written, backup: backup.mcp_servers.mcpkit }).toEqual({
        written,
        backup: { command: "x", env: { OJ_TOKEN: "[removed by mcpkit]" } },
      });
      expect(fs.readFileSync(`${file}.bak`, "utf8")).not.toContain(token === "x" ? 'OJ_TOKEN = "x"' : token);
    }
  });

  test("codex: a change that keeps no backup removes an older .bak, which held the same token, and says so", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    const token = "STALE-BAK-8e2f";
    expect((await cli(home, "install", "codex", "--oj-token", token)).code).toBe(0);
    expect((await cli(home, "install", "codex", "--oj-token", token, "--toolsets", "fs,oj")).code).toBe(0);
    expect(fs.readFileSync(`${file}.bak`, "utf8")).toContain(token);
    // An inline env table written by hand: a form the backup's scrubbing does not replace and check.
    fs.writeFileSync(file, `[mcp_servers.mcpkit]\ncommand = "x"\nenv = { OJ_TOKEN = "${token}" }\n`);
    const removed = await cli(home, "uninstall", "codex");
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(
      `(no backup: it would have kept the OJ_TOKEN; the older ${file}.bak is removed, as it may hold it too)`,
    );
    expect(fs.existsSync(`${file}.bak`)).toBe(false);
    // The file held our entry alone, so it goes too: nothing in the folder keeps the token.
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
  });

  test("the folders install creates are 0700 whatever the umask, 000 included", async () => {
    if (process.platform === "win32") return;
    const home = tempHome();
    const umask000 = ["sh", "-c", 'umask 000 && exec "$@"', "sh", ...SELF];
    for (const client of ["cursor", "vscode"]) {
      const result = await run(home, [...umask000, "install", client, "--oj-token", "umask-token-2c9d"]);
      expect(result.code, result.stderr).toBe(0);
    }
    // Every folder it made, down to the file's, one level (Cursor) or three (VS Code on Linux) deep.
    const made = [".cursor", ".config", ".config/Code", ".config/Code/User"].map((dir) => path.join(home, dir));
    if (process.platform !== "linux") made.splice(1);
    for (const dir of made) expect({ dir, mode: fs.statSync(dir).mode & 0o777 }).toEqual({ dir, mode: 0o700 });
  });

  test("temp files a killed run left beside the config and its .bak are removed by the next run, and only those", async () => {
    const home = tempHome();
    const dir = path.join(home, ".cursor");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "mcp.json"), "{}\n");
    const token = "KILLED-RUN-TOKEN-5a3c";
    // Named as mcpkit names them (.<name>.<16 hex>.tmp), 0600 and holding the token, as a SIGKILL before the rename leaves them.
    const left = [".mcp.json.0123456789abcdef.tmp", ".mcp.json.bak.fedcba9876543210.tmp"];
    // Not mcpkit's names: another program's, or a folder.
    const kept = [".mcp.json.notmine.tmp", ".other.json.0123456789abcdef.tmp", ".mcp.json.aaaaaaaaaaaaaaaa.tmp"];
    for (const name of [...left, ...kept.slice(0, 2)])
      fs.writeFileSync(path.join(dir, name), `{"OJ_TOKEN":"${token}"}`, { mode: 0o600 });
    fs.mkdirSync(path.join(dir, kept[2]));
    const dry = await cli(home, "install", "cursor", "--oj-token", "new-token-1e0f", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual([...left, ...kept, "mcp.json"].sort());
    const installed = await cli(home, "install", "cursor", "--oj-token", "new-token-1e0f");
    expect(installed.code, installed.stderr).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual([...kept, "mcp.json", "mcp.json.bak"].sort());
  });

  // Root alone can give a file to another user; elsewhere the rule is the same code path, left untested here.
  test.skipIf(process.getuid?.() !== 0)(
    "a temp-named file another user owns is left alone (a sticky shared folder allows it), and does not stop the run",
    async () => {
      const home = tempHome();
      const dir = path.join(home, ".cursor");
      fs.mkdirSync(dir);
      const theirs = path.join(dir, ".mcp.json.0123456789abcdef.tmp");
      fs.writeFileSync(theirs, "theirs");
      fs.chownSync(theirs, 65534, 65534);
      const installed = await cli(home, "install", "cursor", "--oj-token", "new-token-1e0f");
      expect(installed.code, installed.stderr).toBe(0);
      expect(fs.readFileSync(theirs, "utf8")).toBe("theirs");
    },
  );

  test("--http writes each client's URL entry; Claude Desktop's launches mcp-remote", async () => {
    const home = tempHome();
    const url = "http://127.0.0.1:8080/mcp";
    expect((await cli(home, "install", "vscode", "--http", url)).code).toBe(0);
    const vscode = JSON.parse(fs.readFileSync(path.join(home, ".config/Code/User/mcp.json"), "utf8"));
    expect(vscode.servers.mcpkit).toEqual({ type: "http", url });
    expect((await cli(home, "install", "gemini", "--http", url)).code).toBe(0);
    const gemini = JSON.parse(fs.readFileSync(path.join(home, ".gemini/settings.json"), "utf8"));
    expect(gemini.mcpServers.mcpkit).toEqual({ httpUrl: url });
    // Claude Desktop launches local servers only: mcp-remote bridges to the URL.
    expect((await cli(home, "install", "claude-desktop", "--http", url)).code).toBe(0);
    const desktop = JSON.parse(fs.readFileSync(path.join(home, ".config/Claude/claude_desktop_config.json"), "utf8"));
    expect(desktop.mcpServers.mcpkit).toEqual({ command: "npx", args: ["-y", "mcp-remote", url] });
    const lan = "http://mcp.internal:8080/mcp";
    expect((await cli(home, "install", "claude-desktop", "--http", lan, "--name", "lan")).code).toBe(0);
    const withLan = JSON.parse(fs.readFileSync(path.join(home, ".config/Claude/claude_desktop_config.json"), "utf8"));
    expect(withLan.mcpServers.lan).toEqual({ command: "npx", args: ["-y", "mcp-remote", lan, "--allow-http"] });
    expect((await cli(home, "install", "cursor", "--http", "not a url")).code).toBe(2);
  });

  test("uninstall --dry-run shows the removal and writes nothing", async () => {
    const home = tempHome();
    expect((await cli(home, "install", "cursor")).code).toBe(0);
    const file = path.join(home, ".cursor", "mcp.json");
    const before = fs.readFileSync(file, "utf8");
    const result = await cli(home, "uninstall", "cursor", "--dry-run");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('-    "mcpkit": {');
    expect(fs.readFileSync(file, "utf8")).toBe(before);
    expect((await cli(home, "uninstall", "cursor")).code).toBe(0);
    expect((await cli(home, "uninstall", "cursor")).stdout).toContain("nothing changed");
  });

  test("a symlinked config stays a link and its target is edited; a CRLF file keeps CRLF", async () => {
    const home = tempHome();
    const target = path.join(home, "dotfiles", "settings.json");
    fs.mkdirSync(path.dirname(target));
    const original = '{\r\n  "mcpServers": {\r\n    "other": { "command": "x" }\r\n  }\r\n}\r\n';
    fs.writeFileSync(target, original);
    fs.mkdirSync(path.join(home, ".gemini"));
    const link = path.join(home, ".gemini", "settings.json");
    fs.symlinkSync(target, link);
    expect((await cli(home, "install", "gemini")).code).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    const text = fs.readFileSync(target, "utf8");
    expect(/(^|[^\r])\n/.test(text)).toBe(false);
    expect(Object.keys(JSON.parse(text).mcpServers)).toEqual(["other", "mcpkit"]);
    expect((await cli(home, "uninstall", "gemini")).code).toBe(0);
    expect(fs.readFileSync(target, "utf8")).toBe(original);
  });

  test("a config linked to a file of another user, or to no file, is refused with one line and nothing is written", async () => {
    if (process.platform !== "linux") return;
    const home = tempHome();
    fs.mkdirSync(path.join(home, ".cursor"));
    const link = path.join(home, ".cursor", "mcp.json");
    // As root, a file given away to nobody; otherwise a file root owns.
    let target = "/etc/passwd";
    if (process.getuid?.() === 0) {
      target = path.join(home, "theirs.json");
      fs.writeFileSync(target, "{}\n");
      fs.chownSync(target, 65534, 65534);
    }
    const before = fs.readFileSync(target, "utf8");
    fs.symlinkSync(target, link);
    const theirs = await cli(home, "install", "cursor");
    expect(theirs.code).toBe(1);
    expect(theirs.stderr.trim().split("\n")).toEqual([expect.stringContaining("only when both are yours")]);
    expect(fs.readFileSync(target, "utf8")).toBe(before);
    expect(fs.readlinkSync(link)).toBe(target);

    fs.rmSync(link);
    const missing = path.join(home, "dotfiles", "mcp.json");
    fs.symlinkSync(missing, link);
    const dangling = await cli(home, "install", "cursor");
    expect(dangling.code).toBe(1);
    expect(dangling.stderr).toContain("a symbolic link to a missing file");
    expect(fs.readlinkSync(link)).toBe(missing);
    expect(fs.existsSync(missing)).toBe(false);
  });

  test("--dry-run prints a diff, redacts the token and writes nothing", async () => {
    const home = tempHome();
    const result = await cli(home, "install", "cursor", "--dry-run", "--oj-token", "tok-123");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("+++ ");
    expect(result.stdout).toContain('"OJ_TOKEN": "[redacted]"');
    expect(result.stdout).not.toContain("tok-123");
    expect(fs.existsSync(path.join(home, ".cursor"))).toBe(false);
  });

  test("an unparsable file is refused with one line and left as it was", async () => {
    const home = tempHome();
    const file = path.join(home, ".gemini", "settings.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "{ not json");
    const result = await cli(home, "install", "gemini");
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("is not valid JSON");
    expect(fs.readFileSync(file, "utf8")).toBe("{ not json");
    expect(fs.existsSync(`${file}.bak`)).toBe(false);
  });

  test("a read-only file is refused and left as it was (skipped as root, which ignores modes)", async () => {
    if (process.getuid?.() === 0) {
      console.log("skip: running as root, which can write a 0444 file");
      return;
    }
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "{}\n", { mode: 0o444 });
    const result = await cli(home, "install", "cursor");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("read-only");
    expect(fs.readFileSync(file, "utf8")).toBe("{}\n");
  });

  test("two concurrent runs both land", async () => {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    const names = ["one", "two", "three", "four"];
    const results = await Promise.all(names.map((name) => cli(home, "install", "cursor", "--name", name)));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(Object.keys(doc.mcpServers).sort()).toEqual([...names].sort());
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  test("a run that finds the lock held waits for it, then keeps the other writer's entry", async () => {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(`${file}.lock`, "");
    const proc = Bun.spawn([...SELF, "install", "cursor"], {
      env: { PATH: process.env.PATH, HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stderr.getReader();
    let seen = "";
    while (!seen.includes("waiting for")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      seen += new TextDecoder().decode(chunk.value);
    }
    expect(seen).toContain("waiting for");
    // The other writer finishes while this run waits: its entry must survive.
    fs.writeFileSync(file, '{ "mcpServers": { "other": { "command": "x" } } }\n');
    fs.rmSync(`${file}.lock`);
    expect(await proc.exited).toBe(0);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(Object.keys(doc.mcpServers).sort()).toEqual(["mcpkit", "other"]);
  });

  test("bad arguments exit 2 naming the flag", async () => {
    const home = tempHome();
    const missing = await cli(home, "install", "cursor", "--root", path.join(home, "nope"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--root");
    expect((await cli(home, "install", "emacs")).code).toBe(2);
    expect((await cli(home, "install", "cursor", "--bogus")).code).toBe(2);
  });

  test("--link prints links that decode to the server config", async () => {
    const home = tempHome();
    const cursor = (await cli(home, "install", "--link", "cursor")).stdout.trim();
    const url = new URL(cursor);
    expect(cursor.startsWith("cursor://anysphere.cursor-deeplink/mcp/install?")).toBe(true);
    expect(url.searchParams.get("name")).toBe("mcpkit");
    expect(JSON.parse(Buffer.from(url.searchParams.get("config") ?? "", "base64").toString())).toEqual({
      command: COMMAND,
      args: [...PREFIX],
    });
    const vscode = (await cli(home, "install", "--link", "vscode")).stdout.trim();
    expect(vscode.startsWith("vscode:mcp/install?")).toBe(true);
    expect(JSON.parse(decodeURIComponent(vscode.slice("vscode:mcp/install?".length)))).toEqual({
      name: "mcpkit",
      type: "stdio",
      command: COMMAND,
      args: [...PREFIX],
    });
  });

  test("the command it writes, started in a hostile workspace, runs none of its bunfig and reads none of its .env", async () => {
    const home = tempHome();
    const file = path.join(home, "mcp.json");
    expect((await cli(home, "install", "cursor", "--config", file)).code).toBe(0);
    const { command, args } = JSON.parse(fs.readFileSync(file, "utf8")).mcpServers.mcpkit as {
      command: string;
      args: string[];
    };
    const workspace = path.join(home, "workspace");
    const secrets = path.join(home, "secrets");
    fs.mkdirSync(workspace);
    fs.mkdirSync(secrets);
    fs.writeFileSync(path.join(secrets, "secret.txt"), "x");
    fs.writeFileSync(path.join(workspace, "notes.md"), "x");
    const marker = path.join(home, "preload-ran");
    fs.writeFileSync(path.join(workspace, "bunfig.toml"), 'preload = ["./preload.js"]\n');
    fs.writeFileSync(
      path.join(workspace, "preload.js"),
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");\n`,
    );
    fs.writeFileSync(path.join(workspace, ".env"), `MCPKIT_ROOTS=${secrets}\n`);
    const proc = Bun.spawn([command, ...args, "call", "fs.search_by_time", '{"timeField":"modified"}'], {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    const paths = (JSON.parse(stdout).structuredContent.matches as { path: string }[]).map((match) => match.path);
    expect(paths).toContain("notes.md");
    expect(paths).not.toContain("secret.txt");
  });

  test("help lists install", async () => {
    const home = tempHome();
    const main = (await cli(home, "--help")).stdout;
    expect(main).toContain("mcpkit install CLIENT");
    expect(main).toContain("mcpkit uninstall CLIENT");
    const help = await cli(home, "install", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--dry-run");
  });
});

describe("the command install writes", () => {
  test("is the path it was invoked by, or the one found on PATH, not the target of a link to it", async () => {
    const home = tempHome();
    const bin = path.join(home, "bin");
    fs.mkdirSync(bin);
    // As a Homebrew bin/mcpkit links into Cellar/mcpkit/<version>/, whose path changes at every upgrade.
    const link = path.join(bin, "mcpkit-linked");
    fs.symlinkSync(fs.realpathSync(COMMAND), link);
    const file = path.join(home, "mcp.json");
    const commandIn = () => JSON.parse(fs.readFileSync(file, "utf8")).mcpServers.mcpkit.command;

    const byPath = await run(home, [link, ...SCRIPT, "install", "cursor", "--config", file]);
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(commandIn()).toBe(link);

    fs.rmSync(file);
    const searchPath = `${bin}${path.delimiter}${process.env.PATH}`;
    const args = [...SCRIPT, "install", "cursor", "--config", file];
    const byName = await run(home, ["sh", "-c", 'exec mcpkit-linked "$@"', "sh", ...args], searchPath);
    expect(byName.code, byName.stderr).toBe(0);
    expect(commandIn()).toBe(link);
  });
});
