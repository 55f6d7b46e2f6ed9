/**
 * Tests that need a system program (ruby, unzip, nginx, chromium, postgres) skip when it is absent,
 * with one line naming the Debian package, so `bun test` on a fresh clone with Bun alone is green;
 * `.ci/run` installs the packages, so CI runs every test.
 */
const announced = new Set<string>();

/** Whether `command` is on PATH; when not, prints one SKIPPED line (once per command). */
export function hasSystemTool(command: string, debianPackage: string, needed: string): boolean {
  if (Bun.which(command)) return true;
  if (!announced.has(command)) {
    announced.add(command);
    console.error(
      `SKIPPED ${needed}: ${command} is not installed (apt-get install -y ${debianPackage}; .ci/run installs it)`,
    );
  }
  return false;
}
