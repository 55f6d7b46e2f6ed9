/** uninstall clears every entry the client loads in the current folder, and leaves no stub of a file it emptied. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "bun:test";
import { cli, run, SELF, tempHome } from "./install-helpers.ts";

const TOKEN = "project-scope-token-9e8d";

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));

/** A home with a project folder in it, as the real path the child's process.cwd() reports. */
function homeWithProject(): { home: string; project: string } {
  const home = tempHome();
  const project = path.join(fs.realpathSync(home), "work", "project");
  fs.mkdirSync(project, { recursive: true });
  return { home, project };
}

describe("uninstall in a folder", () => {
  test("claude-code: the user scope, projects[<cwd>] in ~/.claude.json and ./.mcp.json, each file named", async () => {
    const { home, project } = homeWithProject();
    const elsewhere = path.join(home, "elsewhere");
    const ours = { type: "stdio", command: "mcpkit", args: [], env: { OJ_TOKEN: TOKEN } };
    const theirs = { ...ours, env: { OJ_TOKEN: "still-in-use-elsewhere" } };
    const claude = path.join(home, ".claude.json");
    writeJson(claude, {
      numStartups: 3,
      mcpServers: { mcpkit: ours },
      projects: {
        [project]: { allowedTools: [], mcpServers: { mcpkit: ours, other: { command: "x" } } },
        [elsewhere]: { mcpServers: { mcpkit: theirs } },
      },
    });
    const mcpJson = path.join(project, ".mcp.json");
    writeJson(mcpJson, { mcpServers: { mcpkit: ours, shared: { command: "y" } } });

    const dry = await run(home, [...SELF, "uninstall", "claude-code", "--dry-run"], undefined, project);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`--- ${claude}`);
    expect(dry.stdout).toContain(`--- ${mcpJson}`);
    expect(dry.stdout).not.toContain(TOKEN);

    const removed = await run(home, [...SELF, "uninstall", "claude-code"], undefined, project);
    expect(removed.code, removed.stderr).toBe(0);
    const lines = removed.stdout.trim().split("\n");
    expect(lines).toEqual([
      expect.stringContaining(`${claude}: removed "mcpkit" (backup: ${claude}.bak`),
      expect.stringContaining(`${mcpJson}: removed "mcpkit" (backup: ${mcpJson}.bak`),
    ]);
    const after = readJson(claude);
    expect(after.numStartups).toBe(3);
    expect(after.mcpServers).toEqual({});
    expect(after.projects[project]).toEqual({ allowedTools: [], mcpServers: { other: { command: "x" } } });
    // Another folder's local scope is not what this folder loads: it stays.
    expect(after.projects[elsewhere].mcpServers.mcpkit).toEqual(theirs);
    expect(readJson(mcpJson)).toEqual({ mcpServers: { shared: { command: "y" } } });
    for (const backup of [`${claude}.bak`, `${mcpJson}.bak`])
      expect(fs.readFileSync(backup, "utf8")).not.toContain(TOKEN);

    const again = await run(home, [...SELF, "uninstall", "claude-code"], undefined, project);
    expect(again.stdout).toBe(`no "mcpkit" entry in ${claude}, ${mcpJson}; nothing changed\n`);
  });

  test("gemini: ./.gemini/settings.json too; a folder without one gets none", async () => {
    const { home, project } = homeWithProject();
    const user = path.join(home, ".gemini", "settings.json");
    const local = path.join(project, ".gemini", "settings.json");
    writeJson(user, { theme: "dark", mcpServers: { mcpkit: { command: "mcpkit" } } });
    writeJson(local, { mcpServers: { mcpkit: { command: "mcpkit" }, other: { command: "x" } } });
    const removed = await run(home, [...SELF, "uninstall", "gemini"], undefined, project);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`${user}: removed "mcpkit"`);
    expect(removed.stdout).toContain(`${local}: removed "mcpkit"`);
    expect(readJson(user)).toEqual({ theme: "dark", mcpServers: {} });
    expect(readJson(local)).toEqual({ mcpServers: { other: { command: "x" } } });

    const bare = path.join(home, "bare");
    fs.mkdirSync(bare);
    writeJson(user, { mcpServers: { mcpkit: { command: "mcpkit" } }, theme: "dark" });
    expect((await run(home, [...SELF, "uninstall", "gemini"], undefined, bare)).code).toBe(0);
    expect(fs.readdirSync(bare)).toEqual([]);
  });

  test("a file install created for mcpkit alone is removed with it, not left as an empty stub", async () => {
    const home = tempHome();
    for (const [client, file] of [
      ["cursor", path.join(home, ".cursor", "mcp.json")],
      ["codex", path.join(home, ".codex", "config.toml")],
    ] as const) {
      expect((await cli(home, "install", client, "--oj-token", TOKEN)).code).toBe(0);
      const removed = await cli(home, "uninstall", client);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(
        `${file}: removed "mcpkit" and the file, which held nothing else (backup: ${file}.bak`,
      );
      expect(fs.existsSync(file)).toBe(false);
      expect(fs.readFileSync(`${file}.bak`, "utf8")).not.toContain(TOKEN);
    }
  });

  test("a project folder that is another user's link to elsewhere is refused in one line, and nothing there changes", async () => {
    if (process.getuid?.() !== 0) {
      console.log("skip: giving a link to another user (uid 65534) needs root");
      return;
    }
    const { home, project } = homeWithProject();
    const elsewhere = path.join(home, "elsewhere");
    const settings = path.join(elsewhere, "settings.json");
    writeJson(settings, { mcpServers: { mcpkit: { command: "mcpkit" } } });
    fs.writeFileSync(`${settings}.bak`, "their backup\n");
    const link = path.join(project, ".gemini");
    fs.symlinkSync(elsewhere, link);
    fs.lchownSync(link, 65534, 65534);
    const config = ["--config", "./.gemini/settings.json"];
    for (const args of [
      ["uninstall", "gemini"],
      ["uninstall", "gemini", ...config],
      ["install", "gemini", ...config],
    ]) {
      const { code, stderr } = await run(home, [...SELF, ...args], undefined, project);
      expect(code).toBe(1);
      expect(stderr.trim().split("\n")).toEqual([
        expect.stringContaining(`${link} is a symbolic link of another user's (uid 65534)`),
      ]);
    }
    expect(readJson(settings)).toEqual({ mcpServers: { mcpkit: { command: "mcpkit" } } });
    expect(fs.readFileSync(`${settings}.bak`, "utf8")).toBe("their backup\n");
    expect(fs.readdirSync(elsewhere).sort()).toEqual(["settings.json", "settings.json.bak"]);

    // A link of the user's own is followed as before.
    fs.lchownSync(link, 0, 0);
    const own = await run(home, [...SELF, "uninstall", "gemini"], undefined, project);
    expect(own.code, own.stderr).toBe(0);
    expect(fs.existsSync(settings)).toBe(false);
  });

  test("a project folder another user can change is refused before anything is written; a sticky or private one is not", async () => {
    if (process.platform === "win32") return;
    const { home, project } = homeWithProject();
    const user = path.join(home, ".gemini", "settings.json");
    const local = path.join(project, ".gemini", "settings.json");
    const entry = { mcpServers: { mcpkit: { command: "mcpkit" }, other: { command: "x" } } };
    writeJson(user, entry);
    writeJson(local, entry);
    // Writable by anyone and not sticky: its owner's rights are anyone's, swapping .gemini for a link included.
    fs.chmodSync(project, 0o777);
    for (const args of [
      ["uninstall", "gemini"],
      ["uninstall", "gemini", "--dry-run"], // refused too: it shows what the run would do
      ["install", "gemini", "--config", "./.gemini/settings.json"],
    ]) {
      const { code, stdout, stderr } = await run(home, [...SELF, ...args], undefined, project);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr.trim().split("\n")).toEqual([
        expect.stringContaining(
          `${project} can be changed by another user (owner uid ${process.getuid?.()}, mode 0777)`,
        ),
      ]);
    }
    // Nothing written anywhere, the user's own file included: every file is checked before any is written.
    expect(readJson(user)).toEqual(entry);
    expect(readJson(local)).toEqual(entry);
    expect(fs.readdirSync(path.dirname(local))).toEqual(["settings.json"]);

    // Sticky (as /tmp): only an entry's owner may rename it, so the user's .gemini stays theirs.
    fs.chmodSync(project, 0o1777);
    const sticky = await run(home, [...SELF, "uninstall", "gemini"], undefined, project);
    expect(sticky.code, sticky.stderr).toBe(0);
    expect(readJson(local)).toEqual({ mcpServers: { other: { command: "x" } } });

    if (process.getuid?.() !== 0) {
      console.log("skip: giving the project folder to another user (uid 65534) needs root");
      return;
    }
    writeJson(local, entry);
    fs.chmodSync(project, 0o755);
    fs.chownSync(project, 65534, 65534);
    const theirs = await run(home, [...SELF, "uninstall", "gemini"], undefined, project);
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain(`${project} can be changed by another user (owner uid 65534, mode 0755)`);
    expect(readJson(local)).toEqual(entry);
  });
});
