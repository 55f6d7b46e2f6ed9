/**
 * bun run release [--targets all|host|LIST] [--out DIR]
 *
 * Builds mcpkit for each target with `bun build --compile`, packs mcpkit-<version>-<os>-<arch>.tar.gz
 * (.zip for Windows) holding the binary, README.md and LICENSE, writes SHA256SUMS, and generates the
 * Homebrew formula (DIR/mcpkit.rb, pushed to the tap by the release workflow, never checked in).
 *
 *   --targets  all (default), host (this machine's target), or a comma list of
 *              linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64
 *   --out      where archives, .mcpb bundles, SHA256SUMS, mcpkit.rb and server.json go (default: release/)
 *   --npm-out  where the npm packages (mcpkit and @mcpkit/<target>) are written (default: dist/npm/)
 *
 * The version comes from package.json alone; download URLs point at the GitHub repository in
 * GITHUB_REPOSITORY (set in GitHub Actions) or else DEFAULT_REPOSITORY in scripts/release/project.ts.
 * Other targets' Bun runtimes are downloaded by bun build on first use, so cross builds need a network.
 * Linux binaries embed the native file walk compiled by a C compiler for their target (`cc` for the
 * host's, `aarch64-linux-gnu-gcc` / `x86_64-linux-gnu-gcc` for the other): `--targets all` fails
 * without one, other runs say which binary will compile its walk at run time.
 *
 * Every asset is compressed as hard as its format allows (gzip -9, the .mcpb at deflate level 9 as
 * `mcpb pack` packs it). Two variables trade size for time, for the release test, which checks what
 * the assets hold, not how small they are; a real release sets neither:
 *   MCPKIT_RELEASE_GZIP_LEVEL=1-9  the .tar.gz's gzip level (default 9)
 *   MCPKIT_RELEASE_ZIP_LEVEL=0-9   the .mcpb's deflate level, 0 storing it (default 9)
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipLevel, packArchive } from "./release/archive.ts";
import { sha256File, sha256sums } from "./release/checksums.ts";
import { TARGET_NAMES, type TargetName, compile, hostTarget, isWindows } from "./release/compile.ts";
import { HOMEBREW_TARGETS, renderFormula } from "./release/formula.ts";
import { bundleName, packBundle, zipLevel } from "./release/mcpb.ts";
import { writeNpmPackages } from "./release/npm.ts";
import { renderServerJson } from "./release/server-json.ts";
import {
  archiveName,
  archiveStem,
  binaryName,
  downloadUrl,
  readVersion,
  releaseRepository,
} from "./release/project.ts";

const PROJECT_DIR = resolve(import.meta.dir, "..");
const DOCUMENTS = ["README.md", "LICENSE"];
const STALE_OUTPUT = /^(mcpkit-.+\.(tar\.gz|zip|mcpb)|SHA256SUMS|mcpkit\.rb|server\.json)$/;

/** Turns the --targets value into target names; throws a message naming the bad entry. */
export function parseTargets(value: string, host: TargetName | null = hostTarget() ?? null): TargetName[] {
  const wanted = value.trim();
  if (wanted === "all") return [...TARGET_NAMES];
  if (wanted === "host") {
    if (!host)
      throw new Error(
        `--targets host: mcpkit has no release target for ${process.platform}-${process.arch}; name targets explicitly`,
      );
    return [host];
  }
  const names = wanted
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new Error(`--targets is empty; use all, host, or a comma list of ${TARGET_NAMES.join(", ")}`);
  for (const name of names) {
    if (!(TARGET_NAMES as string[]).includes(name)) {
      throw new Error(
        `--targets: unknown target "${name}"; use all, host, or a comma list of ${TARGET_NAMES.join(", ")}`,
      );
    }
  }
  return [...new Set(names)] as TargetName[];
}

interface Built {
  target: TargetName;
  archive: string;
  sha256: string;
  bundle: string;
  bundleSha256: string;
  binary: string;
}

/**
 * What to say about a binary built without its native walk compiled ahead (a Linux one would
 * compile it at every one-shot search); throws when the release must be `complete`.
 */
export function prebuiltWalkNote(
  target: TargetName,
  { prebuiltBy, notPrebuilt }: { prebuiltBy?: string; notPrebuilt?: string },
  complete: boolean,
): string | undefined {
  if (!target.startsWith("linux-") || prebuiltBy) return undefined;
  const why = `${target}: ${notPrebuilt}`;
  if (complete)
    throw new Error(
      `${why}; --targets all ships every Linux walk prebuilt (Debian: apt-get install gcc gcc-aarch64-linux-gnu)`,
    );
  return why;
}

/**
 * `complete`: every Linux binary must embed its native walk compiled ahead (the release workflow's
 * `--targets all`); otherwise one without it only says so, and compiles its walk at run time.
 */
