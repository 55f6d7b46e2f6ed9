/**
 * mcpkit's protocol core: one table from a JSON-RPC method to the handler that answers it, built
 * once per set of toolsets on the direct-handler registry (`invokeTool`, the path `mcpkit call`
 * takes too). Both eras use it: the legacy edges (mcpkit's own session engine,
 * `src/mcp/legacy/session.ts`, on stdio and over HTTP) and the modern
 * edge (`src/mcp/modern/`). What differs by era (the handshake or the `_meta`
 * envelope, sessions, how the client's roots are asked for, where notifications go) reaches a
 * handler only through `RequestContext`, so no tool knows which era called it.
 *
 * Nothing here imports the MCP SDK: neither era, on stdio or over HTTP, loads it.
 */
import { shortened, shownValue } from "../../core/text.ts";
import { isAbsolute } from "node:path";
import { closestName } from "../../core/did-you-mean.ts";
import { invokeTool } from "../../core/invoke.ts";
import { jsonSchemaOf, runtimeConversions } from "../../core/json-schema.ts";
import { type Logger, SkippedWarnings } from "../../core/log.ts";
import { observeCalls, spanEvent } from "../../core/telemetry/index.ts";
import { logToStderr } from "../../core/client-log.ts";
import {
  CLIENT_LOG_LEVELS,
  type ClientLogLevel,
  ErrorCode,
  type PromptDefinition,
  ProtocolError,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ToolContext,
  type ToolDefinition,
  type Toolset,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from "../../core/tool.ts";
import { isScopeGranted } from "../../core/scopes.ts";
import { Admission, type CallLimits, defaultCallLimits } from "./admission.ts";
import { type Params, optionalRecord, optionalString, requireObject, requireString } from "./params.ts";

/** Which name `tools/list` shows: the portable one (default) or the toolset contract's own. */
export type ToolNaming = "portable" | "seed";

export interface DispatcherOptions {
  toolsets: readonly Toolset[];
  log: Logger;
  toolNames: ToolNaming;
  /** Bytes of text content per tool result (--max-output-bytes). */
  outputBudget: number;
  /**
   * For a name that is no enabled tool: which toolset that is off has it and how to enable it (a
   * sentence), or undefined. Asked only then, so a server never describes its off toolsets otherwise.
   */
  offTool?(name: string): string | undefined;
  /** How many tool calls may run and wait at once (--max-calls…; `admission.ts`); the machine's defaults when absent. */
  callLimits?: CallLimits;
}

/** A tool as `tools/list` shows it (MCP `Tool`). */
export type ToolListing = {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/** What the enabled toolsets offer (MCP `ServerCapabilities`). */
export type Capabilities = {
  tools: { listChanged: boolean };
  logging: Record<string, never>;
  resources?: { listChanged: boolean };
  prompts?: { listChanged: boolean };
  completions?: Record<string, never>;
};

/** What a handler sees of the request it answers; each era's edge builds one per request. */
export interface RequestContext {
  /** Aborts when the client cancels the request or goes away, or the server shuts down. */
  signal: AbortSignal;
  /** The scopes of the caller's token; undefined without authorization (everything is visible). */
  scopes: readonly string[] | undefined;
  /** The client's capabilities (declared at initialize, or in this request's `_meta`). */
  clientCapabilities: Record<string, unknown> | undefined;
  /** Sends a notification about this request (progress, a log message) to the client. */
  notify(method: string, params: Record<string, unknown>): void;
  /** The least severe level the client wants as `notifications/message`; undefined: none at all. */
  logLevel(): ClientLogLevel | undefined;
  /** The client's roots as local paths; undefined when it offers none (or they are not asked for). */
  clientRoots(): Promise<string[] | undefined>;
  /**
   * Whom the per-subject call limit counts this request against: the token's owner, else
   * `UNIDENTIFIED` over HTTP (every caller without a token, sessions too); undefined on stdio.
   */
  readonly subject?: string;
}

export type Handler = (params: Params, context: RequestContext) => Promise<Record<string, unknown>>;

export interface Dispatcher {
  readonly capabilities: Capabilities;
  readonly instructions: string;
  /** The methods the enabled toolsets answer; nothing else is routed here. */
  readonly handlers: ReadonlyMap<string, Handler>;
  /** Admission control of its tool calls, shared by every session and request using it. */
  readonly admission: Admission;
}

interface RegisteredTool {
  toolset: Toolset;
  tool: ToolDefinition;
  listing: ToolListing;
  /** The listing for clients that render MCP Apps: the same plus `_meta.ui.resourceUri`. */
  uiListing: ToolListing;
}

interface Registry {
  /** Every tool by every name it answers to (listed name and seed name). */
  byName: Map<string, RegisteredTool>;
  /** One entry per tool, in toolset order, as `tools/list` shows it (a stable order, so caches hit). */
  listed: RegisteredTool[];
}

/** Tool listings are computed once per set of toolsets and naming, not once per session or request. */
const registryCache = new WeakMap<readonly Toolset[], Partial<Record<ToolNaming, Registry>>>();

function registryOf(toolsets: readonly Toolset[], naming: ToolNaming): Registry {
  const cached = registryCache.get(toolsets) ?? {};
  const hit = cached[naming];
  if (hit) return hit;
  const registry: Registry = { byName: new Map(), listed: [] };
  for (const toolset of toolsets) {
    for (const tool of toolset.tools) {
      const listing: ToolListing = {
        name: naming === "seed" ? (tool.seedName ?? tool.name) : tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: jsonSchemaOf(tool, "input"),
        annotations: tool.annotations as Record<string, unknown>,
      };
      const outputSchema = jsonSchemaOf(tool, "output");
      if (outputSchema) listing.outputSchema = outputSchema;
      // The flat "ui/resourceUri" key is ext-apps' deprecated form, still read by some hosts.
      const uiListing: ToolListing = tool.ui
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
export function capabilitiesOf(toolsets: readonly Toolset[]): Capabilities {
  // `logging`: tools tell the client about retries, skipped directories and partial results.
  const capabilities: Capabilities = { tools: { listChanged: false }, logging: {} };
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

/** What the server tells the model up front: the toolsets and the tools it will find in tools/list. */
export function instructionsFor(toolsets: readonly Toolset[], naming: ToolNaming): string {
  const listed = registryOf(toolsets, naming).listed;
  const parts = toolsets.map((toolset) => {
    const names = listed.filter((entry) => entry.toolset === toolset).map((entry) => entry.listing.name);
    return `${toolset.name} (${names.join(", ")})`;
  });
  return `mcpkit toolsets: ${parts.join("; ")}. Each tool's description says when to use it; errors say how to fix the call.`;
}

const dispatcherCache = new WeakMap<DispatcherOptions, Dispatcher>();

/** The dispatcher for these options, built once however many sessions or requests use it. */
export function dispatcherFor(options: DispatcherOptions): Dispatcher {
  let dispatcher = dispatcherCache.get(options);
  if (!dispatcher) dispatcherCache.set(options, (dispatcher = createDispatcher(options)));
  return dispatcher;
}

function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { toolsets, toolNames } = options;
  const registry = registryOf(toolsets, toolNames);
  // A release binary lists its tools' JSON Schemas from the table it embeds (core/json-schema.ts):
  // 0 here, which test/core/frozen-json-schemas.test.ts reads; from source, every schema.
  options.log.debug("tools listed", { tools: registry.listed.length, schemasConverted: runtimeConversions() });
  const capabilities = capabilitiesOf(toolsets);
  const handlers = new Map<string, Handler>();
  // Without authorization every caller sees the same list: built once and frozen (the object and
  // its array; the listings inside are never changed either), so the transports serialize it once.
  const everything = frozenList(registry.listed.map(({ listing }) => listing));
  const everythingUi = frozenList(registry.listed.map(({ uiListing }) => uiListing));
  handlers.set("tools/list", async (_params, context) => {
    const ui = rendersApps(context.clientCapabilities);
    if (context.scopes === undefined) return ui ? everythingUi : everything;
    return {
      tools: registry.listed
        .filter(({ tool }) => permitted(tool, context.scopes))
        .map(({ listing, uiListing }) => (ui ? uiListing : listing)),
    };
  });
  const admission = new Admission(options.callLimits ?? defaultCallLimits());
  observeCalls(admission);
  // Not an async function: one returning invokeTool's promise would wrap it in a second promise
  // (two more microtask jobs per call); what the checks throw is still a rejection.
  handlers.set("tools/call", (params, context) => {
    try {
      const name = requireString(params, "name", "tools/call");
      const entry = callableTool(registry, name, context.scopes, options.offTool);
      options.log.debug("tools/call", { tool: name });
      // The context is read first: what it throws for a malformed _meta must not hold a slot.
      const toolCall = toolContext(options, name, params, context);
      const slot = admission.admit(context.subject, context);
      if (!(slot instanceof Promise)) return invokeTool(entry.toolset, entry.tool, params.arguments, toolCall, slot);
      options.log.debug("tools/call waits for a slot", { tool: name, waiting: admission.waiting });
      spanEvent("mcpkit.call.queued", { "mcpkit.calls.waiting": admission.waiting });
      return slot.then(
        (admitted) => invokeTool(entry.toolset, entry.tool, params.arguments, toolCall, admitted),
        (cancelled: unknown) => {
          options.log.debug("tools/call left the queue", { tool: name, waiting: admission.waiting });
          throw cancelled;
        },
      );
    } catch (error) {
      return Promise.reject(error);
    }
  });
  const visible = visibility(toolsets);
  if (capabilities.resources) addResourceHandlers(handlers, visible);
  if (capabilities.prompts) addPromptHandlers(handlers, visible);
  if (capabilities.completions) addCompletionHandler(handlers, visible);
  return { capabilities, instructions: instructionsFor(toolsets, toolNames), handlers, admission };
}

function frozenList(tools: ToolListing[]): Record<string, unknown> {
  return Object.freeze({ tools: Object.freeze(tools) });
}

const permitted = (tool: ToolDefinition, scopes: readonly string[] | undefined) =>
  scopes === undefined || isScopeGranted(scopes, tool.scope);

/**
 * Whether the client renders MCP Apps views: it declared the UI extension with the view's mime
 * type. Only such clients see `_meta.ui` on tools and the `ui://` resources.
 */
export function rendersApps(clientCapabilities: Record<string, unknown> | undefined): boolean {
  const extensions = clientCapabilities?.extensions as Record<string, unknown> | undefined;
  const ui = extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(UI_MIME_TYPE);
}

/** The tool a name stands for, when the caller may use it; otherwise the protocol error that says why. */
function callableTool(
  registry: Registry,
  name: string,
  scopes: readonly string[] | undefined,
  offTool: DispatcherOptions["offTool"],
): RegisteredTool {
  const entry = registry.byName.get(name);
  if (!entry) {
    const off = offTool?.(name);
    if (off) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Tool "${name}" is not enabled here: ${off} Tell the user, or call tools/list to see the tools this server offers.`,
      );
    }
    // Only a tool the caller may see is suggested: a near miss must not name one its token hides.
    const visible = [...registry.byName].filter(([, known]) => permitted(known.tool, scopes)).map(([known]) => known);
    const near = closestName(name, visible);
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

/** What a tool's handler sees of its call: cancellation, progress, client log messages, the client's roots. */
function toolContext(
  { log, outputBudget }: DispatcherOptions,
  calledAs: string,
  params: Params,
  context: RequestContext,
): ToolContext {
  const meta = optionalRecord(params, "_meta", "tools/call");
  const token = meta?.progressToken;
  const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
  return {
    // A getter: the signal is made only if the tool asks for it (protocol/lazy-abort.ts).
    get signal() {
      return context.signal;
    },
    log,
    calledAs,
    outputBudget,
    notify: (level, logger, message, data) => {
      logToStderr(log, level, logger, message, data);
      const least = context.logLevel();
      if (least === undefined || CLIENT_LOG_LEVELS.indexOf(level) < CLIENT_LOG_LEVELS.indexOf(least)) return;
      context.notify("notifications/message", { level, logger, data: data ? { message, ...data } : message });
    },
    reportProgress: (progress) => {
      if (progressToken !== undefined) context.notify("notifications/progress", { progressToken, ...progress });
    },
    clientRoots: () => context.clientRoots(),
  };
}

/**
 * The client's roots as local paths, `field` naming where they came from for the log. A root that
 * names no directory here (another scheme, or a file URL that does not decode to a local path) is
 * skipped with a warning saying which and how to fix it, and the others still apply: roots are the
 * client's guidance, a root that does not exist is skipped the same way (toolsets/fs), and one bad
 * entry is no reason to search none. Both eras read roots here, so they treat them alike.
 */
export function localRootPaths(roots: readonly { uri?: unknown }[], field: string, log: Logger): string[] {
  // A client's list may be long: a few lines say what to fix, without one line per bad root.
  const warnings = new SkippedWarnings(log);
  const paths = roots.flatMap((root, index) => {
    const path = localPath(root.uri);
    if (path.ok) return [path.path];
    warnings.skip("ignoring a client root", () => ({
      root: `${field}[${index}]`,
      ...(typeof root.uri === "string" && { uri: shortened(root.uri) }),
      reason: path.reason,
      fix: "send each root as a file:///absolute/path URI (no host, no encoded '/', UTF-8 percent-escapes)",
    }));
    return [];
  });
  warnings.end((more) => `ignoring ${more} more client roots of ${field}`);
  return paths;
}

/** A root's uri as a local absolute path, or why it is none. */
function localPath(uri: unknown): { ok: true; path: string } | { ok: false; reason: string } {
  if (typeof uri !== "string") return { ok: false, reason: '"uri" is not a string' };
  if (!uri.startsWith("file://")) return { ok: false, reason: "not a file:// URI" };
  let path: string;
  try {
    // Throws on a host other than localhost (file://evil/x) and on an encoded slash (%2F).
    path = Bun.fileURLToPath(uri);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  // Percent-escapes that are not UTF-8 (file:///%FF) decode to "", which would resolve to "/".
  if (!isAbsolute(path)) return { ok: false, reason: "it does not decode to an absolute path" };
  return { ok: true, path };
}

// ---------------------------------------------------------------------------------------------
// Resources, prompts and completions

interface Visible {
  resources: ResourceDefinition[];
  templates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}
type VisibleTo = (context: RequestContext) => Visible;

/**
 * Resources, prompts and completions, shown only from toolsets the caller may use: over HTTP a
 * token that grants none of a toolset's tool scopes sees none of its resources or prompts either.
 */
function visibility(toolsets: readonly Toolset[]): VisibleTo {
  return (context) => {
    const { scopes } = context;
    const allowed =
      scopes === undefined
        ? toolsets
        : toolsets.filter((t) => t.tools.some((tool) => isScopeGranted(scopes, tool.scope)));
    const ui = rendersApps(context.clientCapabilities);
    return {
      resources: allowed.flatMap((t) => t.resources ?? []).filter((resource) => ui || !resource.ui),
      templates: allowed.flatMap((t) => t.resourceTemplates ?? []),
      prompts: allowed.flatMap((t) => t.prompts ?? []),
    };
  };
}

function addResourceHandlers(handlers: Map<string, Handler>, visibleTo: VisibleTo): void {
  handlers.set("resources/list", async (_params, context) => {
    const { resources, templates } = visibleTo(context);
    return {
      resources: [...resources, ...templates.flatMap((template) => template.list?.() ?? [])].map(
        ({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType }),
      ),
    };
  });
  handlers.set("resources/templates/list", async (_params, context) => ({
    resourceTemplates: visibleTo(context).templates.map(({ uriTemplate, name, title, description, mimeType }) => ({
      uriTemplate,
      name,
      title,
      description,
      mimeType,
    })),
  }));
  handlers.set("resources/read", async (params, context) => {
    const uri = requireString(params, "uri", "resources/read");
    const { resources, templates } = visibleTo(context);
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

function addPromptHandlers(handlers: Map<string, Handler>, visibleTo: VisibleTo): void {
  handlers.set("prompts/list", async (_params, context) => ({
    prompts: visibleTo(context).prompts.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  }));
  handlers.set("prompts/get", async (params, context) => {
    const name = requireString(params, "name", "prompts/get");
    const args = optionalRecord(params, "arguments", "prompts/get") ?? {};
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== "string") {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Invalid prompts/get request: "arguments.${key}": expected a string, got ${typeof value}.`,
        );
      }
    }
    const prompt = visibleTo(context).prompts.find((candidate) => candidate.name === name);
    if (!prompt) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown prompt: "${name}". Call prompts/list to see the prompts.`,
      );
    }
    return prompt.get(args as Record<string, string>);
  });
}

function addCompletionHandler(handlers: Map<string, Handler>, visibleTo: VisibleTo): void {
  handlers.set("completion/complete", async (params, context) => {
    const ref = requireObject(params, "ref", "completion/complete");
    const argument = requireObject(params, "argument", "completion/complete");
    const argumentName = requireString(argument, "name", "completion/complete", "argument.name");
    const value = requireString(argument, "value", "completion/complete", "argument.value");
    const { prompts, templates } = visibleTo(context);
    let complete: ((value: string) => string[]) | undefined;
    if (ref.type === "ref/prompt") {
      const name = requireString(ref, "name", "completion/complete", "ref.name");
      complete = prompts.find((prompt) => prompt.name === name)?.complete?.[argumentName];
    } else if (ref.type === "ref/resource") {
      const uri = requireString(ref, "uri", "completion/complete", "ref.uri");
      complete = templates.find((template) => template.uriTemplate === uri)?.complete?.[argumentName];
    } else {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Invalid completion/complete request: "ref.type" must be "ref/prompt" or "ref/resource" (got ${shownValue(ref.type ?? null)}).`,
      );
    }
    const values = complete ? complete(value) : [];
    optionalString(params, "cursor", "completion/complete");
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
      `Invalid resource URI ${shownValue(uri, 200)}: the ${name} segment ${shownValue(segment)} has a malformed percent-escape; encode "%" as "%25" and other characters as UTF-8 %XX pairs.`,
      { uri },
    );
  }
}
