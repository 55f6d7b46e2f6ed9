/**
 * A plain `bun test` runs its mcpkit processes from a compiled binary of the checkout's current
 * sources (test/support/test-binary.ts; about 30 ms of CPU less per process than `bun src/main.ts`,
 * about 14 s of the suite's wall time on 2 cores). Checked on a scratch project that preloads
 * test/support/parallel.ts, as bunfig.toml does, and prints the MCPKIT_BIN its test file sees.
 * parallel.ts re-runs a plain `bun test` only on Linux (it reads /proc/self/cmdline).
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  accessSync,
  appendFileSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { hostTarget } from "../../scripts/release/compile.ts";
import { compilerFor } from "../../scripts/release/prebuilt-walk.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { cacheFolder, removeUnused, sourcesKey } from "../support/test-binary.ts";

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

  const target = hostTarget();
  test.skipIf(process.platform !== "linux" || !target || !compilerFor(target))(
    "changes with the C compiler found, which decides whether the native walk is built in",
    () => {
      const withCompiler = sourcesKey(root);
      const path = process.env.PATH;
      process.env.PATH = join(scratch, "no-compiler"); // a folder that does not exist: no cc, no gcc
      try {
        expect(sourcesKey(root)).not.toBe(withCompiler);
      } finally {
        process.env.PATH = path;
      }
    },
  );
});

describe("what a new build removes", () => {
  /** A pid that was a process and has ended. */
  const endedPid = () => {
    const child = Bun.spawnSync(["true"]);
    return child.pid;
  };

  test("other keys and what ended runs left; never a live run's link, whose file stays whole", () => {
    const folder = join(scratch, "cache");
    for (const key of ["old", "new"]) {
      mkdirSync(join(folder, key), { recursive: true });
      writeFileSync(join(folder, key, "mcpkit"), `binary ${key}`);
    }
    const live = join(folder, `run-${process.pid}`);
    mkdirSync(live);
    linkSync(join(folder, "old", "mcpkit"), join(live, "mcpkit"));
    mkdirSync(join(folder, `run-${endedPid()}`));
    mkdirSync(join(folder, `new.${endedPid()}.building`));
    mkdirSync(join(folder, `other.${process.pid}.building`));

    removeUnused(folder, "new");
    expect(readdirSync(folder).sort()).toEqual(["new", `other.${process.pid}.building`, `run-${process.pid}`].sort());
    // The running suite still starts its processes from the old key's file.
    expect(readFileSync(join(live, "mcpkit"), "utf8")).toBe("binary old");
  });

  test("without a new build, only what ended runs left", () => {
    const folder = join(scratch, "cache-unchanged");
    mkdirSync(join(folder, "current"), { recursive: true });
    mkdirSync(join(folder, `run-${endedPid()}`));
    removeUnused(folder, undefined);
    expect(readdirSync(folder)).toEqual(["current"]);
  });
});

describe.skipIf(process.platform !== "linux")("a plain bun test", () => {
  const project = join(scratch, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "bunfig.toml"),
    `[test]\npreload = [${JSON.stringify(join(REPO_ROOT, "test/support/parallel.ts"))}]\n`,
  );
  writeFileSync(
    join(project, "which.test.ts"),
    [
      'import { statSync } from "node:fs";',
      'import { expect, test } from "bun:test";',
      'test("which", () => {',
      "  const bin = process.env.MCPKIT_BIN;",
      '  console.log("MCPKIT_BIN=" + bin + " INODE=" + (bin ? statSync(bin).ino : ""));',
      "  expect(1).toBe(1);",
      "});",
    ].join("\n"),
  );

  /** The MCPKIT_BIN the scratch test saw (and its inode), and the lines that say what ran. */
  async function seen(env: Record<string, string | undefined>) {
    const run = Bun.spawn([process.execPath, "test"], { cwd: project, env, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
    const output = `${out}${err}`;
    expect(await run.exited, output).toBe(0);
    const [, binary, inode] = /MCPKIT_BIN=(.*) INODE=(\d*)/.exec(output) ?? [];
    return { binary, inode, said: output.match(/^mcpkit under test: .*$/gm) ?? [] };
  }

  const cacheWritable = (() => {
    try {
      mkdirSync(cacheFolder(REPO_ROOT), { recursive: true });
      accessSync(cacheFolder(REPO_ROOT), constants.W_OK);
      return true;
    } catch {
      return false;
    }
  })();

  test.if(cacheWritable)(
    "runs its own link to a compiled binary of the current sources, says so in one line, and removes the link after",
    async () => {
      const { MCPKIT_BIN: _given, ...env } = process.env;
      const { binary, inode, said } = await seen(env);
      const built = join(cacheFolder(REPO_ROOT), sourcesKey(REPO_ROOT), "mcpkit");
      expect(binary).toMatch(new RegExp(`^${cacheFolder(REPO_ROOT)}/run-\\d+/mcpkit$`));
      expect(inode).toBe(String(statSync(built).ino));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(binary ?? "-");
      expect(existsSync(dirname(binary ?? "/"))).toBe(false);
      expect(Bun.spawnSync([built, "--version"]).stdout.toString()).toStartWith("mcpkit ");
    },
    120_000,
  );

  test.if(!cacheWritable)(
    "where the cache cannot be written, runs the binary another user built there, else the sources and says why",
    async () => {
      const { MCPKIT_BIN: _given, ...env } = process.env;
      const { binary, said } = await seen(env);
      const built = join(cacheFolder(REPO_ROOT), sourcesKey(REPO_ROOT), "mcpkit");
      if (existsSync(built)) {
        expect(binary).toBe(built);
        expect(said[0]).toContain(built);
      } else {
        expect(binary).toBe("undefined");
        expect(said[0]).toContain("bun src/main.ts (no compiled binary: ");
      }
    },
  );

  test("leaves MCPKIT_BIN as given, and says which: empty runs the sources", async () => {
    expect(await seen({ ...process.env, MCPKIT_BIN: "" })).toEqual({
      binary: "",
      inode: "",
      said: ["mcpkit under test: bun src/main.ts (MCPKIT_BIN is empty)"],
    });
    const given = join(scratch, "given-mcpkit");
    writeFileSync(given, "");
    const { binary, said } = await seen({ ...process.env, MCPKIT_BIN: given });
    expect(binary).toBe(given);
    expect(said).toEqual([`mcpkit under test: ${given} (MCPKIT_BIN)`]);
  });
});
