/**
 * Builds one MCP server (one per stdio process or per HTTP session) from the enabled toolsets,
 * on the SDK's low-level `Server`: our own registry turns valibot schemas into JSON Schema and
 * runs tools through `invokeTool`, the same path `mcpkit call` takes.
 */
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  RootsListChangedNotificationSchema,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { z } from "zod";
import { invokeTool } from "../core/invoke.ts";
import type { Logger } from "../core/log.ts";
import {
  CLIENT_LOG_LEVELS,
  type ClientLogLevel,
  ErrorCode,
  ProtocolError,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ToolContext,
  type ToolDefinition,
  type Toolset,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from "../core/tool.ts";
import { NAME, VERSION } from "../version.ts";
import { jsonSchemaOf } from "../core/json-schema.ts";
import { isScopeGranted } from "./scopes.ts";
import { closestName } from "../core/did-you-mean.ts";
import { logToStderr } from "../core/client-log.ts";

/** Which name `tools/list` shows: the portable one (default) or the toolset contract's own. */
export type ToolNaming = "portable" | "seed";

export interface McpServerOptions {
  toolsets: readonly Toolset[];
  log: Logger;
  toolNames: ToolNaming;
  /** Bytes of text content per tool result (--max-output-bytes). */
  outputBudget: number;
}

interface RegisteredTool {
  toolset: Toolset;
  tool: ToolDefinition;
  listing: Tool;
  /** The listing for clients that render MCP Apps: the same plus `_meta.ui.resourceUri`. */
  uiListing: Tool;
}

interface Registry {
  /** Every tool by every name it answers to (listed name and seed name). */
  byName: Map<string, RegisteredTool>;
  /** One entry per tool, in toolset order, as `tools/list` shows it. */
  listed: RegisteredTool[];
}

/** Tool listings are computed once per set of toolsets and naming, not once per session. */
const registryCache = new WeakMap<readonly Toolset[], Partial<Record<ToolNaming, Registry>>>();

function registryOf(toolsets: readonly Toolset[], naming: ToolNaming): Registry {
  const cached = registryCache.get(toolsets) ?? {};
  const hit = cached[naming];
  if (hit) return hit;
  const registry: Registry = { byName: new Map(), listed: [] };
  for (const toolset of toolsets) {
    for (const tool of toolset.tools) {
      const listing: Tool = {
        name: naming === "seed" ? (tool.seedName ?? tool.name) : tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: jsonSchemaOf(tool.input, "input") as Tool["inputSchema"],
        annotations: tool.annotations,
      };
      if (tool.output) listing.outputSchema = jsonSchemaOf(tool.output, "output") as Tool["outputSchema"];
      // The flat "ui/resourceUri" key is ext-apps' deprecated form, still read by some hosts.
      const uiListing: Tool = tool.ui
        ? { ...listing, _meta: { ui: { resourceUri: tool.ui.resourceUri }, "ui/resourceUri": tool.ui.resourceUri } }
        : listing;
      const entry = { toolset, tool, listing, uiListing };
      for (const name of new Set([tool.name, tool.seedName ?? tool.name])) {
        if (registry.byName.has(name)) throw new Error(`two toolsets define the tool ${name}`);
        registry.byName.set(name, entry);
      }
      registry.listed.push(entry);
    }
  }
  registryCache.set(toolsets, { ...cached, [naming]: registry });
  return registry;
}

/** The union of what the enabled toolsets offer. */
export function capabilitiesOf(toolsets: readonly Toolset[]): ServerCapabilities {
  // `logging`: tools tell the client about retries, skipped directories and partial results.
  const capabilities: ServerCapabilities = { tools: { listChanged: false }, logging: {} };
  const hasResources = toolsets.some((t) => (t.resources?.length ?? 0) + (t.resourceTemplates?.length ?? 0) > 0);
  const hasPrompts = toolsets.some((t) => (t.prompts?.length ?? 0) > 0);
  const hasCompletions = toolsets.some(
    (t) => t.prompts?.some((p) => p.complete) || t.resourceTemplates?.some((r) => r.complete),
  );
  if (hasResources) capabilities.resources = { listChanged: false };
  if (hasPrompts) capabilities.prompts = { listChanged: false };
  if (hasCompletions) capabilities.completions = {};
  return capabilities;
}

/**
 * Registers a request handler whose params are checked here rather than by the SDK: the SDK
 * reports a malformed request as -32603 (internal error), but it is the client's mistake, -32602.
 */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> } & z.ZodRawShape>;
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

