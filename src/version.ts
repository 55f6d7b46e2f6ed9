import packageJson from "../package.json" with { type: "json" };

/** The one version string of mcpkit: package.json's, baked into the binary at build time. */
export const VERSION: string = packageJson.version;
export const NAME = "mcpkit";
