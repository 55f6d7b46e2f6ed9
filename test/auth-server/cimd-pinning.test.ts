/**
 * A client metadata document is fetched from the address that was checked, not from a second
 * lookup of its host (DNS rebinding: public to the check, 127.0.0.1 or 169.254.169.254 to the
 * fetch). The host is `cimd.invalid`, which no resolver answers (RFC 6761): the injected lookup
 * says 127.0.0.1, so a fetch that resolved the name on its own would fail, and one connecting to
 * the checked address reaches the document server on loopback. Its certificate names
 * cimd.invalid, and is checked against the host name, not the address.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCimdFetcher } from "../../src/mcp/auth-server/cimd.ts";
import { hasSystemTool } from "../support/system-tools.ts";

const HOST = "cimd.invalid";
const OWN = "https://as.test";
const REDIRECT = "http://127.0.0.1:9/cimd-callback";
const hasOpenssl = hasSystemTool("openssl", "openssl", "the CIMD address-pinning tests (a TLS certificate)");

let dir = "";
let certificate = "";
let documents: ReturnType<typeof Bun.serve> | undefined;
/** The Host header of every request the document server answered. */
const hosts: (string | null)[] = [];

/** A self-signed certificate for `HOST` only (no IP address in it). */
function makeCertificate(): { cert: string; key: string } {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = Bun.spawnSync(
    [
      ...["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"],
      ...["-subj", `/CN=${HOST}`, "-addext", `subjectAltName=DNS:${HOST}`, "-keyout", key, "-out", cert],
    ],
    { stderr: "pipe" },
  );
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}

beforeAll(() => {
  if (!hasOpenssl) return;
  dir = mkdtempSync(join(tmpdir(), "mcpkit-cimd-pin-"));
  const { cert, key } = makeCertificate();
  certificate = cert;
  documents = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key },
    fetch(request) {
      const host = request.headers.get("host");
      hosts.push(host);
      const path = new URL(request.url).pathname;
      return Response.json({ client_id: `https://${host}${path}`, client_name: "Pinned", redirect_uris: [REDIRECT] });
    },
  });
});
afterAll(() => {
  documents?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A fetcher whose lookup answers `addresses` for every host and records what it was asked. */
function fetcherAnswering(addresses: string[], { trustTestCertificate = true } = {}) {
  const asked: string[] = [];
  const fetcher = createCimdFetcher({
    allowPrivate: true,
    ownOrigin: OWN,
    lookupHost: (host) => {
      asked.push(host);
      return Promise.resolve(addresses);
    },
    trustedCertificates: trustTestCertificate ? certificate : undefined,
  });
  return { fetcher, asked };
}

describe.skipIf(!hasOpenssl)("CIMD: the fetch goes to the checked address", () => {
  test("a host only the injected lookup knows is fetched from its answer, once, with the host's name in Host and TLS", async () => {
    hosts.length = 0;
    const { fetcher, asked } = fetcherAnswering(["127.0.0.1"]);
    const clientId = `https://${HOST}:${documents?.port}/client.json`;
    const client = await fetcher.resolve(clientId);
    expect(client.client_id).toBe(clientId);
    expect(client.client_name).toBe("Pinned");
    expect(asked).toEqual([HOST]);
    expect(hosts).toEqual([`${HOST}:${documents?.port}`]);
  });

  test("an address that cannot be reached is passed over for the next one the lookup gave", async () => {
    hosts.length = 0;
    // Nothing listens on [::1] at the document server's port (or there is no IPv6): refused, then 127.0.0.1.
    const { fetcher } = fetcherAnswering(["::1", "127.0.0.1"]);
    const client = await fetcher.resolve(`https://${HOST}:${documents?.port}/fallback.json`);
    expect(client.client_name).toBe("Pinned");
    expect(hosts).toEqual([`${HOST}:${documents?.port}`]);
  });

  test("the certificate is verified against the host name, not the address connected to", async () => {
    hosts.length = 0;
    // Same address, same trusted certificate, but it does not name this host.
    const { fetcher } = fetcherAnswering(["127.0.0.1"]);
    await expect(fetcher.resolve(`https://other.invalid:${documents?.port}/client.json`)).rejects.toThrow(
      "could not be fetched (connection failed)",
    );
    expect(hosts).toEqual([]);
  });

  test("without the test's certificate among the trusted ones, its self-signed certificate is refused", async () => {
    hosts.length = 0;
    const { fetcher } = fetcherAnswering(["127.0.0.1"], { trustTestCertificate: false });
    await expect(fetcher.resolve(`https://${HOST}:${documents?.port}/client.json`)).rejects.toThrow(
      "could not be fetched (connection failed)",
    );
    expect(hosts).toEqual([]);
  });
});