function onRequest<S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: z.infer<S>, extra: Extra) => Promise<ServerResult>,
): void {
  const method = schema.shape.method.value;
  const methodOnly = schema.pick({ method: true } as never).loose() as unknown as S;
  // `Server.setRequestHandler` wraps tools/call in a second CallToolRequestSchema parse (ours,
  // below, already answers -32602) and a CallToolResultSchema parse of the result: a deep copy,
  // on every call, of a result `invokeTool` built and typed itself. Protocol's own registration
  // is what Server's does for every other method; tasks, the wrapper's one other concern, are
  // refused by Protocol before any handler runs since mcpkit declares no tasks capability.
  const register = method === "tools/call" ? Protocol.prototype.setRequestHandler : server.setRequestHandler;
  register.call(server, methodOnly, async (raw: z.infer<S>, extra: Extra) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues?.[0];
      const where = issue?.path?.length ? issue.path.join(".") : "params";
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Invalid ${method} request: "${where}": ${issue?.message ?? "malformed"}.`,
      );
    }
    return handler(parsed.data, extra);
  });
}

/** What `initialize` tells the model: the toolsets and tools it will find in tools/list. */
export function instructionsFor(toolsets: readonly Toolset[], naming: ToolNaming): string {
  const listed = registryOf(toolsets, naming).listed;
  const parts = toolsets.map((toolset) => {
    const names = listed.filter((entry) => entry.toolset === toolset).map((entry) => entry.listing.name);
    return `${toolset.name} (${names.join(", ")})`;
  });
  return `mcpkit toolsets: ${parts.join("; ")}. Each tool's description says when to use it; errors say how to fix the call.`;
}

/** What one server (one client session) remembers between requests. */
interface SessionState {
  /** The level the client asked for with logging/setLevel; until it asks, debug stays in the server's log. */
  clientLevel: ClientLogLevel;
  /** The client's roots, cached; `notifications/roots/list_changed` drops them. */
  roots: Promise<string[]> | undefined;
}

/**
 * The SDK validates elicitation answers with this, and by default builds an Ajv instance per
 * server: 50-70 µs of every HTTP session opened and every --stateless request (2 µs without). mcpkit never
 * asks the client for input (no `elicitInput`), so nothing is ever validated.
 */
const NO_ELICITATION = {
  getValidator(): never {
    throw new Error("mcpkit does not use elicitation, so it validates no elicited input");
  },
};

const permitted = (tool: ToolDefinition, scopes: readonly string[] | undefined) =>
  scopes === undefined || isScopeGranted(scopes, tool.scope);

export function createMcpServer(options: McpServerOptions): Server {
  const { toolsets, log, toolNames } = options;
  const registry = registryOf(toolsets, toolNames);
  const server = new Server(
    { name: NAME, version: VERSION },
    {
      capabilities: capabilitiesOf(toolsets),
      instructions: instructionsFor(toolsets, toolNames),
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  server.onerror = (error) => log.debug("protocol error", { error: error.message });
  const session: SessionState = { clientLevel: "info", roots: undefined };

  onRequest(server, SetLevelRequestSchema, async (request) => {
    session.clientLevel = request.params.level;
    return {};
  });
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    session.roots = undefined;
    log.debug("client roots changed");
  });
  onRequest(server, ListToolsRequestSchema, async (_request, extra) => {
    const scopes = extra.authInfo?.scopes;
    const ui = rendersApps(server);
    return {
      tools: registry.listed
        .filter(({ tool }) => permitted(tool, scopes))
        .map(({ listing, uiListing }) => (ui ? uiListing : listing)),
    };
  });
  onRequest(server, CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const entry = callableTool(registry, name, extra.authInfo?.scopes);
    const context = toolContext(server, session, options, name, request.params._meta?.progressToken, extra);
    log.debug("tools/call", { tool: name });
    const result: CallToolResult = await invokeTool(entry.toolset, entry.tool, args, context);
    return result;
  });

  installResourceHandlers(server, toolsets);
  return server;
}

