/**
 * The `boj` toolset built from its configuration (`index.ts` reads the options): the client, the
 * answer cache, the tools, resources and prompts. Loaded only when the toolset is built, so a
 * `mcpkit call` of another toolset's tool never evaluates them; and the client, the cache and the
 * series search (engine.ts), like the handlers' code (tools/calls.ts), load at the first call,
 * not when a server starts and lists the tools.
 */
import { lazy } from "../../core/lazy.ts";
import { storeUrlSecrets } from "../../core/store-url.ts";
import type { Runtime } from "../../core/toolset-module.ts";
import { ErrorCode, ProtocolError, type Toolset } from "../../core/tool.ts";
import { BojError, toProtocolError } from "./errors.ts";
import type { BojConfig } from "./index.ts";
import { bojPrompts } from "./prompts.ts";
import { bojResourceTemplates, bojResources } from "./resources.ts";
import { linkSharedState } from "./shared-link.ts";
import { bojTools } from "./tools/index.ts";

export function createBoj(config: BojConfig, runtime: Runtime): Toolset {
  const shared = config.sharedState
    ? linkSharedState(config.sharedState, {
        cacheBytes: config.cacheBytes,
        upstream: config.baseUrl,
        log: runtime.log,
      })
    : undefined;
  for (const secret of config.sharedState ? storeUrlSecrets(config.sharedState) : []) runtime.log.redact(secret);
  const engine = lazy(() => {
    const { BojAnswers, BojClient, MemoryAnswerCache, createSearch } =
      require("./engine.ts") as typeof import("./engine.ts");
    const client = new BojClient(config, runtime.log, shared?.pace);
    const cache = shared ? shared.cache : config.cacheBytes > 0 ? new MemoryAnswerCache(config.cacheBytes) : undefined;
    const answers = new BojAnswers(client, cache, config.cacheTtl);
    return { answers, search: createSearch({ ...config, shared: shared?.catalog }, answers, runtime.log) };
  });
  return {
    name: "boj",
    close: async () => {
      engine.ifMade()?.search.close();
      await shared?.close();
    },
    tools: bojTools({
      get answers() {
        return engine.get().answers;
      },
      get search() {
        return engine.get().search;
      },
    }),
    resources: bojResources,
    resourceTemplates: bojResourceTemplates,
    prompts: bojPrompts,
    // docs/contracts/boj.md "Errors": arguments that break the schema are a JSON-RPC
    // invalid_params error (VALIDATION_ERROR), not an isError result.
    rejectArguments(message, _tool, field) {
      // `field` as the contract's VALIDATION_ERROR carries it, also for what the schema refuses.
      throw new ProtocolError(ErrorCode.InvalidParams, message, {
        error_type: "VALIDATION_ERROR",
        field: field ?? null,
        message,
      });
    },
    // docs/contracts/boj.md "Errors": each BojError a handler throws leaves as the JSON-RPC error it prescribes.
    mapError: (error, calledAs) => (error instanceof BojError ? toProtocolError(error, calledAs) : undefined),
  };
}
