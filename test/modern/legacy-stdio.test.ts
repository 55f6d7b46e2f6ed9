/**
 * The 2025-11-25 era on stdio, served by mcpkit's own session engine (no MCP SDK): what the SDK's
 * Server/Protocol did on the wire and no other test pinned down. Version negotiation, ping,
 * logging/setLevel, unknown methods, cancellation, a reused id, the server's roots/list request
 * (ids, caching, list_changed, an error answer, a response that matches nothing). Real processes:
 * the probe fixture (tools that wait, log, and ask for roots) on a raw stdio peer.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { pathToFileURL } from "node:url";
import { type RawServer, startRawServer } from "../support/raw-stdio.ts";
import { type Json, MIXED_ROOTS, PROBE, expectedIgnored, ignoredRoots, until } from "./support.ts";

const rawServers: RawServer[] = [];

afterAll(() => {
  for (const raw of rawServers) raw.kill("SIGKILL");
});

function startProbe(): RawServer {
  const raw = startRawServer([], {}, [process.execPath, PROBE]);
  rawServers.push(raw);
  return raw;
}

const messages = (raw: RawServer): Json[] => raw.lines().map((line) => JSON.parse(line) as Json);

function initialize(id: number | string, protocolVersion: unknown, capabilities: Json = {}): Json {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: "legacy-test", version: "1" } },
  };
}

function call(id: number | string, name: string, args: Json = {}, extra: Json = {}): Json {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...extra } };
}

/** The text of a tools/call answer, parsed (the probe answers JSON). */
const textOf = (answer: Json): Json => JSON.parse(answer.result.content[0].text);

describe("the handshake and the methods the session answers itself", () => {
  test("initialize echoes a supported version, answers the latest for an unknown one, and refuses a malformed one", async () => {
    const raw = startProbe();
    raw.send(initialize(1, "2024-11-05"));
    const old = (await raw.response(1)) as Json;
    expect(old.result.protocolVersion).toBe("2024-11-05");
    expect(old.result.serverInfo.name).toBe("mcpkit");
    expect(old.result.capabilities.tools).toEqual({ listChanged: false });
    expect(old.result.capabilities.logging).toEqual({});
    expect(old.result.instructions).toContain("probe (probe_chatty");

    raw.send(initialize(2, "2099-01-01"));
    expect(((await raw.response(2)) as Json).result.protocolVersion).toBe("2025-11-25");

    raw.send({
      jsonrpc: "2.0",
      id: 3,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {} },
    });
    const bad = (await raw.response(3)) as Json;
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toContain('"clientInfo"');

    raw.send({ jsonrpc: "2.0", id: 4, method: "ping" });
    expect(await raw.response(4)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  });

  test("an unknown method is -32601 naming it and the methods answered; logging/setLevel refuses an unknown level and filters by a known one", async () => {
    const raw = startProbe();
    await raw.initialize();
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/unheard_of", params: {} });
    const unknown = ((await raw.response(1)) as Json).error;
    expect(unknown.code).toBe(-32601);
    expect(unknown.message).toStartWith(
      'Method not found: "tools/unheard_of"; this server answers initialize, ping, logging/setLevel, tools/list, tools/call',
    );

    raw.send({ jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "loud" } });
    const refused = (await raw.response(2)) as Json;
    expect(refused.error.code).toBe(-32602);
    expect(refused.error.message).toContain('"level" must be one of debug, info');

    raw.send({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "error" } });
    expect(((await raw.response(3)) as Json).result).toEqual({});
    raw.send(call(4, "probe_chatty", {}, { _meta: { progressToken: "p" } }));
    await raw.response(4);
    const before = messages(raw);
    const answerAt = before.findIndex((message) => message.id === 4);
    const levels = before
      .slice(0, answerAt)
      .filter((message) => message.method === "notifications/message")
      .map((message) => message.params.level);
    expect(levels).toEqual(["error", "critical", "alert", "emergency"]);
    const progress = before.filter((message) => message.method === "notifications/progress");
    expect(progress.map((message) => [message.params.progressToken, message.params.progress])).toEqual([
      ["p", 1],
      ["p", 2],
    ]);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  });
});

