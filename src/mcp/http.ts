/** `mcpkit --http`: the code lives in `./http/` (pipeline in `./http/pipeline.ts`); this is the entry the CLI loads. */
export { type HttpServerHandle, serveHttp } from "./http/serve.ts";
