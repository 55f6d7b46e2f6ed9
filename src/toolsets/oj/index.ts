/**
 * The `oj` toolset: online-judge problems (LeetCode, Codeforces, AtCoder, Luogu, SPOJ) from a craboj
 * (oj-api-rs) server, as docs/contracts/oj.md describes. Enabled when a base URL is given.
 */
import { defineToolsetModule } from "../../core/toolset-module.ts";
import { type OjConfig, ojOptions, readOjConfig } from "./config.ts";
import { lowerEscapes, tokenForms } from "./sanitize.ts";

export const oj = defineToolsetModule<OjConfig>({
  name: "oj",
  summary: "online-judge problems (LeetCode daily, problems, similar problems, platform status) from a craboj server",
  options: ojOptions,
  // Only to describe the tools when oj is off (mcpkit call TOOL --help); nothing is ever sent there.
  placeholderValues: { "oj-base-url": "http://127.0.0.1:9" },
  configure(values, runtime) {
    // Last line of defence, registered before anything can fail: a stray log of the token, in any
    // form an upstream could echo it in, prints "[redacted]". (The tools never log upstream text
    // before sanitizing it, which also removes fragments of the token: docs/contracts/oj.md §7.)
    const rawToken = values["oj-token"];
    if (typeof rawToken === "string" && rawToken.trim() !== "") {
      // Percent-escapes may come back in lower case (`%2f`) from an upstream that encodes the token itself.
      for (const form of tokenForms(rawToken.trim())) {
        runtime.log.redact(form);
        runtime.log.redact(lowerEscapes(form));
      }
    }
    const config = readOjConfig(values);
    return config ?? { missing: "--oj-base-url URL (or OJ_BASE_URL)" };
  },
  // The client and the tools load only when the toolset is built (toolset.ts).
  create: (config, runtime) => (require("./toolset.ts") as typeof import("./toolset.ts")).createOj(config, runtime),
});
