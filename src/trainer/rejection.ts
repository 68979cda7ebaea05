/**
 * algorithm.rejectionSampling in the trainer: DAPO's dynamic sampling. A step's batch is drawn as
 * usual; groups with nothing to learn from (every reward alike, or fewer than two scored
 * rollouts) are rejected, and more tasks are drawn at the same weights until `batchSize` groups
 * are accepted or `maxDraws` draws were made (the first included). The sizes of the extra draws,
 * what counts as accepted and the `rejection/*` metrics are the RejectionSampler's
 * (algorithms/filters.ts); this file only runs the draws.
 *
 * The step trains the first `batchSize` accepted groups (fewer after the last draw); every other
 * group generated for it is consumed untrained (consumed.jsonl lists it under `rejected`), so a
 * resume neither runs it again nor loses a task.
 */
import { RejectionSampler } from "../algorithms/filters.js";
import type { RllmConfig } from "../config/index.js";
import type { Group } from "./producer.js";

interface RejectionResult {
  trained: Group[];
  rejected: Group[];
  metrics: Record<string, number>;
}

export async function rejectionSample(
  first: readonly Group[],
  /** Generates `n` more groups at the current weights (fewer when the data runs out). */
  draw: (n: number) => Promise<Group[]>,
  options: RllmConfig["algorithm"]["rejectionSampling"] & { targetGroups: number },
): Promise<RejectionResult> {
  const sampler = new RejectionSampler({
    targetGroups: options.targetGroups,
    maxDraws: options.maxDraws,
    oversample: options.oversample,
    ...(options.maxDrawSize !== undefined ? { maxDrawSize: options.maxDrawSize } : {}),
  });
  const drawn = [...first];
  let decision = sampler.add(first.flatMap((g) => g.episodes));
  while (!decision.done) {
    const more = await draw(decision.nextDrawTasks);
    if (more.length === 0) break; // the data is used up: the batch is what was accepted
    drawn.push(...more);
    decision = sampler.add(more.flatMap((g) => g.episodes));
  }
  const { episodes, metrics } = sampler.result();
  const kept = new Set(episodes);
  const trained = drawn.filter((g) => g.episodes.some((e) => kept.has(e)));
  const rejected = drawn.filter((g) => !g.episodes.some((e) => kept.has(e)));
  const scored = drawn.flatMap((g) => g.episodes).filter((e) => !e.infraFailed);
  metrics["rejection/reward_mean_drawn"] = scored.length
    ? scored.reduce((a, e) => a + (e.reward ?? 0), 0) / scored.length
    : 0;
  return { trained, rejected, metrics };
}
