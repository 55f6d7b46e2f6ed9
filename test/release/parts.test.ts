/**
 * The release script's parts that need no compiler: target selection, the complete Homebrew
 * formula (all four platforms, which a host-only build cannot produce), Windows zips and
 * reproducible archives, and the .mcpb packed as `mcpb pack` packs it. System tools (ruby,
 * sha256sum, unzip) check the output.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseTargets, prebuiltWalkNote } from "../../scripts/release.ts";
import { packArchive, sourceDateEpoch } from "../../scripts/release/archive.ts";
import { sha256File, sha256sums } from "../../scripts/release/checksums.ts";
import { MCPKIT_EXTRA_ENTRIES, TARGET_NAMES } from "../../scripts/release/compile.ts";
import packageJson from "../../package.json" with { type: "json" };
import { REPO_ROOT as REPO_ROOT_FOR_BUILD } from "../support/mcp.ts";
import { HOMEBREW_TARGETS, renderFormula } from "../../scripts/release/formula.ts";
import { MCPB_CLI, packBundle, pinZipTimes, renderManifest, zipLevel } from "../../scripts/release/mcpb.ts";
import { archiveName, downloadUrl, releaseRepository } from "../../scripts/release/project.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const hasRuby = hasSystemTool("ruby", "ruby", "the Homebrew formula syntax check (ruby -c)");
const hasUnzip =
  hasSystemTool("zip", "zip", "the Windows zip archive test") &&
  hasSystemTool("unzip", "unzip", "the Windows zip listing check");

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "mcpkit-release-parts-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function exec(command: string[], cwd?: string) {
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe" });
  } catch {
    throw new Error(`'${command[0]}' is not installed (Debian/Ubuntu: apt-get install -y ${command[0]})`);
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

describe("--targets", () => {
  test("all is the five release targets; host is the machine's own", () => {
    expect(parseTargets("all")).toEqual(["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"]);
    expect(parseTargets("host", "darwin-arm64")).toEqual(["darwin-arm64"]);
  });

  test("a comma list keeps its order and drops repeats", () => {
    expect(parseTargets("windows-x64, linux-x64,windows-x64")).toEqual(["windows-x64", "linux-x64"]);
  });

  test("an unknown or empty list is refused with the valid names", () => {
    expect(() => parseTargets("linux-x64,freebsd-x64")).toThrow(
      'unknown target "freebsd-x64"; use all, host, or a comma list of linux-x64',
    );
    expect(() => parseTargets(" , ")).toThrow("--targets is empty");
    expect(() => parseTargets("host", null)).toThrow("has no release target");
  });
});

describe("release names", () => {
  test("archives are mcpkit-<version>-<os>-<arch>, .zip for Windows only", () => {
    expect(TARGET_NAMES.map((target) => archiveName("1.2.3", target))).toEqual([
      "mcpkit-1.2.3-linux-x64.tar.gz",
      "mcpkit-1.2.3-linux-arm64.tar.gz",
      "mcpkit-1.2.3-darwin-x64.tar.gz",
      "mcpkit-1.2.3-darwin-arm64.tar.gz",
      "mcpkit-1.2.3-windows-x64.zip",
    ]);
  });

  test("the repository comes from GITHUB_REPOSITORY when set, and must be owner/name", () => {
    expect(releaseRepository({})).toBe("mcpkit-dev/mcpkit");
    expect(releaseRepository({ GITHUB_REPOSITORY: "someone/mcpkit-fork" })).toBe("someone/mcpkit-fork");
    expect(() => releaseRepository({ GITHUB_REPOSITORY: "no-slash" })).toThrow(
      'GITHUB_REPOSITORY must look like "owner/name"',
    );
  });
});

describe("the complete Homebrew formula", () => {
  const sha = (target: string) => new Bun.CryptoHasher("sha256").update(target).digest("hex");
  const archives = HOMEBREW_TARGETS.map((target) => ({
    target,
    sha256: sha(target),
    url: downloadUrl("mcpkit-dev/mcpkit", "2.0.0", archiveName("2.0.0", target)),
  }));
  const formula = renderFormula({ version: "2.0.0", repository: "mcpkit-dev/mcpkit", archives });

  test("nests on_arm/on_intel in on_macos/on_linux, each with its own url and sha256", () => {
    const block = (os: string, arch: string) => {
      const osBody = new RegExp(`  ${os} do\\n([\\s\\S]*?)\\n  end\\n`).exec(formula)?.[1] ?? "";
      return new RegExp(`    ${arch} do\\n      url "([^"]+)"\\n      sha256 "([0-9a-f]{64})"\\n    end`)
        .exec(osBody)
        ?.slice(1);
    };
    expect(block("on_macos", "on_arm")).toEqual([archives[0].url, sha("darwin-arm64")]);
    expect(block("on_macos", "on_intel")).toEqual([archives[1].url, sha("darwin-x64")]);
    expect(block("on_linux", "on_arm")).toEqual([archives[2].url, sha("linux-arm64")]);
    expect(block("on_linux", "on_intel")).toEqual([archives[3].url, sha("linux-x64")]);
    expect(archives[0].url).toBe(
      "https://github.com/mcpkit-dev/mcpkit/releases/download/v2.0.0/mcpkit-2.0.0-darwin-arm64.tar.gz",
    );
  });

  test.skipIf(!hasRuby)("installs the binary, tests --version, and passes ruby -c", async () => {
    expect(formula).toContain('bin.install "mcpkit"');
    expect(formula).toMatch(
      /test do\n\s+assert_match "mcpkit #\{version\}", shell_output\("#\{bin\}\/mcpkit --version"\)/,
    );
    const file = join(work, "mcpkit.rb");
    writeFileSync(file, formula);
    expect(await exec(["ruby", "-c", file])).toMatchObject({ code: 0, stdout: "Syntax OK\n" });
  });

  test("refuses a checksum that is not 64 hex digits", () => {
    expect(() =>
      renderFormula({ version: "2.0.0", repository: "a/b", archives: [{ ...archives[0], sha256: "abc" }] }),
    ).toThrow("sha256 of darwin-arm64 must be 64 hex digits");
  });
});

/** Each entry's name and mtime (seconds) from an uncompressed tar, read from the 512-byte headers. */
function tarEntryTimes(tar: Uint8Array): number[] {
  const text = (from: number, length: number) =>
    new TextDecoder()
      .decode(tar.subarray(from, from + length))
      .replace(/\0.*$/s, "")
      .trim();
  const times: number[] = [];
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const size = Number.parseInt(text(at + 124, 12) || "0", 8);
    times.push(Number.parseInt(text(at + 136, 12), 8));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return times;
}

