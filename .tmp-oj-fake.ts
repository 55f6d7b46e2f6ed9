import { startFakeCraboj } from "./src/toolsets/oj/fixtures/fake-craboj.ts";
const f = startFakeCraboj({ port: 47123 });
console.log(f.url);
