/**
 * The npm packages of a release: `mcpkit` (a plain-JS launcher, packaging/npm/mcpkit.js) with one
 * optionalDependency per target, and @mcpkit/<target> carrying that target's binary with os/cpu
 * fields, so npm installs only the matching one. Written as directories ready for `npm publish`.
 */
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TARGET_NAMES, type TargetName } from "./compile.ts";
import { binaryName } from "./project.ts";
import { registryName } from "./server-json.ts";

const PROJECT_DIR = resolve(import.meta.dir, "../..");
const LAUNCHER = join(PROJECT_DIR, "packaging/npm/mcpkit.js");

export function platformPackage(target: TargetName): string {
  return `@mcpkit/${target}`;
}

function common(version: string, repository: string) {
  return {
    version,
    license: "MIT",
    repository: { type: "git", url: `git+https://github.com/${repository}.git` },
    homepage: `https://github.com/${repository}`,
  };
}

/** Writes NPM_DIR/<target>/ for each built target and NPM_DIR/mcpkit/; returns their directories. */
export function writeNpmPackages(options: {
  npmDir: string;
  version: string;
  repository: string;
  binaries: { target: TargetName; binary: string }[];
  documents: string[];
}): string[] {
  const { npmDir, version, repository } = options;
  rmSync(npmDir, { recursive: true, force: true });
  const dirs: string[] = [];
  for (const { target, binary } of options.binaries) {
    const dir = join(npmDir, target);
    mkdirSync(join(dir, "bin"), { recursive: true });
    copyFileSync(binary, join(dir, "bin", binaryName(target)));
    chmodSync(join(dir, "bin", binaryName(target)), 0o755);
    const [os, cpu] = target.split("-") as [string, string];
    const manifest = {
      name: platformPackage(target),
      description: `The mcpkit binary for ${target}; install mcpkit, which picks it`,
      ...common(version, repository),
      os: [os === "windows" ? "win32" : os],
      cpu: [cpu],
      files: ["bin"],
      preferUnplugged: true,
    };
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    dirs.push(dir);
  }
  const dir = join(npmDir, "mcpkit");
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(LAUNCHER, join(dir, "bin", "mcpkit.js"));
  chmodSync(join(dir, "bin", "mcpkit.js"), 0o755);
  for (const document of options.documents) copyFileSync(document, join(dir, document.split(/[\\/]/).pop()!));
  const launcher = {
    name: "mcpkit",
    description: "MCP server with toolsets for BOJ statistics, online judges and file search",
    ...common(version, repository),
    // The MCP Registry checks that the npm package names the server.json entry it belongs to.
    mcpName: registryName(repository),
    bin: { mcpkit: "bin/mcpkit.js" },
    files: ["bin"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(TARGET_NAMES.map((target) => [platformPackage(target), version])),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(launcher, null, 2)}\n`);
  dirs.push(dir);
  return dirs;
}
