/**
 * Packs one target's binary with README.md and LICENSE under a top-level folder named like the
 * archive, so unpacking never litters the current directory (and Homebrew steps into it).
 *
 * Archives are reproducible for a given binary: every entry gets the same mtime, owner 0 and a
 * sorted order, and gzip writes no timestamp, so re-running a release does not change checksums.
 */
import { chmodSync, copyFileSync, mkdirSync, rmSync, utimesSync } from "node:fs";
import { basename, join } from "node:path";

/** 1980-01-01T00:00:00Z, the earliest time a zip entry can hold; SOURCE_DATE_EPOCH overrides it. */
const DEFAULT_EPOCH_SECONDS = 315_532_800;
/** Releases compress hardest; MCPKIT_RELEASE_GZIP_LEVEL (1–9) trades size for time, for the release test. */
const DEFAULT_GZIP_LEVEL = 9;

export interface ArchiveInput {
  /** The compiled binary, anywhere on disk. */
  binary: string;
  /** Its name inside the archive: mcpkit or mcpkit.exe. */
  binaryName: string;
  /** Extra files copied beside the binary (README.md, LICENSE), by path. */
  documents: string[];
  /** Folder inside the archive and the archive's base name. */
  stem: string;
  format: "tar.gz" | "zip";
  /** Directory the archive is written to; a staging folder is made and removed inside it. */
  outDir: string;
}

/** Writes OUT_DIR/STEM.FORMAT and returns its path. */
export async function packArchive(
  input: ArchiveInput,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const staging = join(input.outDir, `.staging-${input.stem}`);
  const folder = join(staging, input.stem);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  try {
    const epoch = sourceDateEpoch(env);
    const entries: [string, number][] = [[input.binaryName, 0o755]];
    copyFileSync(input.binary, join(folder, input.binaryName));
    for (const document of input.documents) {
      const name = basename(document);
      copyFileSync(document, join(folder, name));
      entries.push([name, 0o644]);
    }
    for (const [name, mode] of entries) {
      chmodSync(join(folder, name), mode);
      utimesSync(join(folder, name), epoch, epoch);
    }
    chmodSync(folder, 0o755);
    utimesSync(folder, epoch, epoch);

    const archive = join(input.outDir, `${input.stem}.${input.format}`);
    rmSync(archive, { force: true });
    if (input.format === "zip") await zip(staging, input.stem, archive);
    else await Bun.write(archive, Bun.gzipSync(await tar(staging, input.stem), { level: gzipLevel(env) }));
    return archive;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export function sourceDateEpoch(env: Record<string, string | undefined>): number {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === "") return DEFAULT_EPOCH_SECONDS;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < DEFAULT_EPOCH_SECONDS) {
    throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, from 1980 on (got ${JSON.stringify(raw)})`);
  }
  return seconds;
}

/**
 * The .tar.gz's gzip level: 9 unless MCPKIT_RELEASE_GZIP_LEVEL names another. Level 9 takes about
 * four times as long as level 1 on the 110 MB binary for a few percent of size, which the release
 * test (it checks what the archive holds, not how small it is) need not pay.
 */
export function gzipLevel(env: Record<string, string | undefined>): 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 {
  return compressionLevel(env, "MCPKIT_RELEASE_GZIP_LEVEL", 1, DEFAULT_GZIP_LEVEL) as 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
}

/** The digit from LOWEST to 9 that the variable NAME of ENV holds, else FALLBACK when it is unset or empty. */
export function compressionLevel(
  env: Record<string, string | undefined>,
  name: string,
  lowest: 0 | 1,
  fallback: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!new RegExp(`^[${lowest}-9]$`).test(raw))
    throw new Error(`${name} must be a digit from ${lowest} to 9 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/** An uncompressed tar of CWD/FOLDER from the system tar, normalised further when it is GNU tar. */
async function tar(cwd: string, folder: string): Promise<Uint8Array<ArrayBuffer>> {
  const version = new TextDecoder().decode(await run(["tar", "--version"], cwd));
  const normalise = version.includes("GNU tar")
    ? ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--format=gnu"]
    : ["--uid", "0", "--gid", "0"];
  return run(["tar", ...normalise, "-cf", "-", folder], cwd);
}

/** zip -X leaves out uid/gid extra fields; TZ=UTC makes the stored DOS times machine-independent. */
async function zip(cwd: string, folder: string, archive: string): Promise<void> {
  await run(["zip", "-X", "-9", "-q", "-r", archive, folder], cwd, { TZ: "UTC" });
}

/** Runs COMMAND in CWD and returns its stdout; throws with its stderr when it fails or is missing. */
async function run(command: string[], cwd: string, env: Record<string, string> = {}): Promise<Uint8Array<ArrayBuffer>> {
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  } catch {
    throw new Error(
      `'${command[0]}' is not installed; install it (Debian/Ubuntu: apt-get install -y ${command[0]}) and run the release again`,
    );
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${command.join(" ")} failed (exit ${code}): ${stderr.trim()}`);
  return new Uint8Array(stdout);
}
