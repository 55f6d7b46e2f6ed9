/**
 * Stdio framing under hostile clients (issue 34, H5), through the real process over pipes: a client
 * that never reads its answers, lines too large or nested too deep to parse cheaply, a flood of
 * requests in one write, and a last line without its newline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
