/**
 * What a release is named after: the version (from package.json alone), the GitHub repository
 * the archives are downloaded from, and the archive names derived from both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type TargetName, isWindows } from "./compile.ts";

/**
 * The GitHub repository releases are published from, unless GITHUB_REPOSITORY (set by GitHub
 * Actions to "owner/name") says otherwise. The Homebrew tap is "<owner>/homebrew-tap".
 */
export const DEFAULT_REPOSITORY = "mcpkit-dev/mcpkit";

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\/[A-Za-z0-9._-]+$/;

/** The version in PROJECT_DIR/package.json; throws when it is missing or not semver. */
export function readVersion(projectDir: string): string {
  const file = join(projectDir, "package.json");
  const { version } = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown };
  if (typeof version !== "string" || !SEMVER.test(version)) {
    throw new Error(`${file}: "version" must be a semantic version such as 1.2.3 (got ${JSON.stringify(version)})`);
  }
  return version;
}

/** "owner/name" from GITHUB_REPOSITORY when set, else DEFAULT_REPOSITORY. */
export function releaseRepository(env: Record<string, string | undefined>): string {
  const repository = env.GITHUB_REPOSITORY?.trim() || DEFAULT_REPOSITORY;
  if (!REPOSITORY.test(repository)) {
    throw new Error(`GITHUB_REPOSITORY must look like "owner/name" (got ${JSON.stringify(repository)})`);
  }
  return repository;
}

/** "mcpkit-1.2.3-linux-x64": the archive's name without extension, and its top-level folder. */
export function archiveStem(version: string, target: TargetName): string {
  return `mcpkit-${version}-${target}`;
}

export function archiveName(version: string, target: TargetName): string {
  return `${archiveStem(version, target)}${isWindows(target) ? ".zip" : ".tar.gz"}`;
}

export function binaryName(target: TargetName): string {
  return isWindows(target) ? "mcpkit.exe" : "mcpkit";
}

export function downloadUrl(repository: string, version: string, archive: string): string {
  return `https://github.com/${repository}/releases/download/v${version}/${archive}`;
}
