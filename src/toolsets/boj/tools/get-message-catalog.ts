import { defineTool, textResult } from "../../../core/tool.ts";
import { messageCatalog, messageCatalogBytes } from "../catalog.ts";
import { BOJ_SCOPE, calls, catalogAnnotations, schemas } from "./shared.ts";

export function getMessageCatalog() {
  return defineTool({
    name: "boj_get_message_catalog",
    title: "BOJ API status messages",
    description:
      "List BOJ's STATUS / MESSAGEID / MESSAGE codes (e.g. M181005E = unknown database) with what each means and how to fix the request; filter with status 200, 400, 500 or 503. Use it to interpret an API_ERROR. No network access.",
    get input() {
      return schemas().getMessageCatalogInput;
    },
    get output() {
      return schemas().getMessageCatalogOutput;
    },
    // Every answer is a cut of one embedded catalogue: measured once, not at every call.
    get structuredBytesAtMost() {
      return messageCatalogBytes.get();
    },
    annotations: { title: "BOJ API status messages", ...catalogAnnotations },
    scope: BOJ_SCOPE,
    handler: async (args) => {
      const catalog = messageCatalog(args.status);
      return textResult(calls().renderMessages(catalog.messages, catalog.status_filter), catalog);
    },
  });
}