describe("archives", () => {
  async function fixture(name: string) {
    const dir = mkdtempSync(join(work, `${name}-`));
    const files = { binary: join(dir, "bin"), readme: join(dir, "README.md"), license: join(dir, "LICENSE") };
    writeFileSync(files.binary, "#!/bin/sh\necho fake\n");
    writeFileSync(files.readme, "# readme\n");
    writeFileSync(files.license, "MIT\n");
    return { dir, files };
  }

  test.skipIf(!hasUnzip)("the Windows zip holds mcpkit.exe, README.md and LICENSE under its folder", async () => {
    const { dir, files } = await fixture("zip");
    const zip = await packArchive({
      binary: files.binary,
      binaryName: "mcpkit.exe",
      documents: [files.readme, files.license],
      stem: "mcpkit-9.9.9-windows-x64",
      format: "zip",
      outDir: dir,
    });
    expect(zip).toBe(join(dir, "mcpkit-9.9.9-windows-x64.zip"));
    const listing = await exec(["unzip", "-Z1", zip]);
    expect(listing.stdout.trim().split("\n").sort()).toEqual([
      "mcpkit-9.9.9-windows-x64/",
      "mcpkit-9.9.9-windows-x64/LICENSE",
      "mcpkit-9.9.9-windows-x64/README.md",
      "mcpkit-9.9.9-windows-x64/mcpkit.exe",
    ]);
  });

  test("packing the same files twice gives the same bytes, so checksums survive a re-run", async () => {
    const { dir, files } = await fixture("repro");
    const pack = async () =>
      sha256File(
        await packArchive({
          binary: files.binary,
          binaryName: "mcpkit",
          documents: [files.readme, files.license],
          stem: "mcpkit-1.0.0-linux-x64",
          format: "tar.gz",
          outDir: dir,
        }),
      );
    const first = await pack();
    expect(await pack()).toBe(first);
    // Two packs within one second would match even with the time of packing in them, so read the
    // times instead: the gzip header's and every tar entry's are the fixed epoch (1980-01-01).
    const gz = await Bun.file(join(dir, "mcpkit-1.0.0-linux-x64.tar.gz")).bytes();
    expect(new DataView(gz.buffer).getUint32(4, true)).toBe(0);
    expect(tarEntryTimes(Bun.gunzipSync(gz))).toEqual([...Array(4)].map(() => sourceDateEpoch({})));
  });

  test("SHA256SUMS lines are what sha256sum -c reads, and it catches a changed file", async () => {
    const { dir, files } = await fixture("sums");
    const archive = await packArchive({
      binary: files.binary,
      binaryName: "mcpkit",
      documents: [files.readme],
      stem: "mcpkit-1.0.0-linux-arm64",
      format: "tar.gz",
      outDir: dir,
    });
    writeFileSync(join(dir, "SHA256SUMS"), sha256sums([{ file: archive, sha256: await sha256File(archive) }]));
    // Byte for byte what sha256sum itself prints (hash, two spaces, name), computed independently.
    const reference = await exec(["sha256sum", "mcpkit-1.0.0-linux-arm64.tar.gz"], dir);
    expect(readFileSync(join(dir, "SHA256SUMS"), "utf8")).toBe(reference.stdout);
    expect(await exec(["sha256sum", "-c", "SHA256SUMS"], dir)).toMatchObject({
      code: 0,
      stdout: "mcpkit-1.0.0-linux-arm64.tar.gz: OK\n",
    });
    renameSync(files.binary, archive); // a different file under the archive's name
    expect((await exec(["sha256sum", "-c", "SHA256SUMS"], dir)).code).not.toBe(0);
  });
});

