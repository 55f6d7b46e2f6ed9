/**
 * The MCP Registry entry (server.json, schema 2025-12-11) for a release: one mcpb package per
 * bundle built (release URL + fileSha256, which the registry requires for mcpb) and the npm
 * launcher package. Published with `mcp-publisher publish` after the GitHub release exists.
 */
export const SERVER_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/** Configuration every package reads from the environment (see mcpkit --help). */
const ENVIRONMENT = [
  {
    name: "MCPKIT_ROOTS",
    description: "Directories fs_search_by_time may search, separated by the OS path delimiter",
    format: "filepath",
  },
  { name: "MCPKIT_TOOLSETS", description: "Comma list of toolsets to run: boj, oj, fs" },
  { name: "OJ_BASE_URL", description: "Base URL of the craboj API for the oj toolset" },
  { name: "OJ_TOKEN", description: "Token for the craboj API", isSecret: true },
];

export function registryName(repository: string): string {
  return `io.github.${repository}`;
}

export function renderServerJson(options: {
  version: string;
  repository: string;
  bundles: { url: string; sha256: string }[];
  npmPackage?: string;
}): Record<string, unknown> {
  const { version, repository } = options;
  const stdio = { type: "stdio" };
  return {
    $schema: SERVER_SCHEMA,
    name: registryName(repository),
    title: "mcpkit",
    description: "MCP server with toolsets for BOJ statistics, online judges and file search",
    version,
    repository: { url: `https://github.com/${repository}`, source: "github" },
    websiteUrl: `https://github.com/${repository}`,
    packages: [
      ...options.bundles.map((bundle) => ({
        registryType: "mcpb",
        identifier: bundle.url,
        version,
        fileSha256: bundle.sha256,
        transport: stdio,
      })),
      ...(options.npmPackage
        ? [
            {
              registryType: "npm",
              registryBaseUrl: "https://registry.npmjs.org",
              identifier: options.npmPackage,
              version,
              transport: stdio,
              environmentVariables: ENVIRONMENT,
            },
          ]
        : []),
    ],
  };
}
