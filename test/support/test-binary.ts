/**
 * The compiled mcpkit that a plain `bun test` runs its processes against (test/support/parallel.ts
 * hands it on as MCPKIT_BIN): built from this checkout's sources at the start of the run, exactly
 * as a release is (`scripts/release/compile.ts`), and reused while the sources are unchanged.
 *
 * Why: the suite starts about 600 mcpkit processes. `bun src/main.ts` spends about 44 ms of CPU
 * to answer `initialize` and `tools/list` (it transpiles and links ~150 modules each time), the
 * compiled binary about 14 ms, and building it about 1 s. On 2 cores the suite went from 68.8 s
 * to about 54 s of wall time (130 → 100–105 s of CPU). `MCPKIT_BIN= bun test` runs the sources
 * instead, and CI runs the process tests against the sources too.
 *
 * Each run gets its own hard link to the binary (`run-<pid>/mcpkit`): a later run that builds
 * for other sources removes the old key's folder, and the link keeps the file a running suite
 * still starts processes from.
 */
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { compile, hostTarget } from "../../scripts/release/compile.ts";
import { compilerFor } from "../../scripts/release/prebuilt-walk.ts";

/** What the binary is built from: a change to any of these builds a new one. */
const INPUT_FOLDERS = ["src", "scripts/release"];
const INPUT_FILES = ["package.json", "bun.lock", "tsconfig.json", "bunfig.toml"];
/** Lines of a failed build's output the run shows (bun build names the broken import there). */
const FAILURE_LINES = 20;

/** The folder holding one binary per key, and each running suite's link to its binary. */
export function cacheFolder(root: string): string {
  return join(root, "node_modules/.cache/mcpkit-test-binary");
}

/**
 * A digest of every input's path and bytes, of the Bun that compiles them, and of the C compiler
 * that decides whether the native walk is built in (`scripts/release/prebuilt-walk.ts`).
 */
export function sourcesKey(root: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const target = hostTarget();
  const compiler = target && compilerFor(target);
  hasher.update(
    `${Bun.version} ${Bun.revision} ${process.platform}-${process.arch} ${compiler && realpathSync(compiler)}\0`,
  );
  const files = INPUT_FOLDERS.flatMap((folder) =>
    (readdirSync(join(root, folder), { recursive: true }) as string[]).map((name) => join(folder, name)),
  );
  for (const file of [...files, ...INPUT_FILES].sort()) {
    const path = join(root, file);
    if (!existsSync(path) || !statSync(path).isFile()) continue;
    hasher.update(`${file}\0`);
    hasher.update(readFileSync(path));
    hasher.update("\0");
  }
  return hasher.digest("hex").slice(0, 24);
}

export interface TestBinary {
  /** This run's link to a binary of the current sources; undefined when there is none (then `reason`). */
  path?: string;
  built?: boolean;
  reason?: string;
  /** Removes this run's link (the binary stays for the next run). */
  release(): void;
}

/**
 * A binary built from ROOT's current sources (built now when there is none), linked for this run;
 * or the reason there is none (no build target here, the build failed, the cache cannot be
 * written), and then the tests run the sources.
 */
export async function testBinary(root: string): Promise<TestBinary> {
  const none = (reason: string): TestBinary => ({ reason, release() {} });
  if (!hostTarget()) return none(`no mcpkit build for ${process.platform}-${process.arch}`);
  const folder = cacheFolder(root);
  let built = false;
  let key = sourcesKey(root);
  // A source saved during the build would be filed under the key read before it: build once more.
  for (let attempt = 0; !existsSync(join(folder, key, "mcpkit")); attempt++) {
    if (attempt === 2) return none("the sources kept changing while it was built");
    const failure = await build(root, folder, key);
    if (failure) return none(failure);
    built = true;
    const after = sourcesKey(root);
    if (after !== key) rmSync(join(folder, key), { recursive: true, force: true });
    key = after;
  }
  try {
    removeUnused(folder, built ? key : undefined);
  } catch {
    // Clean-up is best effort: a cache another user owns keeps what it holds.
  }
  const run = join(folder, `run-${process.pid}`);
  try {
    rmSync(run, { recursive: true, force: true });
    mkdirSync(run);
    linkSync(join(folder, key, "mcpkit"), join(run, "mcpkit"));
  } catch {
    // A checkout this user may read but not write (another user built the binary): use it as it
    // is; only a build by that user could remove it meanwhile.
    return { path: join(folder, key, "mcpkit"), built, release() {} };
  }
  return { path: join(run, "mcpkit"), built, release: () => rmSync(run, { recursive: true, force: true }) };
}

/** Builds KEY's binary into FOLDER; the reason when it could not. */
async function build(root: string, folder: string, key: string): Promise<string | undefined> {
  const staging = join(folder, `${key}.${process.pid}.building`);
  try {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await compile({ entry: "src/main.ts", outfile: join(staging, "mcpkit"), cwd: root });
    try {
      renameSync(staging, join(folder, key));
    } catch (error) {
      // Another `bun test` in this checkout built the same key first: its binary is as good.
      if (!existsSync(join(folder, key, "mcpkit"))) throw error;
    }
    return undefined;
  } catch (error) {
    return `building it failed: ${firstLines(error)}`;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function firstLines(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").slice(0, FAILURE_LINES).join("\n");
}

/**
 * Each binary is about 110 MB. Always removes what runs that ended without cleaning up left (a
 * link keeps its binary's file); once a new binary is built (KEPT), the other keys too. What live
 * runs use or build stays: a run's link keeps its file however its key's folder goes.
 */
export function removeUnused(folder: string, kept: string | undefined): void {
  for (const name of readdirSync(folder)) {
    const owner = /^run-(\d+)$|\.(\d+)\.building$/.exec(name);
    const pid = owner && Number(owner[1] ?? owner[2]);
    const unused = owner ? !(pid && isAlive(pid)) : kept !== undefined && name !== kept;
    if (unused) rmSync(join(folder, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
