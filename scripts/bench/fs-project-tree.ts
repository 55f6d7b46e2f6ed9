/**
 * Builds (or reuses) a realistic benchmark tree for `fs-search.ts --project`: a TypeScript project
 * whose `node_modules` holds most of the entries (packages with nested `dist/`, `lib/`, `src/`,
 * typings, maps, JSON and docs, some scoped, some nested node_modules), plus the project's own
 * `src/` and `test/`. Times are random in the last 400 days; deterministic generator.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const DAY_MS = 86_400_000;
const EXTENSIONS = [".js", ".js", ".d.ts", ".ts", ".js.map", ".json", ".md", ".mjs", ".cjs", ".ts"];

export function ensureProjectTree(root: string, packages = 1_500, log: (line: string) => void = console.error): string {
  const marker = join(root, ".mcpkit-bench-project");
  const wanted = `packages=${packages} v1\n`;
  if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return root;
  log(`building a project with ${packages.toLocaleString("en")} packages under ${root} (one-off; reused next time)`);
  rmSync(root, { recursive: true, force: true });
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const now = Date.now();
  let files = 0;
  const file = (dir: string, name: string) => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, name);
    writeFileSync(path, "x");
    const when = new Date(now - random() * 400 * DAY_MS);
    utimesSync(path, when, when);
    files++;
  };
  const fill = (dir: string, count: number) => {
    for (let i = 0; i < count; i++) file(dir, `m${i}${EXTENSIONS[Math.floor(random() * EXTENSIONS.length)]}`);
  };
  for (let p = 0; p < packages; p++) {
    const name = p % 7 === 0 ? `@scope${p % 13}/pkg${p}` : `pkg${p}`;
    const pkg = join(root, "node_modules", name);
    file(pkg, "package.json");
    file(pkg, "README.md");
    for (const sub of ["dist", "lib", "src", "dist/esm", "dist/cjs", "types"])
      fill(join(pkg, sub), 3 + Math.floor(random() * 12));
    if (p % 10 === 0) fill(join(pkg, "node_modules", `dep${p}`, "lib"), 20);
    if (p % 250 === 0) log(`  ${p} packages, ${files.toLocaleString("en")} files`);
  }
  for (let d = 0; d < 40; d++) {
    fill(join(root, "src", `module${d}`), 25);
    fill(join(root, "test", `module${d}`), 8);
  }
  file(root, "package.json");
  writeFileSync(marker, wanted);
  log(`  ${files.toLocaleString("en")} files`);
  return root;
}

if (import.meta.main)
  ensureProjectTree(process.argv[2] ?? "/tmp/mcpkit-bench-project", Number(process.argv[3] ?? 1_500));