/**
 * Whether the client renders MCP Apps views: it declared the UI extension with the view's mime
 * type. Only such clients see `_meta.ui` on tools and the `ui://` resources.
 */
function rendersApps(server: Server): boolean {
  const extensions = (server.getClientCapabilities() as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  const ui = extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(UI_MIME_TYPE);
}

/** The tool a name stands for, when the caller may use it; otherwise the protocol error that says why. */
function callableTool(registry: Registry, name: string, scopes: readonly string[] | undefined): RegisteredTool {
  const entry = registry.byName.get(name);
  if (!entry) {
    const near = closestName(name, [...registry.byName.keys()]);
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Unknown tool: "${name}".${near ? ` Did you mean "${near}"?` : ""} Call tools/list to see the tools this server offers.`,
    );
  }
  if (!permitted(entry.tool, scopes)) {
    throw new ProtocolError(
      ErrorCode.Unauthorized,
      `Insufficient scope: ${name} needs the scope "${entry.tool.scope}".`,
    );
  }
  return entry;
}

/** What a handler sees of its call: cancellation, progress, client log messages, the client's roots. */
function toolContext(
  server: Server,
  session: SessionState,
  { log, outputBudget }: McpServerOptions,
  calledAs: string,
  progressToken: string | number | undefined,
  extra: Extra,
): ToolContext {
  const send = (notification: ServerNotification, what: string) =>
    extra
      .sendNotification(notification)
      .catch((error: Error) => log.debug(`${what} not delivered`, { error: error.message }));
  return {
    signal: extra.signal,
    log,
    calledAs,
    outputBudget,
    notify: (level, logger, message, data) => {
      logToStderr(log, level, logger, message, data);
      if (CLIENT_LOG_LEVELS.indexOf(level) < CLIENT_LOG_LEVELS.indexOf(session.clientLevel)) return;
      void send(
        { method: "notifications/message", params: { level, logger, data: data ? { message, ...data } : message } },
        "log message",
      );
    },
    reportProgress: (progress) => {
      if (progressToken !== undefined)
        void send({ method: "notifications/progress", params: { progressToken, ...progress } }, "progress");
    },
    clientRoots: async () => {
      if (!server.getClientCapabilities()?.roots) return undefined;
      session.roots ??= extra
        .sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: 10_000 })
        .then((result) =>
          result.roots.filter((root) => root.uri.startsWith("file://")).map((root) => fileURLToPath(root.uri)),
        )
        .catch((error: Error) => {
          session.roots = undefined;
          log.warn("could not read the client's roots", { error: error.message });
          return [];
        });
      return session.roots;
    },
  };
}

/**
 * Resources, prompts and completions, shown only from toolsets the caller may use: over HTTP a
 * token that grants none of a toolset's tool scopes sees none of its resources or prompts either.
 */
function installResourceHandlers(server: Server, toolsets: readonly Toolset[]): void {
  const capabilities = capabilitiesOf(toolsets);
  const visibleTo = (extra: Extra): Visible => {
    const scopes = extra.authInfo?.scopes;
    const permitted =
      scopes === undefined
        ? toolsets
        : toolsets.filter((t) => t.tools.some((tool) => isScopeGranted(scopes, tool.scope)));
    const ui = rendersApps(server);
    return {
      resources: permitted.flatMap((t) => t.resources ?? []).filter((resource) => ui || !resource.ui),
      templates: permitted.flatMap((t) => t.resourceTemplates ?? []),
      prompts: permitted.flatMap((t) => t.prompts ?? []),
    };
  };
  if (capabilities.resources) installResources(server, visibleTo);
  if (capabilities.prompts) installPrompts(server, visibleTo);
  if (capabilities.completions) installCompletions(server, visibleTo);
}

interface Visible {
  resources: ResourceDefinition[];
  templates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}
type VisibleTo = (extra: Extra) => Visible;

function installResources(server: Server, visibleTo: VisibleTo): void {
  onRequest(server, ListResourcesRequestSchema, async (_request, extra) => {
    const { resources, templates } = visibleTo(extra);
    return {
      resources: [...resources, ...templates.flatMap((template) => template.list?.() ?? [])].map(
        ({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType }),
      ),
    };
  });
  onRequest(server, ListResourceTemplatesRequestSchema, async (_request, extra) => ({
    resourceTemplates: visibleTo(extra).templates.map(({ uriTemplate, name, title, description, mimeType }) => ({
      uriTemplate,
      name,
      title,
      description,
      mimeType,
    })),
  }));
  onRequest(server, ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const { resources, templates } = visibleTo(extra);
    const fixed = resources.find((resource) => resource.uri === uri);
    if (fixed) return { contents: await fixed.read() };
    for (const template of templates) {
      const variables = matchTemplate(template, uri);
      if (!variables) continue;
      const contents = await template.read(variables, uri);
      if (contents) return { contents };
    }
    throw new ProtocolError(
      ErrorCode.ResourceNotFound,
      `Resource not found: ${uri}. Call resources/list or resources/templates/list for valid URIs.`,
      { uri },
    );
  });
}

function installPrompts(server: Server, visibleTo: VisibleTo): void {
  onRequest(server, ListPromptsRequestSchema, async (_request, extra) => ({
    prompts: visibleTo(extra).prompts.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  }));
  onRequest(server, GetPromptRequestSchema, async (request, extra) => {
    const prompt = visibleTo(extra).prompts.find((candidate) => candidate.name === request.params.name);
    if (!prompt) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown prompt: "${request.params.name}". Call prompts/list to see the prompts.`,
      );
    }
    return prompt.get(request.params.arguments ?? {});
  });
}

