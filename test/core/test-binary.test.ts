/**
 * A plain `bun test` runs its mcpkit processes from a compiled binary of the checkout's current
 * sources (test/support/test-binary.ts; about 30 ms of CPU less per process than `bun src/main.ts`,
 * 13 s of the suite's wall time on 2 cores). Checked on a scratch project that preloads
 * test/support/parallel.ts, as bunfig.toml does, and prints the MCPKIT_BIN its test file sees.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/mcp.ts";
import { cacheFolder, sourcesKey } from "../support/test-binary.ts";

const scratch = mkdtempSync(join(tmpdir(), "mcpkit-test-binary-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the key a binary is kept under", () => {
  const root = join(scratch, "root");
  mkdirSync(join(root, "src/toolsets"), { recursive: true });
  mkdirSync(join(root, "scripts/release"), { recursive: true });
  mkdirSync(join(root, "test"), { recursive: true });
  writeFileSync(join(root, "src/main.ts"), "console.log(1);\n");
  writeFileSync(join(root, "scripts/release/compile.ts"), "export {};\n");
  writeFileSync(join(root, "package.json"), "{}\n");

  test("changes with a source file's bytes, a new source file, the build script and package.json", () => {
    const keys = [sourcesKey(root)];
    appendFileSync(join(root, "src/main.ts"), "console.log(2);\n");
    keys.push(sourcesKey(root));
    writeFileSync(join(root, "src/toolsets/new.ts"), "export {};\n");
    keys.push(sourcesKey(root));
    appendFileSync(join(root, "scripts/release/compile.ts"), "// changed\n");
    keys.push(sourcesKey(root));
    writeFileSync(join(root, "package.json"), '{"version":"2.0.0"}\n');
    keys.push(sourcesKey(root));
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("stays when only tests change, so a test edit rebuilds nothing", () => {
    const before = sourcesKey(root);
    writeFileSync(join(root, "test/a.test.ts"), "// a test\n");
    expect(sourcesKey(root)).toBe(before);
  });
});

describe("a plain bun test", () => {
  const project = join(scratch, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "bunfig.toml"),
    `[test]\npreload = [${JSON.stringify(join(REPO_ROOT, "test/support/parallel.ts"))}]\n`,
  );
  writeFileSync(
    join(project, "which.test.ts"),
    `import { expect, test } from "bun:test";\ntest("which", () => { console.log("MCPKIT_BIN=" + process.env.MCPKIT_BIN); expect(1).toBe(1); });\n`,
  );

  /** The MCPKIT_BIN the scratch test saw, and the lines that say what ran. */
  async function seenBinary(env: Record<string, string | undefined>): Promise<{ binary?: string; said: string[] }> {
    const run = Bun.spawn([process.execPath, "test"], { cwd: project, env, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
    expect(await run.exited).toBe(0);
    const output = `${out}${err}`;
    return { binary: /MCPKIT_BIN=(.*)/.exec(output)?.[1], said: output.match(/^mcpkit under test: .*$/gm) ?? [] };
  }

  test("runs a compiled binary of the current sources, named in one line", async () => {
    const { MCPKIT_BIN: _given, ...env } = process.env;
    const { binary, said } = await seenBinary(env);
    expect(binary).toBe(join(cacheFolder(REPO_ROOT), sourcesKey(REPO_ROOT), "mcpkit"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(binary ?? "-");
    expect(existsSync(binary ?? "")).toBe(true);
    const version = Bun.spawnSync([binary ?? "", "--version"]);
    expect(version.stdout.toString()).toStartWith("mcpkit ");
  }, 120_000);

  test("leaves MCPKIT_BIN as given: empty runs the sources", async () => {
    expect(await seenBinary({ ...process.env, MCPKIT_BIN: "" })).toEqual({ binary: "", said: [] });
    expect(await seenBinary({ ...process.env, MCPKIT_BIN: "/given/mcpkit" })).toEqual({
      binary: "/given/mcpkit",
      said: [],
    });
  });
});
