/**
 * A catalog entry's default agent and evaluator: one chat call with the benchmark's prompts, scored
 * by its grader on the final assistant message. `rllm eval` and training validation share these.
 */
import { getGrader } from "../rewards/index.js";
import { chatAgent, type Evaluator, evaluator, finalResponse, type Rollout } from "../sdk/index.js";
import type { Episode } from "../types/index.js";
import { benchmarkMessages } from "./catalog.js";
import type { BenchmarkEntry } from "./entry.js";
import { verifierEvaluator } from "./harbor.js";

export function defaultRollout(entry: BenchmarkEntry): Rollout {
  if (entry.defaultAgent !== "single-turn")
    throw new Error(
      `${entry.name}'s default agent is the ${entry.defaultAgent}, which the CLI makes (agents/); pass an agent`,
    );
  return chatAgent({ name: `${entry.name}-chat`, messages: (t) => benchmarkMessages(entry, t) });
}

export function defaultEvaluator(entry: BenchmarkEntry): Evaluator<Episode> {
  if (entry.grader === "verifier") return verifierEvaluator();
  const grade = getGrader(entry.grader);
  return evaluator<Episode>((task, episode) => grade(task, finalResponse(episode)));
}
