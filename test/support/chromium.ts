/**
 * Debian's chromium for the browser tests, headless, through puppeteer-core: one place for the
 * flags that keep it off the network and out of the user's profile. Tests skip with one line
 * naming the package when it is absent.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether chromium is here; prints one SKIPPED line naming the package when it is not. */
export function hasChromium(needed: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  console.error(`SKIPPED ${needed}: chromium is not installed (apt-get install -y chromium; .ci/run installs it)`);
  return false;
}

/** A headless browser with a throwaway profile; `close` removes the profile too. */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "mcpkit-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      // Without these, chromium reaches for the network at start-up (this machine has none).
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
