/**
 * `subscriptions/listen` (MCP 2026-07-28 basic/patterns/subscriptions): the client opts in to
 * change notifications; the server acknowledges the subset it honours, tagged with the
 * subscription id (the listen request's JSON-RPC id), and then sends only those.
 *
 * mcpkit's tools, prompts and resources are fixed for the life of the process, so once
 * acknowledged a subscription carries nothing but keep-alives until the client closes it or the
 * server shuts down (then it answers the listen request, which ends the subscription cleanly).
 * The acknowledgement keeps the requested kinds this server has: tools always, prompts and
 * resources when a toolset offers them.
 */
import { ErrorCode } from "../../core/tool.ts";
import type { Dispatcher } from "../protocol/dispatcher.ts";
import { type Params, isRecord } from "../protocol/params.ts";
import { META } from "../protocol/versions.ts";
import { type JsonRpcId, ModernError, SERVER_INFO } from "./core.ts";

/**
 * The most subscriptions one client may hold open by default: a stdio connection always, one
 * token owner over HTTP unless --max-sessions-per-subject says otherwise. Each holds its id (and,
 * over HTTP, a stream and a timer) until the client closes it: 600,000 on one stdio connection
 * held 165 MB.
 */
export const SUBSCRIPTIONS_PER_CLIENT = 32;

/** At most this many resource URIs are honoured per subscription (the rest are left out of the acknowledgement). */
const MAX_RESOURCE_SUBSCRIPTIONS = 100;

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** The filter this server agrees to honour, from the request's `notifications`; -32602 for a malformed one. */
export function honouredFilter(dispatcher: Dispatcher, params: Params): SubscriptionFilter {
  const requested = params.notifications;
  if (!isRecord(requested)) {
    throw new ModernError(
      ErrorCode.InvalidParams,
      'Invalid params: "notifications" must be an object naming what to listen for, e.g. {"toolsListChanged": true}.',
      400,
    );
  }
  const { capabilities } = dispatcher;
  const honoured: SubscriptionFilter = {};
  if (requested.toolsListChanged === true) honoured.toolsListChanged = true;
  if (requested.promptsListChanged === true && capabilities.prompts) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged === true && capabilities.resources) honoured.resourcesListChanged = true;
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((uri) => typeof uri === "string"))) {
    throw new ModernError(
      ErrorCode.InvalidParams,
      'Invalid params: "notifications.resourceSubscriptions" must be an array of resource URIs.',
      400,
    );
  }
  if (uris?.length && capabilities.resources) {
    honoured.resourceSubscriptions = [...new Set(uris)].slice(0, MAX_RESOURCE_SUBSCRIPTIONS);
  }
  return honoured;
}

/** The first message of a subscription: what it will carry. */
export function acknowledgement(id: JsonRpcId, honoured: SubscriptionFilter): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { _meta: { [META.subscriptionId]: id }, notifications: honoured },
  };
}

/** The answer to the listen request when the server ends the subscription (graceful closure). */
export function closingResult(id: JsonRpcId): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    result: {
      resultType: "complete",
      _meta: { [META.subscriptionId]: id, [META.serverInfo]: SERVER_INFO },
    },
  };
}
