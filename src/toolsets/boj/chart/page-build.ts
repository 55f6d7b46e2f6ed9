/**
 * Builds the chart page into one self-contained HTML string (no CDN, no network: hosts give MCP
 * Apps `connect-src 'none'`). Used as a Bun macro by `page.ts`, so `bun build --compile` runs it
 * once and the binary carries only the finished string; from source it runs on first use.
 * Bun.build cannot run inside a macro (the bundler would wait on itself), hence the CLI.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function buildChartPage(): string {
  const entry = join(import.meta.dir, "page", "app.ts");
  const built = Bun.spawnSync([process.execPath, "build", entry, "--minify", "--target=browser", "--format=esm"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (built.exitCode !== 0) throw new Error(`the BOJ chart page did not build: ${built.stderr.toString()}`);
  // A literal "</script" inside the code would end the inline script early.
  const script = built.stdout.toString().replaceAll("</script", "<\\/script");
  const shell = readFileSync(join(import.meta.dir, "page", "shell.html"), "utf8");
  return shell.replace("/*APP*/", () => script);
}
