/**
 * What a body under --boj-max-body-bytes may cost (a red-team pass, F2): a server at
 * --boj-base-url that is not BOJ, or a broken BOJ, must not make one answer cost gigabytes and
 * seconds of blocked event loop. The real process over stdio against the fake BOJ; memory is the
 * server's own peak (VmHWM), bounded far above what the refusals cost and far below the old cost.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeBoj } from "../fixtures/boj/fake-boj.ts";
import { dataCsv, dataJson, encodeCsv, maximalPage } from "../fixtures/boj/format.ts";
import { type Json, type Peer, legacyOpening, startPeer } from "../stdio/peer.ts";
import { bojTestArgs } from "./support.ts";

const fake = startFakeBoj();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const ENVELOPE = '"STATUS":200,"MESSAGEID":"M181000I","MESSAGE":"ok","DATE":"2026-01-01T00:00:00.000+09:00"';

async function openPeer(...extra: string[]): Promise<Peer> {
  const peer = startPeer(bojTestArgs(fake.url, "--boj-retry-max", "0", "--boj-timeout-ms", "120000", ...extra));
  await peer.write(legacyOpening());
  await peer.linesRead(1);
  return peer;
}

let nextId = 1;
/** One tools/call through the peer; its answer (result or error), past the log notifications before it. */
async function callTool(peer: Peer, name: string, args: Json): Promise<Json> {
  const id = nextId++;
  let seen = peer.lines.length;
  await peer.write(
    `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })}\n`,
  );
  for (;;) {
    await peer.linesRead(seen + 1);
    for (; seen < peer.lines.length; seen++) {
      const message = JSON.parse(peer.lines[seen]) as Json;
      if (message.id === id) return message;
    }
  }
}

const dataCall = { db: "FM08", codes: ["FXERD05"] };