describe("cancellation and ids", () => {
  test("notifications/cancelled aborts the call (also id 0) and no answer follows; the session keeps serving", async () => {
    const raw = startProbe();
    await raw.initialize();
    raw.send(call(0, "probe_wait"));
    await until(() => raw.stderr().includes("probe_wait started"), "the call to start");
    raw.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "user" } });
    await until(() => raw.stderr().includes("probe_wait cancelled"), "the call to be cancelled");
    raw.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await raw.response(1);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
    expect(messages(raw).filter((message) => message.id === 0)).toEqual([]);
  });

  test("SIGTERM cancels a call still running (no answer follows) and the process exits 0", async () => {
    const raw = startProbe();
    await raw.initialize();
    raw.send(call("long", "probe_wait"));
    await until(() => raw.stderr().includes("probe_wait started"), "the call to start");
    raw.kill("SIGTERM");
    expect(await raw.exited).toBe(0);
    expect(raw.stderr()).toContain("probe_wait cancelled");
    expect(messages(raw).filter((message) => message.id === "long")).toEqual([]);
  });

  test("a request that reuses the id of one still running is refused (-32600), as over HTTP; once that one is cancelled the id is free", async () => {
    const raw = startProbe();
    await raw.initialize();
    raw.send(call("twice", "probe_wait"));
    await until(() => raw.stderr().includes("probe_wait started"), "the call to start");
    raw.send(call("twice", "probe_constant"));
    const answered = () => messages(raw).filter((message) => message.id === "twice");
    await until(() => answered().length === 1, "the refusal");
    expect(answered()[0].error).toEqual({
      code: -32600,
      message: 'Invalid Request: a request with id "twice" is still running; give each request its own id.',
    });
    expect(raw.stderr()).not.toContain("probe_wait cancelled");
    raw.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "twice" } });
    await until(() => raw.stderr().includes("probe_wait cancelled"), "the call to be cancelled");
    raw.send(call("twice", "probe_constant"));
    await until(() => answered().length === 2, "the answer under the freed id");
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
    expect(answered()[1].result.content[0].text).toBe("always the same");
  });
});

describe("the server's roots/list request", () => {
  const rootsCapability = { roots: { listChanged: true } };
  const rootsRequests = (raw: RawServer) => messages(raw).filter((message) => message.method === "roots/list");

  test("asked once with id 0 and cached; list_changed drops the cache; an error answer means no roots and is asked again", async () => {
    const raw = startProbe();
    raw.send(initialize("init", "2025-11-25", rootsCapability));
    await raw.response("init");

    raw.send(call(1, "probe_roots"));
    await until(() => rootsRequests(raw).length === 1, "the first roots/list");
    expect(rootsRequests(raw)[0]).toEqual({ jsonrpc: "2.0", id: 0, method: "roots/list" });
    // A response that answers nothing the server asked is ignored.
    raw.send({ jsonrpc: "2.0", id: 41, result: { roots: [] } });
    raw.send({ jsonrpc: "2.0", id: 0, result: { roots: [{ uri: pathToFileURL("/srv/data").href, name: "data" }] } });
    expect(textOf((await raw.response(1)) as Json).roots).toEqual(["/srv/data"]);

    raw.send(call(2, "probe_roots"));
    expect(textOf((await raw.response(2)) as Json).roots).toEqual(["/srv/data"]);
    expect(rootsRequests(raw)).toHaveLength(1);

    raw.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    raw.send(call(3, "probe_roots"));
    await until(() => rootsRequests(raw).length === 2, "roots/list after list_changed");
    expect(rootsRequests(raw)[1].id).toBe(1);
    raw.send({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "no roots today" } });
    expect(textOf((await raw.response(3)) as Json).roots).toEqual([]);

    raw.send(call(4, "probe_roots"));
    await until(() => rootsRequests(raw).length === 3, "roots/list after a failed one");
    raw.send({ jsonrpc: "2.0", id: 2, result: { roots: [{ uri: pathToFileURL("/srv/other").href }] } });
    expect(textOf((await raw.response(4)) as Json).roots).toEqual(["/srv/other"]);
    expect(raw.stderr()).toContain("could not read the client's roots");
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
  });

  test("roots that name no local directory (a host, an encoded /, another scheme, …) are skipped with a warning naming each; the others apply and stay cached", async () => {
    const raw = startProbe();
    raw.send(initialize("init", "2025-11-25", rootsCapability));
    await raw.response("init");
    raw.send(call(1, "probe_roots"));
    await until(() => rootsRequests(raw).length === 1, "the roots/list");
    raw.send({ jsonrpc: "2.0", id: 0, result: { roots: MIXED_ROOTS } });
    expect(textOf((await raw.response(1)) as Json).roots).toEqual(["/srv/data", "/srv/other"]);
    raw.send(call(2, "probe_roots"));
    expect(textOf((await raw.response(2)) as Json).roots).toEqual(["/srv/data", "/srv/other"]);
    expect(rootsRequests(raw)).toHaveLength(1);
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
    const stderr = await raw.stderrEnded();
    expect(ignoredRoots(stderr)).toEqual(expectedIgnored("the roots/list result's roots"));
    expect(stderr).not.toContain("could not read the client's roots");
  });

  test("a client that did not declare roots is never asked", async () => {
    const raw = startProbe();
    await raw.initialize();
    raw.send(call(1, "probe_roots"));
    expect(textOf((await raw.response(1)) as Json).roots).toBeNull();
    raw.closeStdin();
    expect(await raw.exited).toBe(0);
    expect(rootsRequests(raw)).toEqual([]);
  });
});
