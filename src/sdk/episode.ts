import type { Episode } from "../types/index.js";

/** The text of the final assistant message: what graders score. */
export function finalResponse(episode: Pick<Episode, "trajectories">): string {
  for (let i = episode.trajectories.length - 1; i >= 0; i--) {
    const steps = episode.trajectories[i]!.steps;
    for (let j = steps.length - 1; j >= 0; j--) {
      const content = steps[j]!.response?.content;
      if (typeof content === "string") return content;
    }
  }
  return "";
}