async function release(targets: TargetName[], outDir: string, npmDir: string, complete: boolean): Promise<void> {
  const version = readVersion(PROJECT_DIR);
  const repository = releaseRepository(process.env);
  // A bad MCPKIT_RELEASE_GZIP_LEVEL or MCPKIT_RELEASE_ZIP_LEVEL fails here, not after the compile.
  gzipLevel(process.env);
  zipLevel(process.env);
  const documents = DOCUMENTS.map((name) => join(PROJECT_DIR, name));
  for (const document of documents) {
    if (!existsSync(document))
      throw new Error(
        `${relative(PROJECT_DIR, document)} is missing; every release archive carries it, so add it first`,
      );
  }

  mkdirSync(outDir, { recursive: true });
  // Old archives left in DIR would be uploaded with the new ones and missing from SHA256SUMS.
  for (const name of readdirSync(outDir)) if (STALE_OUTPUT.test(name)) rmSync(join(outDir, name));
  const buildDir = join(outDir, ".build");
  rmSync(buildDir, { recursive: true, force: true });

  const built: Built[] = [];
  try {
    for (const target of targets) {
      const started = performance.now();
      const binary = join(buildDir, target, binaryName(target));
      const compiled = await compile({ entry: "src/main.ts", outfile: binary, cwd: PROJECT_DIR, target });
      const note = prebuiltWalkNote(target, compiled, complete);
      if (note) console.log(note);
      if (target === hostTarget()) await checkVersion(binary, version);
      // Both compress the whole binary, most of a target's time: the bundle is zipped on fflate's
      // thread while this one gzips the archive, so the two overlap.
      const [archive, bundle] = await Promise.all([
        packArchive({
          binary,
          binaryName: binaryName(target),
          documents,
          stem: archiveStem(version, target),
          format: isWindows(target) ? "zip" : "tar.gz",
          outDir,
        }),
        packBundle({
          binary,
          target,
          version,
          repository,
          documents,
          outDir,
        }),
      ]);
      const [sha256, bundleSha256] = await Promise.all([sha256File(archive), sha256File(bundle)]);
      built.push({ target, archive, sha256, bundle, bundleSha256, binary });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.error(
        `${archiveName(version, target)}  ${(statSync(archive).size / 1_048_576).toFixed(1)} MB, .mcpb ${(statSync(bundle).size / 1_048_576).toFixed(1)} MB  ${seconds} s`,
      );
    }
    writeNpmPackages({ npmDir, version, repository, binaries: built, documents });
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }

  writeFileSync(
    join(outDir, "SHA256SUMS"),
    sha256sums(
      built.flatMap((b) => [
        { file: b.archive, sha256: b.sha256 },
        { file: b.bundle, sha256: b.bundleSha256 },
      ]),
    ),
  );
  const formula = renderFormula({
    version,
    repository,
    archives: built
      .filter((b) => HOMEBREW_TARGETS.includes(b.target))
      .map((b) => ({
        target: b.target,
        sha256: b.sha256,
        url: downloadUrl(repository, version, archiveName(version, b.target)),
      })),
  });
  writeFileSync(join(outDir, "mcpkit.rb"), formula);
  const serverJson = renderServerJson({
    version,
    repository,
    bundles: built.map((b) => ({
      url: downloadUrl(repository, version, bundleName(version, b.target)),
      sha256: b.bundleSha256,
    })),
    npmPackage: "mcpkit",
  });
  writeFileSync(join(outDir, "server.json"), `${JSON.stringify(serverJson, null, 2)}\n`);
  // The formula lives only in the release and the tap (the workflow pushes it): a copy in this
  // repository would name checksums of archives no later build reproduces.
  console.error(
    `mcpkit ${version}: ${built.length} target(s); archives, .mcpb bundles, SHA256SUMS, mcpkit.rb and server.json in ${outDir}`,
  );
}

/** The host binary must report the version it is released as; a stale build would not. */
async function checkVersion(binary: string, version: string): Promise<void> {
  const child = Bun.spawn([binary, "--version"], { stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0 || stdout.trim() !== `mcpkit ${version}`) {
    throw new Error(
      `the built binary answers --version with ${JSON.stringify(stdout.trim())} (exit ${code}), expected "mcpkit ${version}"`,
    );
  }
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({
      args: Bun.argv.slice(2),
      options: { targets: { type: "string", default: "all" }, out: { type: "string" }, "npm-out": { type: "string" } },
    });
    await release(
      parseTargets(values.targets),
      values.out ? resolve(process.cwd(), values.out) : join(PROJECT_DIR, "release"),
      values["npm-out"] ? resolve(process.cwd(), values["npm-out"]) : join(PROJECT_DIR, "dist", "npm"),
      values.targets.trim() === "all",
    );
  } catch (error) {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
