/** A benchmark's default agent: its one chat call, or the built-in tool agent (Harbor tasks). */
import { toolAgent } from "../agents/tool-agent.js";
import { type BenchmarkEntry, defaultRollout } from "../benchmarks/index.js";
import type { Rollout } from "../sdk/index.js";

export function benchmarkRollout(entry: BenchmarkEntry): Rollout {
  return entry.defaultAgent === "tool-agent" ? toolAgent() : defaultRollout(entry);
}
