/** No token reaches the output of install or uninstall, dry run or not, nor a --link (H2). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "bun:test";
import { cli, tempHome } from "./install-helpers.ts";

const NEIGHBOUR = "ghp_neighbour0123456789";
const BEARER = "Bearer neighbour-header-secret";

/** A config with another server whose env and headers hold secrets, shown as context beside our entry. */
function cursorConfig(home: string): string {
  const file = path.join(home, ".cursor", "mcp.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const doc = {
    mcpServers: {
      github: { command: "gh-mcp", env: { GITHUB_TOKEN: NEIGHBOUR } },
      remote: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: BEARER } },
    },
  };
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
}

/** Each secret, as typed and as JSON writes it, is absent from `output`. */
function expectNone(output: string, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(output).not.toContain(secret);
    expect(output).not.toContain(JSON.stringify(secret).slice(1, -1));
  }
}

describe("install and uninstall print no secret", () => {
  test("uninstall --dry-run and uninstall hide the installed OJ_TOKEN and the neighbours' secrets", async () => {
    const home = tempHome();
    cursorConfig(home);
    const token = "installed-token-4f9a2c";
    const installed = await cli(home, "install", "cursor", "--oj-token", token);
    expect(installed.code, installed.stderr).toBe(0);
    const dry = await cli(home, "uninstall", "cursor", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('-    "mcpkit": {');
    expect(dry.stdout).toContain('"OJ_TOKEN": "[redacted]"');
    expect(dry.stdout).toContain('"remote": "[not shown]"');
    expectNone(dry.stdout + dry.stderr, token, NEIGHBOUR, BEARER);
    const removed = await cli(home, "uninstall", "cursor");
    expect(removed.code).toBe(0);
    expectNone(removed.stdout + removed.stderr + installed.stdout + installed.stderr, token, NEIGHBOUR, BEARER);
  });

  test("install --dry-run with a new token hides the old one and the new one", async () => {
    const home = tempHome();
    cursorConfig(home);
    const [old, rotated] = ["old-token-8d1e77aa", "new-token-3b5c90ff"];
    expect((await cli(home, "install", "cursor", "--oj-token", old)).code).toBe(0);
    const dry = await cli(home, "install", "cursor", "--oj-token", rotated, "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("only values shown as [redacted] would change");
    expectNone(dry.stdout + dry.stderr, old, rotated, NEIGHBOUR, BEARER);
    // With another change beside the token, the diff shows that change and still neither token.
    fs.mkdirSync(path.join(home, "docs"));
    const wider = await cli(home, "install", "cursor", "--oj-token", rotated, "--root", "~/docs", "--dry-run");
    expect(wider.code).toBe(0);
    expect(wider.stdout).toContain(path.join(home, "docs"));
    expectNone(wider.stdout + wider.stderr, old, rotated, NEIGHBOUR, BEARER);
    const written = await cli(home, "install", "cursor", "--oj-token", rotated);
    expect(written.code).toBe(0);
    expectNone(written.stdout + written.stderr, old, rotated);
  });

  test("a token with JSON escapes in it is hidden in every diff", async () => {
    const home = tempHome();
    const token = 'tok\\en"X-5e0d2b';
    const dry = await cli(home, "install", "vscode", "--oj-token", token, "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('"OJ_TOKEN": "[redacted]"');
    expectNone(dry.stdout + dry.stderr, token, "5e0d2b");
    expect((await cli(home, "install", "vscode", "--oj-token", token)).code).toBe(0);
    const file = path.join(home, ".config", "Code", "User", "mcp.json");
    expect(JSON.parse(fs.readFileSync(file, "utf8")).servers.mcpkit.env.OJ_TOKEN).toBe(token);
    const undo = await cli(home, "uninstall", "vscode", "--dry-run");
    expect(undo.code).toBe(0);
    expectNone(undo.stdout + undo.stderr, token, "5e0d2b");
  });

  test("codex: every value under env and http_headers tables, dotted keys and inline tables is hidden", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(file));
    const secrets = ["toml-table-secret-1", "toml-dotted-secret-2", "toml-inline-secret-3", "toml-multi-secret-4"];
    fs.writeFileSync(
      file,
      [
        "[mcp_servers.a]",
        'command = "a"',
        `env.A_TOKEN = "${secrets[1]}"`,
        "",
        "[mcp_servers.b]",
        'command = "b"',
        `env = { B_TOKEN = '${secrets[2]}' }`,
        "",
        "[mcp_servers.b.http_headers]",
        `Authorization = "Bearer ${secrets[0]}"`,
        `X_MULTI = """`,
        `${secrets[3]}"""`,
        "",
      ].join("\n"),
    );
    const token = "codex-oj-token-77aa01";
    const dry = await cli(home, "install", "codex", "--oj-token", token, "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('+"OJ_TOKEN" = "[redacted]"');
    expectNone(dry.stdout + dry.stderr, token, ...secrets);
    expect((await cli(home, "install", "codex", "--oj-token", token)).code).toBe(0);
    const undo = await cli(home, "uninstall", "codex", "--dry-run");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("-[mcp_servers.mcpkit]");
    expectNone(undo.stdout + undo.stderr, token, ...secrets);
  });

  test("a secret laid out in a way a text masking would not follow, in a neighbour, is not shown either", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(file));
    const secret = "array-spread-secret-6f1c";
    fs.writeFileSync(file, `[mcp_servers.a]\ncommand = "a"\nenv = [\n  "${secret}",\n]\n`);
    const dry = await cli(home, "install", "codex", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("[mcp_servers.a]  # [not shown]");
    expectNone(dry.stdout + dry.stderr, secret);
  });

  test("a diff shows the changing entry alone: no secret in args, URLs, other keys or the rest of the file", async () => {
    const home = tempHome();
    const [query, bearer, flag, env, key, userinfo] = ["Q-q7", "A-a7", "T-t7", "E-e7", "U-u7", "P-p7"];
    const file = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(file));
    const github = [
      "-y",
      "mcp-remote",
      `https://api.example/mcp?access_token=${query}`,
      "--header",
      `Authorization: Bearer ${bearer}`,
    ];
    const doc = {
      mcpServers: {
        github: { command: "npx", args: github },
        mcpkit: {
          command: "x",
          args: ["--oj-token", flag, `--oj-base-url=https://me:${userinfo}@h/`],
          env: { OJ_TOKEN: env },
        },
        remote: { url: `https://x/mcp?key=${key}`, headers: { Authorization: "Bearer h" } },
      },
    };
    fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    const dry = await cli(home, "uninstall", "cursor", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('-    "mcpkit": {');
    expect(dry.stdout).toContain('"github": "[not shown]"');
    expect(dry.stdout).toContain('"--oj-base-url=https://[redacted]@h/"');
    expectNone(dry.stdout + dry.stderr, query, bearer, flag, env, key, userinfo);

    const codex = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(codex));
    fs.writeFileSync(codex, `[mcp_servers.other]\nurl = "https://h/mcp"\nbearer_token = "${bearer}"\n`);
    const toml = await cli(home, "install", "codex", "--dry-run");
    expect(toml.code, toml.stderr).toBe(0);
    expect(toml.stdout).toContain("+[mcp_servers.mcpkit]");
    expectNone(toml.stdout + toml.stderr, bearer);

    const apiKey = "sk-ant-api03-secret-9c1d";
    fs.writeFileSync(path.join(home, ".claude.json"), `{\n  "primaryApiKey": "${apiKey}",\n  "mcpServers": {}\n}\n`);
    const claude = await cli(home, "install", "claude-code", "--dry-run");
    expect(claude.code, claude.stderr).toBe(0);
    expect(claude.stdout).toContain('+    "mcpkit": {');
    expectNone(claude.stdout + claude.stderr, apiKey, "primaryApiKey");
  });

  test("a file and its .bak that hold the token are made 0600, and the output says so", async () => {
    if (process.platform === "win32") return;
    const home = tempHome();
    const file = cursorConfig(home);
    fs.chmodSync(file, 0o644);
    const token = "mode-token-51d0e3";
    const installed = await cli(home, "install", "cursor", "--oj-token", token);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("(mode 0644 → 0600: it holds a credential)");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Installed again with another root, the .bak is a copy of a file with the token in it.
    fs.mkdirSync(path.join(home, "docs"));
    fs.chmodSync(file, 0o644);
    const again = await cli(home, "install", "cursor", "--oj-token", token, "--root", "~/docs");
    expect(again.code, again.stderr).toBe(0);
    expect(fs.readFileSync(`${file}.bak`, "utf8")).toContain(token);
    for (const written of [file, `${file}.bak`]) expect(fs.statSync(written).mode & 0o777).toBe(0o600);
    // Without a token the file keeps its mode.
    fs.chmodSync(file, 0o644);
    const plain = await cli(home, "install", "cursor");
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain("0600");
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    // A URL with a credential in it is one too.
    const url = await cli(home, "install", "cursor", "--http", "http://127.0.0.1:9/mcp?access_token=u-6b2a");
    expect(url.code, url.stderr).toBe(0);
    expect(url.stdout).toContain("(mode 0644 → 0600: it holds a credential)");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  test("a TOML parse error names the file, line and column, and quotes nothing of the file", async () => {
    const home = tempHome();
    const file = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(file));
    const token = "unquotedtoken7c3e";
    fs.writeFileSync(file, `[mcp_servers.x]\ncommand = "a"\n\n[mcp_servers.mcpkit.env]\nOJ_TOKEN = ${token}\n`);
    for (const verb of ["uninstall", "install"]) {
      const result = await cli(home, verb, "codex", "--dry-run");
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `mcpkit ${verb}: ${file} is not valid TOML (line 5, column 12); fix or move it, then run again\n`,
      );
      expectNone(result.stdout + result.stderr, token);
    }
  });

  test("uninstall's .bak keeps no token given in args or under an env key in another case", async () => {
    const home = tempHome();
    const [inline, spaced, lower] = ["inline-S9-a1b2", "spaced-S8-c3d4", "lower-S7-e5f6"];
    const cursor = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(cursor));
    const mcpkit = {
      command: "mcpkit",
      args: [`--oj-token=${inline}`, "--oj-token", spaced],
      env: { oj_token: lower },
    };
    fs.writeFileSync(cursor, `${JSON.stringify({ mcpServers: { mcpkit, other: { command: "x" } } }, null, 2)}\n`);
    const codex = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(codex));
    fs.writeFileSync(
      codex,
      `[mcp_servers.mcpkit]\ncommand = "mcpkit"\nargs = ["--oj-token=${inline}", "--oj-token", "${spaced}"]\n\n[mcp_servers.mcpkit.env]\noj_token = "${lower}"\n\n[mcp_servers.other]\ncommand = "x"\n`,
    );
    for (const [client, file] of [
      ["cursor", cursor],
      ["codex", codex],
    ] as const) {
      const removed = await cli(home, "uninstall", client);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(`(backup: ${file}.bak, without the OJ_TOKEN it held)`);
      const backup = fs.readFileSync(`${file}.bak`, "utf8");
      expect(backup).toContain("--oj-token=[removed by mcpkit]");
      expectNone(backup + removed.stdout + removed.stderr, inline, spaced, lower);
    }
  });

  test("a token set as NAME=value in args (docker -e OJ_TOKEN=…) is hidden in the diff and kept out of the .bak", async () => {
    const home = tempHome();
    const [docker, state, env, wrapped] = ["docker-D1-9e8f", "state-S2-7a6b", "env-E3-5c4d", "wrapped-W4-3f2e"];
    const args = ["run", "-i", "-e", `OJ_TOKEN=${docker}`, "-e", `boj_shared_state=${state}`, "mcpkit/mcpkit"];
    const cursor = path.join(home, ".cursor", "mcp.json");
    fs.mkdirSync(path.dirname(cursor));
    // A command line written as one string is masked in the diff; a backup scrubs env and args only, as before.
    const mcpkit = { command: `env OJ_TOKEN=${wrapped} docker`, args, env: { OJ_TOKEN: env } };
    fs.writeFileSync(cursor, `${JSON.stringify({ mcpServers: { mcpkit, other: { command: "x" } } }, null, 2)}\n`);
    const codex = path.join(home, ".codex", "config.toml");
    fs.mkdirSync(path.dirname(codex));
    fs.writeFileSync(
      codex,
      `[mcp_servers.mcpkit]\ncommand = "docker"\nargs = ${JSON.stringify(args)}\n\n[mcp_servers.other]\ncommand = "x"\n`,
    );
    for (const [client, file] of [
      ["cursor", cursor],
      ["codex", codex],
    ] as const) {
      const dry = await cli(home, "uninstall", client, "--dry-run");
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("OJ_TOKEN=[redacted]");
      expectNone(dry.stdout + dry.stderr, docker, state, env, wrapped);
      const removed = await cli(home, "uninstall", client);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(`(backup: ${file}.bak, without the OJ_TOKEN and BOJ_SHARED_STATE it held)`);
      const backup = fs.readFileSync(`${file}.bak`, "utf8");
      expect(backup).toContain("OJ_TOKEN=[removed by mcpkit]");
      expectNone(backup + removed.stdout + removed.stderr, docker, state, env);
    }
  });

  test("a short token is masked where it stands alone, not inside the file's path or the entry's name", async () => {
    const home = tempHome();
    const file = path.join(home, ".cursor", "mcp.json");
    const added = await cli(home, "install", "cursor", "--oj-token", "mcp");
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(`${file}: added "mcpkit"\n`);
    // Standing alone (here the entry's name), a short token is still masked; a long one anywhere.
    const named = await cli(home, "install", "cursor", "--oj-token", "abc", "--name", "abc");
    expect(named.stdout).toBe(`${file}: added "[redacted]" (backup: ${file}.bak)\n`);
    const long = await cli(home, "install", "cursor", "--oj-token", "cursor-tok", "--name", "my-cursor-tok1");
    expect(long.stdout).toBe(`${file}: added "my-[redacted]1" (backup: ${file}.bak)\n`);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).mcpServers.mcpkit.env).toEqual({ OJ_TOKEN: "mcp" });
  });

  test("a mistyped option, a stray argument or an unknown client is refused without repeating a token", async () => {
    const home = tempHome();
    const token = "TYPO-SECRET-4b7e";
    for (const [argv, said] of [
      [["-oj-token", token, "cursor"], "unknown option -oj-token for 'install'"],
      [["\u2014oj-token", token, "cursor"], "unknown option \u2014oj-token for 'install'"],
      [["cursor", `-oj-token=${token}`], "unknown option -oj-token for 'install'"],
      [["cursor", token], "unexpected argument (word 2 after 'install', not shown); name one client"],
      [[token], "unknown client (not shown); expected one of"],
    ]) {
      const result = await cli(home, "install", ...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(said as string);
      expectNone(result.stdout + result.stderr, token);
    }
    expect(fs.existsSync(path.join(home, ".cursor"))).toBe(false);
  });

  test("--link refuses a URL that carries a credential, and install refuses an --oj-base-url the server would", async () => {
    const home = tempHome();
    const [query, password] = ["link-query-X-9a8b", "link-password-P-7c6d"];
    for (const client of ["vscode", "cursor"]) {
      for (const url of [`https://h/mcp?token=${query}`, `https://u:${password}@h/mcp`]) {
        const result = await cli(home, "install", "--link", client, "--http", url);
        expect(result.code).toBe(2);
        expect(result.stdout).toBe("");
        expect(result.stderr.trim().split("\n")).toEqual([
          expect.stringContaining("--link would show the --http URL's"),
        ]);
        expectNone(result.stderr, query, password);
      }
    }
    const mistyped = await cli(home, "install", "--link", "vscode", "--http", `h/mcp?token=${query}`);
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toContain("--http needs a whole URL");
    expectNone(mistyped.stderr, query);
    expect((await cli(home, "install", "--link", "vscode", "--http", "https://h/mcp?region=eu")).stdout).toContain(
      "region%3Deu",
    );
    for (const args of [["--link", "cursor"], ["cursor"]]) {
      const result = await cli(home, "install", ...args, "--oj-base-url", `https://u:${password}@oj.example`);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--oj-base-url: the URL must not carry a user name or password");
      expectNone(result.stdout + result.stderr, password);
    }
    expect(fs.existsSync(path.join(home, ".cursor"))).toBe(false);
  });

  test("--link leaves the token out of the Cursor and VS Code links and says how to add it", async () => {
    const home = tempHome();
    const token = "link-token-c0ffee42";
    for (const client of ["cursor", "vscode"]) {
      const result = await cli(home, "install", "--link", client, "--oj-token", token);
      expect(result.code).toBe(0);
      const link = result.stdout.trim();
      const decoded =
        client === "cursor"
          ? Buffer.from(new URL(link).searchParams.get("config") ?? "", "base64").toString()
          : decodeURIComponent(link.slice("vscode:mcp/install?".length));
      expect(JSON.parse(decoded).env).toBeUndefined();
      expectNone(link + decoded + result.stderr, token);
      expect(result.stderr).toContain(`mcpkit install ${client} --oj-token`);
    }
  });
});
