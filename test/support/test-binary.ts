/**
 * The compiled mcpkit that a plain `bun test` runs its processes against (test/support/parallel.ts
 * hands it on as MCPKIT_BIN): built from this checkout's sources at the start of the run, exactly
 * as a release is (`scripts/release/compile.ts`), and reused while the sources are unchanged.
 *
 * Why: the suite starts about 600 mcpkit processes. `bun src/main.ts` spends about 44 ms of CPU
 * to answer `initialize` and `tools/list` (it transpiles and links ~150 modules each time), the
 * compiled binary about 14 ms, and building it about 1 s. On 2 cores the suite went from 68.8 s
 * to 55.8 s of wall time (130 → 105 s of CPU). `MCPKIT_BIN= bun test` runs the sources instead,
 * and CI runs the process tests against the sources too.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { compile, hostTarget } from "../../scripts/release/compile.ts";

/** What the binary is built from: a change to any of these builds a new one. */
const INPUT_FOLDERS = ["src", "scripts/release"];
const INPUT_FILES = ["package.json", "bun.lock", "tsconfig.json"];

/** The folder holding one binary per key; older keys are removed once a new one is built. */
export function cacheFolder(root: string): string {
  return join(root, "node_modules/.cache/mcpkit-test-binary");
}

/** A digest of every input's path and bytes, and of the Bun that compiles them. */
export function sourcesKey(root: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${Bun.version} ${Bun.revision} ${process.platform}-${process.arch}\0`);
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

/**
 * The path of a binary built from ROOT's current sources, built now when there is none; undefined
 * (with the reason) where this machine has no build target or the build fails, and then the tests
 * run the sources.
 */
export async function testBinary(root: string): Promise<{ path?: string; built?: boolean; reason?: string }> {
  if (!hostTarget()) return { reason: `no mcpkit build for ${process.platform}-${process.arch}` };
  const folder = cacheFolder(root);
  const key = sourcesKey(root);
  const path = join(folder, key, "mcpkit");
  if (existsSync(path)) return { path };
  const staging = join(folder, `${key}.${process.pid}.building`);
  try {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await compile({ entry: "src/main.ts", outfile: join(staging, "mcpkit"), cwd: root });
    try {
      renameSync(staging, join(folder, key));
    } catch (error) {
      // Another `bun test` in this checkout built the same key first: its binary is as good.
      if (!existsSync(path)) throw error;
    }
  } catch (error) {
    return { reason: `building it failed: ${error instanceof Error ? error.message.split("\n")[0] : error}` };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  removeOtherKeys(folder, key);
  return { path, built: true };
}

/** Each binary is about 110 MB: keep the one just built, and those a live run is still building. */
function removeOtherKeys(folder: string, key: string): void {
  for (const name of readdirSync(folder)) {
    const builder = /\.(\d+)\.building$/.exec(name)?.[1];
    if (name !== key && !(builder && isAlive(Number(builder))))
      rmSync(join(folder, name), { recursive: true, force: true });
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
