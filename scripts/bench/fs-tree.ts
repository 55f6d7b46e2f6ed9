/**
 * Builds (or reuses) the benchmark tree for `fs-search.ts`: FILES files spread over 1,000 leaf
 * directories (10 × 100), each with a random mtime in the last 400 days. A marker file records
 * what was built so a later run can reuse it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const DAY_MS = 86_400_000;

export function ensureTree(root: string, files: number, log: (line: string) => void = console.error): string {
  const marker = join(root, ".mcpkit-bench-tree");
  const wanted = `files=${files} dirs=1000 days=400\n`;
  if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return root;
  log(`building ${files.toLocaleString("en")} files under ${root} (one-off; reused next time)`);
  rmSync(root, { recursive: true, force: true });
  const perDir = Math.ceil(files / 1000);
  const now = Date.now();
  // A deterministic generator so two machines build comparable trees.
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  let written = 0;
  for (let top = 0; top < 10; top++) {
    for (let leaf = 0; leaf < 100 && written < files; leaf++) {
      const dir = join(root, `d${top}`, `d${top}${String(leaf).padStart(2, "0")}`);
      mkdirSync(dir, { recursive: true });
      for (let i = 0; i < perDir && written < files; i++, written++) {
        const file = join(dir, `f${String(i).padStart(4, "0")}.${i % 5 === 0 ? "md" : "txt"}`);
        writeFileSync(file, "x");
        const when = new Date(now - random() * 400 * DAY_MS);
        utimesSync(file, when, when);
      }
    }
    log(`  ${written.toLocaleString("en")} files`);
  }
  writeFileSync(marker, wanted);
  return root;
}

if (import.meta.main) {
  const files = Number(process.argv[3] ?? 200_000);
  ensureTree(process.argv[2] ?? "/tmp/mcpkit-bench-200k", files);
}