describe("the build names every module mcpkit loads at run time", () => {
  test("the extra entry points the compile embeds exist", () => {
    for (const entry of MCPKIT_EXTRA_ENTRIES) expect(existsSync(join(REPO_ROOT_FOR_BUILD, entry))).toBe(true);
  });

  test("bun run build compiles through compile.ts with the release's own flags (no override)", () => {
    expect(packageJson.scripts.build).toBe("bun scripts/build.ts");
    const build = readFileSync(join(REPO_ROOT_FOR_BUILD, "scripts/build.ts"), "utf8");
    expect(build).toContain('compile({ entry: "src/main.ts"');
    expect(build).not.toContain("flags:");
  });
});

describe("the native walk compiled ahead, per release binary", () => {
  test("a Linux binary without it is named; a complete release (--targets all) refuses it; other targets need none", () => {
    const missing = { notPrebuilt: "no C compiler for linux-arm64 here (apt-get install gcc)" };
    expect(prebuiltWalkNote("linux-arm64", missing, false)).toBe(`linux-arm64: ${missing.notPrebuilt}`);
    expect(() => prebuiltWalkNote("linux-arm64", missing, true)).toThrow("gcc-aarch64-linux-gnu");
    expect(prebuiltWalkNote("linux-x64", { prebuiltBy: "/usr/bin/cc" }, true)).toBeUndefined();
    expect(prebuiltWalkNote("darwin-arm64", { notPrebuilt: "the native walk is Linux-only" }, true)).toBeUndefined();
  });
});

