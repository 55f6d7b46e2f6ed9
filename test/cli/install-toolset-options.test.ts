/**
 * `mcpkit install` passes on every option a toolset declares, as its declaration says: a value the server would
 * refuse is refused here (the toolset's own check, or its schema) without being repeated, a secret goes to the
 * entry's env under its variable however it is named, and the rest are arguments the server reads.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "bun:test";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { cli, COMMAND, PREFIX, run, SELF, tempHome } from "./install-helpers.ts";

interface Entry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

function cursorEntry(home: string): Entry {
  return JSON.parse(fs.readFileSync(path.join(home, ".cursor", "mcp.json"), "utf8")).mcpServers.mcpkit;
}

describe("install passes on the toolsets' options", () => {
  test("install --help lists every option a toolset declares", async () => {
    const help = (await cli(tempHome(), "install", "--help")).stdout;
    const declared = toolsetModules.flatMap((module) => module.options.map((option) => `--${option.name} `));
    expect(declared.length).toBeGreaterThan(10);
    expect(declared.filter((flag) => !help.includes(flag))).toEqual([]);
    expect(help).toContain("written to the entry's env as OJ_TOKEN (the file and its .bak made 0600)");
  });

  test("BOJ's options become arguments a server started from the entry accepts; a value it would refuse is refused", async () => {
    const home = tempHome();
    const given = ["--boj-cache-ttl-s", "data=60", "--boj-timeout-ms", "5000", "--boj-base-url", "https://boj.example"];
    const installed = await cli(home, "install", "cursor", ...given, "--toolsets", "boj");
    expect(installed.code, installed.stderr).toBe(0);
    const entry = cursorEntry(home);
    expect(entry).toEqual({
      command: COMMAND,
      args: [
        ...PREFIX,
        "--toolsets",
        "boj",
        "--boj-base-url",
        "https://boj.example",
        "--boj-timeout-ms",
        "5000",
        "--boj-cache-ttl-s",
        "data=60",
      ],
    });
    const listed = await run(home, [entry.command, ...entry.args, "tools"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("boj_get_data_code");

    const password = "boj-url-password-5e6f";
    for (const [args, message] of [
      [["--boj-timeout-ms", "0"], "--boj-timeout-ms: expected a whole number of milliseconds from 1 to 600000"],
      [["--boj-base-url", "ftp://boj.example"], "--boj-base-url: expected an absolute http:// or https:// URL"],
      [["--boj-base-url", `https://u:${password}@boj.example`], "--boj-base-url: the URL must not carry a user name"],
      [["--boj-cache-ttl-s", "weekly"], "--boj-cache-ttl-s: expected data=SECONDS,metadata=SECONDS"],
    ] as const) {
      const refused = await cli(home, "install", "cursor", ...args, "--name", "refused");
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout + refused.stderr).not.toContain(password);
    }
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(home, ".cursor", "mcp.json"), "utf8")).mcpServers)).toEqual(
      ["mcpkit"],
    );
  });

  test("--boj-shared-state, a secret not named like one, goes to the env as BOJ_SHARED_STATE (0600) and is never printed", async () => {
    const home = tempHome();
    const [password, rotated] = ["shared-state-pw-1a2b3c", "shared-state-pw-4d5e6f"];
    const url = (secret: string) => `postgres://mcpkit:${secret}@db.example/mcpkit`;
    const installed = await cli(home, "install", "cursor", "--boj-shared-state", url(password));
    expect(installed.code, installed.stderr).toBe(0);
    const file = path.join(home, ".cursor", "mcp.json");
    expect(cursorEntry(home)).toEqual({
      command: COMMAND,
      args: [...PREFIX],
      env: { BOJ_SHARED_STATE: url(password) },
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const dry = await cli(home, "install", "cursor", "--boj-shared-state", url(rotated), "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("only values shown as [redacted] would change");
    const link = await cli(home, "install", "--link", "cursor", "--boj-shared-state", url(rotated));
    expect(link.code).toBe(0);
    expect(link.stderr).toContain("mcpkit install cursor --boj-shared-state …");
    const removed = await cli(home, "uninstall", "cursor");
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`(backup: ${file}.bak, without the BOJ_SHARED_STATE it held)`);
    expect(fs.readFileSync(`${file}.bak`, "utf8")).not.toContain(password);

    const refused = await cli(home, "install", "cursor", "--boj-shared-state", `mysql://u:${password}@db/x`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--boj-shared-state: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE");
    const printed = [installed, dry, link, removed, refused].map(({ stdout, stderr }) => stdout + stderr).join("");
    expect(printed).not.toContain(password);
    expect(printed).not.toContain(rotated);
  });

  test("a relative --boj-catalog-dir or sqlite: --boj-shared-state is written absolute, against the folder install runs in; off, :memory:, absolute paths and Postgres URLs as typed", async () => {
    const home = tempHome();
    const project = path.join(home, "project");
    fs.mkdirSync(project);
    const install = (...args: string[]) =>
      run(home, [...SELF, "install", "cursor", ...args], process.env.PATH, project);
    // Neither has to exist: the server creates both.
    const relative = await install("--boj-catalog-dir", "./cat", "--boj-shared-state", "sqlite:state/boj.db");
    expect(relative.code, relative.stderr).toBe(0);
    expect(cursorEntry(home).args).toEqual([...PREFIX, "--boj-catalog-dir", path.join(project, "cat")]);
    expect(cursorEntry(home).env).toEqual({ BOJ_SHARED_STATE: `sqlite:${path.join(project, "state", "boj.db")}` });
    expect(fs.existsSync(path.join(project, "cat"))).toBe(false);

    const slashes = await install("--boj-catalog-dir", "~/c", "--boj-shared-state", "sqlite://boj.db");
    expect(slashes.code, slashes.stderr).toBe(0);
    expect(cursorEntry(home).args).toEqual([...PREFIX, "--boj-catalog-dir", path.join(home, "c")]);
    expect(cursorEntry(home).env).toEqual({ BOJ_SHARED_STATE: `sqlite:${path.join(project, "boj.db")}` });

    const postgres = "postgres://mcpkit:pw-7c8d9e@db.example/state.db";
    for (const [dir, state] of [
      ["off", "sqlite::memory:"],
      ["OFF", postgres],
      ["/var/cache/boj", "sqlite:///var/lib/boj.db"],
    ]) {
      const kept = await install("--boj-catalog-dir", dir, "--boj-shared-state", state);
      expect(kept.code, kept.stderr).toBe(0);
      expect(cursorEntry(home).args).toEqual([...PREFIX, "--boj-catalog-dir", dir]);
      expect(cursorEntry(home).env).toEqual({ BOJ_SHARED_STATE: state });
    }
  });

  test("a secret the server would refuse is refused without being repeated: a short --fs-cursor-secret, an --oj-token with a space", async () => {
    const home = tempHome();
    for (const [args, message] of [
      [["--fs-cursor-secret", "short-secret"], "--fs-cursor-secret: expected at least 16 characters"],
      [["--oj-token", "two words-9f8e"], "--oj-token: the token must be printable ASCII without spaces"],
    ] as const) {
      const refused = await cli(home, "install", "cursor", ...args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout + refused.stderr).not.toContain(args[1]);
    }
    expect(fs.existsSync(path.join(home, ".cursor"))).toBe(false);
  });
});
