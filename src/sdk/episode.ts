import type { Episode } from "../types/index.js";

/**
 * What graders score: the answer an agent submitted (`info.answer`, a string: the tool agent's
 * `submit`), else the text of the final assistant message.
 */
export function finalResponse(
  episode: Pick<Episode, "trajectories"> & { info?: Record<string, unknown> | undefined },
): string {
  if (typeof episode.info?.answer === "string") return episode.info.answer;
  for (let i = episode.trajectories.length - 1; i >= 0; i--) {
    const steps = episode.trajectories[i]!.steps;
    for (let j = steps.length - 1; j >= 0; j--) {
      const content = steps[j]!.response?.content;
      if (typeof content === "string") return content;
    }
  }
  return "";
}
