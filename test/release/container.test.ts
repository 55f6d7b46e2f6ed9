/**
 * The container image (Dockerfile) for --http deployments: a non-root user, the port exposed, a
 * health check the image can run without curl (`mcpkit health`), and the same refusal to serve
 * every interface without authorization unless --gateway-auth says a gateway does it. The image
 * is built only where a container engine answers, its base image is already stored and a compiled
 * binary exists; otherwise that test skips with one line saying which is missing.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHttpServer } from "../http/support.ts";
import { REPO_ROOT, runCli, runProcess } from "../support/mcp.ts";

const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
const instructions = dockerfile
  .replace(/\\\n\s*/g, " ")
  .split("\n")
  .filter((line) => line.trim() !== "" && !line.startsWith("#"));
const instruction = (name: string) => instructions.filter((line) => line.startsWith(`${name} `));

describe("the Dockerfile", () => {
  test("runs the binary as a non-root user, exposes 8080, checks /healthz with mcpkit health, serves --http on every interface", () => {
    expect(instruction("FROM")[0]).toContain("distroless");
    expect(instruction("USER")).toEqual(["USER nonroot"]);
    expect(instruction("EXPOSE")).toEqual(["EXPOSE 8080"]);
    expect(instruction("ENV")).toEqual(["ENV MCPKIT_HTTP=0.0.0.0:8080"]);
    expect(instruction("HEALTHCHECK")[0]).toContain(
      'CMD ["/usr/local/bin/mcpkit", "health", "http://127.0.0.1:8080/healthz"]',
    );
    expect(instruction("ENTRYPOINT")).toEqual(['ENTRYPOINT ["/usr/local/bin/mcpkit"]']);
  });
});

describe("what the image runs, run here as a process", () => {
  test("every interface without authorization is refused, naming --gateway-auth", async () => {
    const refused = await runCli(["--toolsets", "boj"], { env: { MCPKIT_HTTP: "0.0.0.0:0" }, timeoutMs: 10_000 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("refusing to serve 0.0.0.0 without authorization");
    expect(refused.stderr).toContain("--gateway-auth");
    const both = await runCli(
      ["--toolsets", "boj", "--gateway-auth", "--auth", "jwt", "--issuer", "https://x.example"],
      {
        env: { MCPKIT_HTTP: "0.0.0.0:0" },
        timeoutMs: 10_000,
      },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("keep one of them");
  });

  test("with --gateway-auth it serves, and mcpkit health exits 0 while it answers and 1 once it is gone", async () => {
    const server = await startHttpServer(["--toolsets", "boj", "--gateway-auth"], { host: "0.0.0.0" });
    const healthz = `http://127.0.0.1:${server.port}/healthz`;
    try {
      expect(server.stderr()).toContain("--gateway-auth");
      const healthy = await runCli(["health", healthz]);
      expect(healthy.code).toBe(0);
      expect(healthy.stdout).toStartWith("200 ");
    } finally {
      await server.stop();
    }
    const gone = await runCli(["health", healthz]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("unreachable");
  });
});

/**
 * The image is built only from what is here already: a compiled binary (MCPKIT_BIN, else
 * dist/mcpkit) and the base image in the engine's local store. A pull would reach the internet,
 * which no test does, so a missing base image skips with one line naming the pull to run.
 */
const BASE_IMAGE = instruction("FROM")[0]?.split(/\s+/)[1] ?? "";
const binary = [process.env.MCPKIT_BIN, join(REPO_ROOT, "dist/mcpkit")].find(
  (path): path is string => path !== undefined && existsSync(path),
);
const engine = await runProcess(["docker", "info"], { timeoutMs: 10_000 }).catch(() => undefined);
const baseHere =
  engine?.code === 0 &&
  (await runProcess(["docker", "image", "inspect", BASE_IMAGE], { timeoutMs: 10_000 }).catch(() => undefined))?.code ===
    0;
const imageSkip =
  engine?.code !== 0
    ? "no container engine answers (Debian: docker.io or podman)"
    : !baseHere
      ? `the base image ${BASE_IMAGE} is not in the local store (docker pull ${BASE_IMAGE}); a test pulls nothing`
      : !binary
        ? "no compiled binary (bun run build, or MCPKIT_BIN)"
        : undefined;
if (imageSkip) console.error(`skipping the container image build: ${imageSkip}`);

describe.skipIf(imageSkip !== undefined)("the image", () => {
  test("builds from the compiled binary and the local base image, without the network", async () => {
    const context = mkdtempSync(join(tmpdir(), "mcpkit-image-"));
    try {
      mkdirSync(join(context, "dist"));
      copyFileSync(binary!, join(context, "dist/mcpkit"));
      copyFileSync(join(REPO_ROOT, "Dockerfile"), join(context, "Dockerfile"));
      const build = await runProcess(
        ["docker", "build", "--pull=false", "--network=none", "-t", "mcpkit:test", context],
        { timeoutMs: 300_000 },
      );
      expect(build.code, build.stderr).toBe(0);
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  }, 320_000);
});
