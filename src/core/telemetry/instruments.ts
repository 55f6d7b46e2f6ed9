/**
 * The metric instruments: the MCP semantic conventions' two server histograms (seconds, the
 * conventions' buckets), HTTP client duration for upstream requests, and what an operator of a
 * shared server asks first (sessions and subscriptions open, tool calls in flight and refused).
 * Names outside the conventions carry the `mcpkit.` prefix. The counters of a toolset or of the
 * authorization server are declared where they are bumped (`defineCounter`) and made here at the
 * first count.
 */
import type { Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import type { CallCounts, CounterSpec, OpenSubscriptions } from "./index.ts";

/** docs/gen-ai/mcp.md: explicit bucket boundaries for both MCP duration histograms. */
const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The HTTP semantic conventions' boundaries for `http.client.request.duration`. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export interface Instruments {
  operationDuration: Histogram;
  sessionDuration: Histogram;
  upstreamDuration: Histogram;
  sessionsOpen: UpDownCounter;
  /** The admission controls whose calls running and waiting are reported (one per dispatcher). */
  callSources: Set<CallCounts>;
  /** What holds open subscriptions (one per stdio connection or HTTP server), reported summed. */
  subscriptionSources: Set<OpenSubscriptions>;
  callsRefused: Counter;
  /** The instrument of a declared counter, made at its first count. */
  counter(spec: CounterSpec): Counter;
}

export function createInstruments(meter: Meter): Instruments {
  const callSources = new Set<CallCounts>();
  const subscriptionSources = new Set<OpenSubscriptions>();
  const declared = new Map<string, Counter>();
  /** What a gauge reports: `count` summed over every source registered (one per dispatcher, connection or server). */
  const sum = <Source>(sources: Set<Source>, count: (source: Source) => number) => {
    let total = 0;
    for (const source of sources) total += count(source);
    return total;
  };
  meter
    .createObservableGauge("mcpkit.calls.running", {
      unit: "{call}",
      description: "Tool calls running now (admission control, --max-calls).",
    })
    .addCallback((result) => result.observe(sum(callSources, (source) => source.running)));
  meter
    .createObservableGauge("mcpkit.calls.waiting", {
      unit: "{call}",
      description: "Tool calls waiting for a slot now (--max-queued-calls).",
    })
    .addCallback((result) => result.observe(sum(callSources, (source) => source.waiting)));
  meter
    .createObservableGauge("mcpkit.subscriptions.open", {
      unit: "{subscription}",
      description: "Subscriptions (subscriptions/listen, 2026-07-28 era) open now.",
    })
    .addCallback((result) => result.observe(sum(subscriptionSources, (open) => open.size)));
  return {
    operationDuration: meter.createHistogram("mcp.server.operation.duration", {
      unit: "s",
      description:
        "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
      advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS },
    }),
    sessionDuration: meter.createHistogram("mcp.server.session.duration", {
      unit: "s",
      description: "The duration of the MCP session as observed on the MCP server.",
      advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS },
    }),
    upstreamDuration: meter.createHistogram("http.client.request.duration", {
      unit: "s",
      description: "Duration of HTTP requests to upstreams (BOJ, craboj, the identity provider).",
      advice: { explicitBucketBoundaries: HTTP_DURATION_BUCKETS },
    }),
    sessionsOpen: meter.createUpDownCounter("mcpkit.sessions.open", {
      unit: "{session}",
      description: "MCP sessions (2025-11-25 era) open now.",
    }),
    callSources,
    subscriptionSources,
    callsRefused: meter.createCounter("mcpkit.calls.refused", {
      unit: "{call}",
      description: "tools/call requests refused by admission control, by mcpkit.limit (server or subject).",
    }),
    counter: ({ name, unit, description }) => {
      let made = declared.get(name);
      if (!made) {
        made = meter.createCounter(name, { unit, description });
        declared.set(name, made);
      }
      return made;
    },
  };
}
