/**
 * The MCP bundle (.mcpb, manifest spec 0.3) for one target: manifest.json, the packaging/mcpb
 * launcher (see its header for why a node-type entry runs the binary) and the binary. Packed here
 * as `mcpb pack` (@anthropic-ai/mcpb 2.1.2) packs a bundle: the manifest checked against mcpb's own
 * schema, then fflate's zip with each file's Unix mode; but at a level this script chooses
 * (`zipLevel`), 9 as `mcpb pack`'s fixed one unless MCPKIT_RELEASE_ZIP_LEVEL names another, from
 * memory without a staging folder, on fflate's worker thread (the .tar.gz is gzipped meanwhile).
 */
import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { v0_3 } from "@anthropic-ai/mcpb/schemas";
import { type Zippable, zip } from "fflate";
import { compressionLevel, sourceDateEpoch } from "./archive.ts";
import type { TargetName } from "./compile.ts";
import { binaryName } from "./project.ts";

const PROJECT_DIR = resolve(import.meta.dir, "../..");
export const MCPB_CLI = join(PROJECT_DIR, "node_modules/@anthropic-ai/mcpb/dist/cli/cli.js");
const LAUNCHER = join(PROJECT_DIR, "packaging/mcpb/launch.js");

const PLATFORM: Record<TargetName, string> = {
  "linux-x64": "linux",
  "linux-arm64": "linux",
  "darwin-x64": "darwin",
  "darwin-arm64": "darwin",
  "windows-x64": "win32",
};

export function bundleName(version: string, target: TargetName): string {
  return `mcpkit-${version}-${target}.mcpb`;
}

/** "${NAME}", the substitution syntax of mcpb manifests (spelled out so it is not read as a template). */
export function placeholder(name: string): string {
  return `$\u007b${name}}`;
}

/** Each option is a "--flag VALUE" pair the launcher drops when VALUE is unset; roots come last. */
function launcherArgs(binary: string): string[] {
  return [
    `${placeholder("__dirname")}/server/launch.js`,
    "--binary",
    `${placeholder("__dirname")}/server/${binary}`,
    "--toolsets",
    placeholder("user_config.toolsets"),
    "--oj-base-url",
    placeholder("user_config.oj_base_url"),
    "--roots",
    placeholder("user_config.roots"),
  ];
}

export function renderManifest(version: string, target: TargetName, repository: string): Record<string, unknown> {
  return {
    manifest_version: "0.3",
    name: "mcpkit",
    display_name: "mcpkit",
    version,
    description: "MCP server with toolsets for BOJ statistics, online judges and file search",
    author: { name: "mcpkit contributors", url: `https://github.com/${repository}` },
    repository: { type: "git", url: `https://github.com/${repository}.git` },
    homepage: `https://github.com/${repository}`,
    license: "MIT",
    server: {
      type: "node",
      entry_point: "server/launch.js",
      mcp_config: {
        command: "node",
        args: launcherArgs("mcpkit"),
        env: { OJ_TOKEN: placeholder("user_config.oj_token") },
        platform_overrides: {
          win32: {
            command: "node",
            args: launcherArgs("mcpkit.exe"),
            env: { OJ_TOKEN: placeholder("user_config.oj_token") },
          },
        },
      },
    },
    user_config: {
      roots: {
        type: "directory",
        title: "Search folders",
        description: "Folders fs_search_by_time may search (each becomes --root)",
        multiple: true,
        required: false,
      },
      toolsets: {
        type: "string",
        title: "Toolsets",
        description: "Comma list of toolsets to run: boj, oj, fs (empty: mcpkit's default)",
        required: false,
      },
      oj_base_url: {
        type: "string",
        title: "Online judge base URL",
        description: "Base URL of the craboj API for the oj toolset (--oj-base-url)",
        required: false,
      },
      oj_token: {
        type: "string",
        title: "Online judge API token",
        description: "Token for the craboj API (OJ_TOKEN); only some oj tools need it",
        sensitive: true,
        required: false,
      },
    },
    compatibility: { platforms: [PLATFORM[target]], runtimes: { node: ">=16.0.0" } },
  };
}

