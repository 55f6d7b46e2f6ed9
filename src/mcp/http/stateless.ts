/** The last step with `--stateless`: a fresh server per request, answering with plain JSON, closed right after. */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer } from "../server.ts";
import type { Middleware } from "./middleware.ts";
import type { HttpState } from "./state.ts";

export function stateless(state: HttpState): Middleware {
  return async ({ request, message, caller }) => {
    const server = createMcpServer(state.serverOptions);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: state.config.maxBodyBytes,
    });
    await server.connect(transport);
    state.statelessInFlight++;
    try {
      return await transport.handleRequest(request, { parsedBody: message?.body, authInfo: caller?.authInfo });
    } finally {
      state.statelessInFlight--;
      void server.close();
    }
  };
}
