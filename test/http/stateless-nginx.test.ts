/**
 * `--stateless`: two instances behind nginx (the Debian package, plain round-robin, no session
 * affinity) serve one SDK client's whole conversation between them.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeLoopbackPort } from "../support/ports.ts";
import {
  type HttpServerProcess,
  MCP_HEADERS,
  PROTOCOL_VERSION,
  connectClient,
  initializeBody,
  startHttpServer,
} from "./support.ts";

const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].find((path) => existsSync(path));
if (!NGINX)
  console.error(
    "SKIPPED stateless-nginx: nginx is not installed; install the Debian package nginx (apt-get install -y nginx), as .ci/run does",
  );

let instances: HttpServerProcess[] = [];
let nginx: ReturnType<typeof Bun.spawn> | undefined;
let dir: string;
let proxyUrl: string;

beforeAll(async () => {
  if (!NGINX) return;
  dir = mkdtempSync(join(tmpdir(), "mcpkit-nginx-"));
  instances = await Promise.all([
    startHttpServer(["--toolsets", "boj", "--stateless"]),
    startHttpServer(["--toolsets", "boj", "--stateless"]),
  ]);
  const port = freeLoopbackPort();
  for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, sub));
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  log_format upstream '$request_method $uri $status $upstream_addr';
  access_log ${dir}/access.log upstream;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream mcpkit {
${instances.map((instance) => `    server 127.0.0.1:${instance.port};`).join("\n")}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mcpkit;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`,
  );
  nginx = Bun.spawn([NGINX, "-p", dir, "-c", join(dir, "nginx.conf")], { stdout: "ignore", stderr: "pipe" });
  proxyUrl = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 600; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`nginx did not start: ${readFileSync(join(dir, "error.log"), "utf8")}`);
});

afterAll(async () => {
  nginx?.kill("SIGTERM");
  await nginx?.exited;
  await Promise.all(instances.map((instance) => instance.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.skipIf(!NGINX)(
  "an SDK client's conversation runs across two --stateless instances behind nginx round-robin",
  async () => {
    const { client, transport } = await connectClient(proxyUrl);
    expect(transport.sessionId).toBeUndefined();
    for (let i = 0; i < 6; i++) {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
    }
    await client.ping();
    await client.close();

    const served = readFileSync(join(dir, "access.log"), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("POST /mcp 200"))
      .map((line) => line.split(" ")[3]);
    const upstreams = new Set(served);
    expect(served.length).toBeGreaterThanOrEqual(7);
    expect(upstreams).toEqual(new Set(instances.map((instance) => `127.0.0.1:${instance.port}`)));
  },
);

test.skipIf(!NGINX)("stateless instances issue no session id and refuse GET streams with 405", async () => {
  const init = await fetch(proxyUrl, { method: "POST", headers: MCP_HEADERS, body: initializeBody() });
  expect(init.status).toBe(200);
  expect(init.headers.get("mcp-session-id")).toBeNull();
  await init.text();
  // Without initialize on this instance, a later request is still served on its own.
  const list = await fetch(proxyUrl, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-protocol-version": PROTOCOL_VERSION },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  expect(list.status).toBe(200);
  expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  const get = await fetch(proxyUrl, { headers: { accept: "text/event-stream" } });
  expect(get.status).toBe(405);
  await get.text();
});
