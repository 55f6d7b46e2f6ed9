/**
 * The last step with `--stateless`: a fresh legacy session engine and transport per request
 * (`legacy-endpoint.ts`), closed once the request is answered. The answer is JSON, or a stream when
 * the call reports progress or runs long (`session-transport.ts`); no session id is issued or checked.
 */
import { openLegacyHttp } from "./legacy-endpoint.ts";
import type { Middleware } from "./middleware.ts";
import { keepAliveMs } from "./sse.ts";
import type { HttpState } from "./state.ts";

export function stateless(state: HttpState): Middleware {
  return async ({ request, message, caller }) => {
    const { transport } = openLegacyHttp(state.serverOptions, { keepAliveMs: keepAliveMs(state.config.idleTimeoutS) });
    // Shutdown's grace over, a call still running is answered with the reason, as a session's would be.
    const call = { cancel: (reason: string) => transport.requests.cancelAll(reason) };
    state.statelessCalls.add(call);
    const done = () => {
      state.statelessCalls.delete(call);
      void transport.close();
    };
    let response: Response;
    try {
      response = await transport.handleRequest(request, message, caller?.authInfo, caller?.owner);
    } catch (error) {
      done();
      throw error;
    }
    // An answer that became a stream is still being written: the engine lives until its response is out.
    if (transport.requests.size > 0) void transport.requests.whenIdle().then(done);
    else done();
    return response;
  };
}