describe("JSON nesting", () => {
  test("a body nested a million deep in a key mcpkit does not read is a DECODE_ERROR naming the limit, refused before JSON.parse", async () => {
    const peer = await openPeer();
    try {
      const depth = 1_000_000;
      fake.enqueue({
        kind: "raw",
        status: 200,
        body: `{${ENVELOPE},"Z":${"[".repeat(depth)}${"]".repeat(depth)},"RESULTSET":[]}`,
      });
      const answer = await callTool(peer, "boj_get_data_code", dataCall);
      // Before: parsed whole (the red team's 20 MB of `[` peaked at 878 MB) and answered as an empty page.
      expect(answer.error?.code).toBe(-32603);
      expect(answer.error?.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(answer.error?.message).toContain("nests deeper than 16 levels");
      expect(answer.error?.message).toContain("--boj-base-url");
      // A metadata answer is held to the same depth.
      fake.enqueue({
        kind: "raw",
        status: 200,
        body: `{${ENVELOPE},"DB":"FM08","RESULTSET":[{"SERIES_CODE":${"[".repeat(17)}${"]".repeat(17)}}]}`,
      });
      const metadata = await callTool(peer, "boj_get_metadata", { db: "FM08" });
      expect(metadata.error?.message).toContain("nests deeper than 16 levels");
    } finally {
      await peer.end();
    }
  });
});

describe("a data page is at most what BOJ pages at (250 series, 60,000 points), with room", () => {
  test("more than 1,250 series or 240,000 points, in JSON or CSV, is a DECODE_ERROR naming the limit", async () => {
    const peer = await openPeer();
    try {
      const refused = async (body: string | Uint8Array, format: "json" | "csv", limit: string) => {
        fake.enqueue({
          kind: "raw",
          status: 200,
          body,
          contentType: format === "csv" ? "text/csv" : "application/json",
        });
        const answer = await callTool(peer, "boj_get_data_code", { ...dataCall, format });
        // Before: decoded whole, one object per point, and answered as a shortened page.
        expect(answer.error?.data).toMatchObject({ error_type: "DECODE_ERROR" });
        expect(answer.error?.message).toContain(limit);
        expect(answer.error?.message).toContain("250 series and 60,000 data points");
        expect(answer.error?.message).toContain("--boj-base-url");
      };
      await refused(dataJson(maximalPage(1_251, 1), "JP"), "json", "1,251 series, over the 1,250");
      await refused(dataJson(maximalPage(1, 240_001), "JP"), "json", "over the 240,000");
      await refused(dataJson(maximalPage(2, 120_001), "JP"), "json", "over the 240,000");
      await refused(encodeCsv(dataCsv(maximalPage(1, 240_100), "JP"), "JP"), "csv", "over the 240,000");
      await refused(encodeCsv(dataCsv(maximalPage(1_251, 1), "JP"), "JP"), "csv", "over the 1,250");
      // BOJ's own largest page still decodes, in both formats.
      for (const format of ["json", "csv"] as const) {
        const page = maximalPage(250, 240);
        fake.enqueue({
          kind: "raw",
          status: 200,
          body: format === "csv" ? encodeCsv(dataCsv(page, "JP"), "JP") : dataJson(page, "JP"),
          contentType: format === "csv" ? "text/csv" : "application/json",
        });
        const answer = await callTool(peer, "boj_get_data_code", { ...dataCall, format });
        expect(answer.error).toBeUndefined();
        expect(answer.result.structuredContent.truncated.total_series).toBe(250);
      }
    } finally {
      await peer.end();
    }
  }, 120_000);

  test("the red team's one series of millions of points, under the byte cap, is refused before JSON.parse: the server stays small", async () => {
    const peer = await openPeer();
    try {
      const n = 2_400_000; // 29 MB, under the byte cap
      const dates = Array.from({ length: n }, (_, i) => 190001 + (i % 12)).join(",");
      const values = Array.from({ length: n }, () => "1.25").join(",");
      fake.enqueue({
        kind: "raw",
        status: 200,
        body: `{${ENVELOPE},"NEXTPOSITION":null,"RESULTSET":[{"SERIES_CODE":"FXERD05","VALUES":{"SURVEY_DATES":[${dates}],"VALUES":[${values}]}}]}`,
      });
      const answer = await callTool(peer, "boj_get_data_code", dataCall);
      expect(answer.error?.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(answer.error?.message).toContain("more than 520,000 values");
      // Before: 1.2 GB or more (4 million points: 2.2 GB and 24 s). Now the body, read and scanned: about 100 MB.
      expect(peer.memoryMiB("VmHWM")).toBeLessThan(500);
    } finally {
      await peer.end();
    }
  }, 120_000);
});

describe("a database's metadata is at most about twice all of BOJ's series", () => {
  test("the red team's 20,000,000 empty entries (60 MB, under the metadata byte cap) are refused before JSON.parse, and so is such a CSV", async () => {
    const peer = await openPeer();
    try {
      const n = 20_000_000;
      fake.enqueue({
        kind: "raw",
        status: 200,
        body: `{${ENVELOPE},"DB":"FM08","RESULTSET":[${Array(n).fill("{}").join(",")}]}`,
      });
      const answer = await callTool(peer, "boj_get_metadata", { db: "FM08", limit: 1 });
      expect(answer.error?.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(answer.error?.message).toContain("more than 300,000 entries");
      expect(answer.error?.message).toContain("--boj-base-url");
      // Before: decoded, 7.8 GB and 20 s. Now the body, read and scanned.
      expect(peer.memoryMiB("VmHWM")).toBeLessThan(600);
      fake.enqueue({
        kind: "raw",
        status: 200,
        contentType: "text/csv",
        body: `STATUS,200\nMESSAGEID,M181000I\n${"SERIES_CODE\n".repeat(300_100)}`,
      });
      const csv = await callTool(peer, "boj_get_metadata", { db: "FM08", format: "csv", limit: 1 });
      expect(csv.error?.message).toContain("more than 300,000 entries");
    } finally {
      await peer.end();
    }
  }, 120_000);
});

describe("the byte cap by default", () => {
  test("a data page's body is read at most 32 MiB (the red team's 44 MB series is never parsed); a metadata body keeps 64 MiB", async () => {
    const peer = await openPeer();
    try {
      // Valid JSON of 40 MB, which the code before read, parsed and answered as an empty page.
      const body = `{${ENVELOPE},"PAD":"${"x".repeat(40 * 1024 * 1024)}","RESULTSET":[]}`;
      fake.enqueue({ kind: "raw", status: 200, body });
      const data = await callTool(peer, "boj_get_data_code", dataCall);
      expect(data.error?.data).toMatchObject({ error_type: "DECODE_ERROR" });
      expect(data.error?.message).toContain("33554432-byte cap (--boj-max-body-bytes)");
      fake.enqueue({ kind: "raw", status: 200, body });
      const metadata = await callTool(peer, "boj_get_metadata", { db: "FM08" });
      expect(metadata.error).toBeUndefined();
      expect(metadata.result.structuredContent.entries_count).toBe(0);
    } finally {
      await peer.end();
    }
  }, 120_000);

  test("--boj-max-body-bytes, when given, caps every body", async () => {
    const peer = await openPeer("--boj-max-body-bytes", "1048576");
    try {
      fake.enqueue({ kind: "oversize", bytes: 2 * 1024 * 1024 }, { kind: "oversize", bytes: 2 * 1024 * 1024 });
      const data = await callTool(peer, "boj_get_data_code", dataCall);
      expect(data.error?.message).toContain("1048576-byte cap (--boj-max-body-bytes)");
      expect(data.error?.message).toContain("narrow the request (fewer codes or a shorter period)");
      const metadata = await callTool(peer, "boj_get_metadata", { db: "FM08" });
      expect(metadata.error?.message).toContain("1048576-byte cap (--boj-max-body-bytes)");
      // A catalogue comes whole: no argument narrows it (it advised fewer codes, which metadata takes none of).
      expect(metadata.error?.message).toContain(
        "only a larger cap reads it: ask the user to raise --boj-max-body-bytes",
      );
      expect(metadata.error?.message).not.toContain("fewer codes");
    } finally {
      await peer.end();
    }
  });
});
