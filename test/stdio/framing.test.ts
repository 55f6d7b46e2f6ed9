/**
 * Stdio framing under hostile clients (issue 34, H5), through the real process over pipes: a client
 * that never reads its answers, lines too large or nested too deep to parse cheaply, a flood of
 * requests in one write, and a last line without its newline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { meta } from "../modern/support.ts";
import { type Json, legacyOpening, startPeer } from "./peer.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-framing-"));
  writeFileSync(join(root, "a.txt"), "a");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fsArgs = () => ["--toolsets", "fs", "--root", root];
const parsed = (lines: string[]): Json[] => lines.map((line) => JSON.parse(line));
const ping = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

describe("a client that does not read stdout", () => {
  test("the server stops reading stdin while stdout is full, instead of queueing answers; once the client reads, every answer arrives in order", async () => {
    const peer = startPeer(fsArgs(), { LOG_LEVEL: "trace" });
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    peer.readStdout(false);
    // Requests of 1 KiB (padded with spaces, still one JSON text), so the pipes' and runtime's
    // buffers (a few hundred KiB) hold a few hundred of them, not thousands. Each answer is ~20 KB.
    const request = (id: number) => {
      const json = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });
      return `${json.padEnd(1023)}\n`;
    };
    const total = 6000;
    // How far the client's writes may run ahead of the answers it read: the buffers in between,
    // not the number of requests. Before the fix the server read all 6,000 (and held ~120 MB of answers).
    const mostAhead = 2000;
    let handed = 0;
    const writing = (async () => {
      for (let id = 1; id <= total; id++) {
        await peer.write(request(id));
        handed++;
        const answered = peer.lines.length - 1;
        if (handed - answered > mostAhead)
          throw new Error(`the server read ${handed} requests; the client read ${answered} answers`);
      }
    })();
    // The server says when it stops reading (trace); the client's write is then stuck behind it.
    const stalled = (async () => {
      await peer.stderrShows("reading stdin paused");
      await peer.writeBlocked();
    })();
    await Promise.race([stalled, writing]);
    expect(peer.lines).toHaveLength(1);
    expect(handed).toBeLessThan(total);
    expect(peer.memoryMiB("VmHWM")).toBeLessThan(120);

    peer.readStdout(true);
    await writing;
    await peer.linesRead(1 + total);
    const answers = parsed(peer.lines.slice(1));
    expect(answers.map((answer) => answer.id)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    for (const answer of answers) expect(answer.result.tools[0].name).toBe("fs_search_by_time");
    expect(await peer.end()).toBe(0);
  }, 120_000);
  test("a client that stopped reading and then closes both pipes: the server, paused, notices (EPIPE) and exits 0", async () => {
    const peer = startPeer(fsArgs(), { LOG_LEVEL: "trace" });
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    peer.readStdout(false);
    const listing = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }).padEnd(1023)}\n`;
    void (async () => {
      for (let id = 1; !peer.child.stdin.writableEnded; id++) await peer.write(listing(id));
    })();
    await peer.stderrShows("reading stdin paused");
    await peer.writeBlocked();
    peer.child.stdout.destroy();
    expect(await peer.end()).toBe(0);
    expect(peer.stderr()).toContain("stdout failed");
    expect(peer.stderr()).not.toContain("EPIPE: broken pipe");
  });
});

describe("the cost of parsing one line is bounded", () => {
  test("a 14 MB line of nested arrays is refused as too large (-32600, naming the limit) without parsing it; the server keeps answering", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    const depth = 7 * 1024 * 1024;
    await peer.write(`${"[".repeat(depth)}${"]".repeat(depth)}\n`);
    await peer.write(`${ping(2)}\n`);
    await peer.linesRead(3);
    const [refusal, pong] = parsed(peer.lines.slice(1));
    expect(refusal.error.code).toBe(-32600);
    expect(refusal.error.message).toContain("at most 1048576 bytes");
    expect(refusal.id).toBeUndefined();
    expect(pong).toMatchObject({ id: 2, result: {} });
    // Before: the whole line was parsed, and the server peaked near 600 MB.
    expect(peer.memoryMiB("VmHWM")).toBeLessThan(150);
    expect(await peer.end()).toBe(0);
  });

  test("a line that is not valid UTF-8 is a parse error (-32700), not read with its bytes replaced; the server keeps answering", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    // An id holding the bytes FF FE: read leniently it came back as "\uFFFD\uFFFD", an id the client never sent.
    const line = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","method":"ping"}\n'),
    ]);
    peer.child.stdin.write(line);
    await peer.write(`${ping(3)}\n`);
    await peer.linesRead(3);
    const [refusal, pong] = parsed(peer.lines.slice(1));
    expect(refusal.error.code).toBe(-32700);
    expect(refusal.error.message).toContain("not valid UTF-8");
    expect(refusal.id).toBeUndefined();
    expect(pong).toMatchObject({ id: 3, result: {} });
    expect(await peer.end()).toBe(0);
  });

  test("a malformed response (a result that is no object, or both result and error) is dropped, never answered", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    // Answered before: -32600 under id 0, which a client reads as the answer to its own request 0.
    await peer.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, result: [{ uri: "file:///tmp" }] })}\n`);
    await peer.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, result: {}, error: { code: 1, message: "x" } })}\n`);
    await peer.write(`${ping(4)}\n`);
    await peer.linesRead(2);
    expect(parsed(peer.lines.slice(1))).toEqual([{ jsonrpc: "2.0", id: 4, result: {} }]);
    expect(await peer.end()).toBe(0);
    expect(peer.lines).toHaveLength(2);
  });

  test("nesting: 64 levels are answered, 65 are refused before parsing (-32600 naming the limit), and so is a 1 MB line of them", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    // The message object and params are two levels; `x` adds the rest.
    const nested = (id: number, levels: number) =>
      `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"x":${"[".repeat(levels - 2)}${"]".repeat(levels - 2)}}}\n`;
    // One at a time: a refusal is written at once, an answer a moment later.
    const answer = async (line: string) => {
      await peer.write(line);
      await peer.linesRead(peer.lines.length + 1);
      return JSON.parse(peer.lines.at(-1) as string) as Json;
    };
    expect(await answer(nested(1, 64))).toMatchObject({ id: 1, result: {} });
    const deep = 500_000;
    for (const line of [nested(2, 65), `${"[".repeat(deep)}${"]".repeat(deep)}\n`]) {
      const refusal = await answer(line);
      expect(refusal.error.code).toBe(-32600);
      expect(refusal.error.message).toContain("at most 64 levels");
      expect(refusal.id).toBeUndefined();
    }
    // Brackets inside a string are text, not nesting.
    const bracketsInString = `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"${"[".repeat(100)}"}}\n`;
    expect(await answer(bracketsInString)).toMatchObject({ id: 3, result: {} });
    const pong = await answer(`${ping(4)}\n`);
    expect(pong).toMatchObject({ id: 4, result: {} });
    expect(await peer.end()).toBe(0);
  });

  test("a line of exactly the limit is answered whether it ends in \\n or \\r\\n (the \\r is not counted); one byte more is refused", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    // A ping padded with spaces (still one JSON text) to exactly 1 MiB, the line limit.
    const atLimit = (id: string) => ping(id).padEnd(1024 * 1024);
    await peer.write(`${atLimit("lf")}\n`);
    await peer.write(`${atLimit("crlf")}\r\n`);
    await peer.write(`${atLimit("over")} \r\n`);
    await peer.write(`${ping("after")}\r\n`);
    await peer.linesRead(5);
    const [, lf, crlf, over, after] = parsed(peer.lines);
    expect([lf, crlf, after].map((answer) => [answer.id, answer.result])).toEqual([
      ["lf", {}],
      ["crlf", {}],
      ["after", {}],
    ]);
    expect(over.error.message).toContain("at most 1048576 bytes");
    expect(await peer.end()).toBe(0);
  });
});

describe("a flood of requests in one write", () => {
  test("200,000 pings in one write: one waiter for drain (no MaxListenersExceededWarning), every answer in order", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    const total = 200_000;
    let flood = "";
    for (let id = 1; id <= total; id++) flood += `${ping(id)}\n`;
    await peer.write(flood);
    await peer.linesRead(1 + total);
    const ids = parsed(peer.lines.slice(1)).map((answer) => answer.id);
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(await peer.end()).toBe(0);
    expect(peer.stderr()).not.toContain("MaxListenersExceededWarning");
  }, 120_000);
});

describe("a last line without a newline", () => {
  test("2025-11-25: answered when stdin ends, then the process exits 0", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(`${legacyOpening()}${ping(1)}`);
    const code = await peer.end();
    expect(parsed(peer.lines).map((message) => message.id)).toEqual(["init", 1]);
    expect(code).toBe(0);
  });

  test("2026-07-28 (the only line): answered when stdin ends, then the process exits 0", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }));
    const code = await peer.end();
    const [answer, ...rest] = parsed(peer.lines);
    expect(answer.id).toBe(1);
    expect(answer.result.tools[0].name).toBe("fs_search_by_time");
    expect(rest).toEqual([]);
    expect(code).toBe(0);
  });

  test("a last line over the size limit, without a newline, is refused (-32600) rather than dropped", async () => {
    const peer = startPeer(fsArgs());
    await peer.write(legacyOpening());
    await peer.linesRead(1);
    await peer.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${"a".repeat(2 * 1024 * 1024)}"}}`);
    const code = await peer.end();
    const [, refusal] = parsed(peer.lines);
    expect(refusal.error.code).toBe(-32600);
    expect(refusal.error.message).toContain("at most 1048576 bytes");
    expect(code).toBe(0);
  });
});
