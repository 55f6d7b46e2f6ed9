/**
 * `probe_hold` and `probe_release` for the probe servers: a call that stays silent until the test
 * releases it, so a test decides when an answer comes instead of waiting on the clock. Each held
 * call prints `probe_hold started (N held)` on stderr once it is waiting.
 */
import * as v from "valibot";
import { type ToolDefinition, defineTool, textResult } from "../../src/core/tool.ts";

export function holdTools(): ToolDefinition[] {
  const held: (() => void)[] = [];
  return [
    defineTool({
      name: "probe_hold",
      title: "Hold",
      description: "Stays silent until probe_release is called, then answers.",
      input: v.object({}),
      annotations: { readOnlyHint: true },
      scope: "probe:read",
      handler: async () => {
        const released = new Promise<void>((resolve) => held.push(resolve));
        process.stderr.write(`probe_hold started (${held.length} held)\n`);
        await released;
        return textResult("released");
      },
    }),
    defineTool({
      name: "probe_release",
      title: "Release",
      description: "Lets every held probe_hold call answer.",
      input: v.object({}),
      annotations: { readOnlyHint: true },
      scope: "probe:read",
      handler: async () => {
        const waiting = held.splice(0);
        for (const resolve of waiting) resolve();
        return textResult(`released ${waiting.length}`);
      },
    }),
  ];
}
