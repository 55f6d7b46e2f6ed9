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