describe("the MCP bundle's compression", () => {
  test("deflate level 9, mcpb pack's, unless MCPKIT_RELEASE_ZIP_LEVEL names 0 to 9; anything else is refused by name", () => {
    expect(zipLevel({})).toBe(9);
    expect(zipLevel({ MCPKIT_RELEASE_ZIP_LEVEL: "" })).toBe(9);
    expect(zipLevel({ MCPKIT_RELEASE_ZIP_LEVEL: "0" })).toBe(0);
    expect(zipLevel({ MCPKIT_RELEASE_ZIP_LEVEL: "1" })).toBe(1);
    for (const bad of ["10", "-1", "max", " 9"])
      expect(() => zipLevel({ MCPKIT_RELEASE_ZIP_LEVEL: bad })).toThrow(
        `MCPKIT_RELEASE_ZIP_LEVEL must be a digit from 0 to 9 (got ${JSON.stringify(bad)})`,
      );
  });

  /** zipinfo's line for each entry (mode, sizes, method, time, name), sorted: what two zips must share. */
  const entries = async (zip: string) => {
    const listing = await exec(["unzip", "-Z", "-l", zip]);
    expect(listing.code, listing.stderr).toBe(0);
    return listing.stdout
      .split("\n")
      .filter((line) => / unx /.test(line))
      .sort();
  };

  test.skipIf(!hasUnzip)(
    "by default every entry is what mcpb pack makes of the same files: names, modes, sizes, compressed sizes; level 0 stores them",
    async () => {
      const dir = mkdtempSync(join(work, "mcpb-"));
      // Compressible but not trivially: level 1 and level 9 differ on it, so the sizes show the level.
      const binary = join(dir, "mcpkit");
      const words = Array.from({ length: 40_000 }, (_, i) => `w${(i * 7919) % 4099}`).join(" ");
      writeFileSync(binary, `#!/bin/sh\n# ${words}\necho fake\n`);
      chmodSync(binary, 0o755);
      const documents = ["README.md", "LICENSE"].map((name) => join(REPO_ROOT_FOR_BUILD, name));
      const options = { binary, target: "linux-x64", version: "9.9.9", repository: "acme/mcpkit", documents } as const;
      // What mcpb pack (@anthropic-ai/mcpb's CLI) makes of the same files, staged as a bundle folder.
      const stage = join(dir, "stage");
      mkdirSync(join(stage, "server"), { recursive: true });
      writeFileSync(
        join(stage, "manifest.json"),
        `${JSON.stringify(renderManifest("9.9.9", "linux-x64", "acme/mcpkit"), null, 2)}\n`,
      );
      copyFileSync(join(REPO_ROOT_FOR_BUILD, "packaging/mcpb/launch.js"), join(stage, "server", "launch.js"));
      copyFileSync(binary, join(stage, "server", "mcpkit"));
      for (const document of documents) copyFileSync(document, join(stage, basename(document)));
      for (const [file, mode] of [
        ["manifest.json", 0o644],
        ["server/launch.js", 0o644],
        ["server/mcpkit", 0o755],
        ["README.md", 0o644],
        ["LICENSE", 0o644],
      ] as const)
        chmodSync(join(stage, file), mode);
      const reference = join(dir, "reference.mcpb");
      const packed = await exec([process.execPath, MCPB_CLI, "pack", stage, reference]);
      expect(packed.code, packed.stderr).toBe(0);
      writeFileSync(reference, pinZipTimes(readFileSync(reference), sourceDateEpoch({})));

      const defaultDir = join(dir, "default");
      const storedDir = join(dir, "stored");
      mkdirSync(defaultDir);
      mkdirSync(storedDir);
      const byDefault = await packBundle({ ...options, outDir: defaultDir }, {});
      expect(await entries(byDefault)).toEqual(await entries(reference));
      const fast = await packBundle({ ...options, outDir: dir }, { MCPKIT_RELEASE_ZIP_LEVEL: "1" });
      expect(await entries(fast)).not.toEqual(await entries(reference)); // the sizes show the level
      const stored = await entries(
        await packBundle({ ...options, outDir: storedDir }, { MCPKIT_RELEASE_ZIP_LEVEL: "0" }),
      );
      expect(stored).toHaveLength(5);
      for (const line of stored) expect(line).toContain(" stor ");
    },
  );
});
