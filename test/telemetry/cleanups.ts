/** What each test started (servers, receivers, folders), ended after it in reverse order. */
import { afterEach } from "bun:test";

export function cleanupsAfterEach(): (cleanup: () => unknown) => void {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return (cleanup) => void cleanups.push(cleanup);
}