function installCompletions(server: Server, visibleTo: VisibleTo): void {
  onRequest(server, CompleteRequestSchema, async (request, extra) => {
    const { ref, argument } = request.params;
    const { prompts, templates } = visibleTo(extra);
    let complete: ((value: string) => string[]) | undefined;
    if (ref.type === "ref/prompt") {
      complete = prompts.find((prompt) => prompt.name === ref.name)?.complete?.[argument.name];
    } else if (ref.type === "ref/resource") {
      complete = templates.find((template) => template.uriTemplate === ref.uri)?.complete?.[argument.name];
    }
    const values = complete ? complete(argument.value) : [];
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
  });
}

const templatePatterns = new WeakMap<ResourceTemplateDefinition, { regex: RegExp; names: string[] }>();

/** Level-1 RFC 6570 matching: each `{name}` matches one non-empty path segment. */
function matchTemplate(template: ResourceTemplateDefinition, uri: string): Record<string, string> | undefined {
  let pattern = templatePatterns.get(template);
  if (!pattern) {
    const names: string[] = [];
    const source = template.uriTemplate
      .split(/(\{[^}]+\})/)
      .map((part) => {
        if (part.startsWith("{") && part.endsWith("}")) {
          names.push(part.slice(1, -1));
          return "([^/?#]+)";
        }
        return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("");
    pattern = { regex: new RegExp(`^${source}$`), names };
    templatePatterns.set(template, pattern);
  }
  const match = pattern.regex.exec(uri);
  if (!match) return undefined;
  return Object.fromEntries(pattern.names.map((name, i) => [name, decodeSegment(match[i + 1], name, uri)]));
}

/** A malformed percent-escape is the client's mistake (-32602), not an internal error. */
function decodeSegment(segment: string, name: string, uri: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid resource URI ${JSON.stringify(uri)}: the ${name} segment "${segment}" has a malformed percent-escape; encode "%" as "%25" and other characters as UTF-8 %XX pairs.`,
      { uri },
    );
  }
}