/** Levels 0 (stored) to 9 of the .mcpb's deflate; see `zipLevel`. */
export type ZipLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/**
 * The .mcpb's deflate level: 9 (what `mcpb pack` uses) unless MCPKIT_RELEASE_ZIP_LEVEL names
 * another, 0 (stored) to 9. Level 9 is 6 s of CPU on the 110 MB binary; the release test checks
 * what the bundle holds, not how small it is, and stores it (0: 0.3 s).
 */
export function zipLevel(env: Record<string, string | undefined>): ZipLevel {
  return compressionLevel(env, "MCPKIT_RELEASE_ZIP_LEVEL", 0, 9) as ZipLevel;
}

/** Throws naming every field of MANIFEST that mcpb's 0.3 schema refuses, as `mcpb pack` would refuse it. */
function checkManifest(manifest: Record<string, unknown>): void {
  const checked = v0_3.McpbManifestSchema.safeParse(manifest);
  if (checked.success) return;
  const issues = checked.error.issues.map((issue) => `  - ${issue.path.join(".") || "(manifest)"}: ${issue.message}`);
  throw new Error(`the .mcpb manifest does not pass mcpb's schema:\n${issues.join("\n")}`);
}

/** Packs the bundle for TARGET into OUT_DIR; returns the .mcpb path. */
export async function packBundle(
  options: {
    binary: string;
    target: TargetName;
    version: string;
    repository: string;
    documents: string[];
    outDir: string;
  },
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const { target, version } = options;
  const manifest = renderManifest(version, target, options.repository);
  checkManifest(manifest);
  // Unix modes in the upper 16 bits of the external attributes, as mcpb pack sets them.
  const file = (data: Uint8Array, mode: number): Zippable[string] => [data, { os: 3, attrs: mode << 16 }];
  const entries: Zippable = {
    "manifest.json": file(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 0o644),
    "server/launch.js": file(readFileSync(LAUNCHER), 0o644),
    [`server/${binaryName(target)}`]: file(readFileSync(options.binary), 0o755),
  };
  for (const document of options.documents) entries[basename(document)] = file(readFileSync(document), 0o644);
  const output = join(options.outDir, bundleName(version, target));
  // fflate writes each entry's time as local time, which no zip can hold for 1980-01-01 00:00 UTC
  // west of Greenwich: pinZipTimes then sets the archives' fixed time, in UTC, on every entry.
  const packed = await new Promise<Uint8Array>((done, fail) =>
    zip(entries, { level: zipLevel(env), mtime: new Date(2000, 0, 1) }, (error, data) =>
      error ? fail(error) : done(data),
    ),
  );
  await Bun.write(output, pinZipTimes(packed, sourceDateEpoch(env)));
  return output;
}

/**
 * The zip with every entry's modification time set to `epochSeconds` (UTC), in its local header
 * and its central-directory record; nothing else changes. Throws on anything but a plain zip.
 */
export function pinZipTimes(zip: Uint8Array, epochSeconds: number): Uint8Array {
  const bytes = new Uint8Array(zip);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = new Date(epochSeconds * 1000);
  const time = (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2);
  const date = ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate();
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("not a zip: no end of central directory");
  const entries = view.getUint16(end + 10, true);
  let record = view.getUint32(end + 16, true);
  for (let index = 0; index < entries; index++) {
    if (view.getUint32(record, true) !== 0x02014b50) throw new Error("not a zip: bad central directory record");
    view.setUint16(record + 12, time, true);
    view.setUint16(record + 14, date, true);
    const local = view.getUint32(record + 42, true);
    if (view.getUint32(local, true) !== 0x04034b50) throw new Error("not a zip: bad local header");
    view.setUint16(local + 10, time, true);
    view.setUint16(local + 12, date, true);
    record +=
      46 + view.getUint16(record + 28, true) + view.getUint16(record + 30, true) + view.getUint16(record + 32, true);
  }
  return bytes;
}
