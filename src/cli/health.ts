/**
 * `mcpkit health [URL]`: asks a running `mcpkit --http` whether it is healthy (its /healthz), for
 * container health checks on images without curl. Exit 0 when it answers 200, else 1; 2 when URL
 * is not an http(s) URL.
 */
import { ConfigError, withoutCredentials } from "../core/options.ts";
import { readAtMost } from "../core/read-at-most.ts";
import { EXIT_OK, EXIT_TOOL_ERROR } from "./call.ts";

export const DEFAULT_HEALTH_URL = "http://127.0.0.1:8080/healthz";
const TIMEOUT_MS = 3000;
/** How much of the answer is shown; only that much is read (four bytes a character at most). */
const SHOWN_CHARACTERS = 200;

export async function checkHealth(url = DEFAULT_HEALTH_URL): Promise<number> {
  // fetch also reads file: and data: URLs, and reports their contents as a 200: 'health file:///etc/passwd'
  // printed the file and said healthy. Only a server's /healthz can answer.
  const protocol = URL.parse(url)?.protocol;
  if (protocol !== "http:" && protocol !== "https:") {
    throw new ConfigError(
      `'mcpkit health' takes the http:// or https:// URL of a server's /healthz, such as ${DEFAULT_HEALTH_URL} (got ${JSON.stringify(withoutCredentials(url))})`,
    );
  }
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "manual" });
    const { bytes } = await readAtMost(response.body, SHOWN_CHARACTERS * 4);
    const body = new TextDecoder().decode(bytes).slice(0, SHOWN_CHARACTERS).replace(/\s+/g, " ");
    process.stdout.write(`${response.status} ${body}\n`);
    return response.status === 200 ? EXIT_OK : EXIT_TOOL_ERROR;
  } catch (error) {
    const why =
      error instanceof Error && error.name === "TimeoutError" ? `no answer in ${TIMEOUT_MS} ms` : "unreachable";
    // Health checks' output lands in `docker inspect` and CI logs: a password in the URL must not.
    process.stderr.write(`mcpkit: ${withoutCredentials(url)} is ${why}\n`);
    return EXIT_TOOL_ERROR;
  }
}
