/**
 * Sizes of the text a model reads from the boj tools, against the JSON of their structuredContent
 * (which was the text before it became compact): boj_get_metadata on a 1,300-series database, a
 * 250-series boj_get_data_layer page, boj_list_databases, and a page whose single series exceeds
 * the budget. Runs the real process (`mcpkit call`) against the fake BOJ.
 *
 *   bun scripts/bench/boj-output-size.ts
 */
import { resolve } from "node:path";
import { startFakeBoj } from "../../test/fixtures/boj/fake-boj.ts";

const fake = startFakeBoj();
const main = resolve(import.meta.dir, "../../src/main.ts");

const calls: [string, Record<string, unknown>][] = [
  ["boj_get_metadata", { db: "LA01" }],
  ["boj_get_metadata", { db: "LA01", frequency: "Q", limit: 100 }],
  ["boj_get_data_layer", { db: "MD10", frequency: "Q", layers: ["*"], lang: "en" }],
  ["boj_list_databases", {}],
  ["boj_get_data_code", { db: "FM08", codes: ["FXERD01", "FXERD02", "FXERD03"] }],
];

console.log("tool and arguments".padEnd(90), "text bytes".padStart(11), "JSON bytes".padStart(11), "ratio".padStart(7));
for (const [tool, args] of calls) {
  const child = Bun.spawn(
    [
      process.execPath,
      main,
      "call",
      tool,
      JSON.stringify(args),
      "--boj-base-url",
      fake.url,
      "--boj-min-interval-ms",
      "0",
    ],
    {
      stdout: "pipe",
      stderr: "ignore",
    },
  );
  const result = JSON.parse(await new Response(child.stdout).text()) as {
    content: { text: string }[];
    structuredContent: unknown;
  };
  const text = Buffer.byteLength(result.content[0].text);
  const json = Buffer.byteLength(JSON.stringify(result.structuredContent));
  console.log(
    `${tool} ${JSON.stringify(args)}`.padEnd(90),
    String(text).padStart(11),
    String(json).padStart(11),
    (text / json).toFixed(3).padStart(7),
  );
}
await fake.stop();
