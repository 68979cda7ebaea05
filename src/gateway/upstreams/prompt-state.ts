import type { ChatCompletionRequest } from "../../types/index.js";
import type { ChatOutcome, PromptState } from "./types.js";

/**
 * What a session keeps of a call so that token-in/token-out can extend the next prompt: the
 * messages sent, the prompt ids and each choice's sampled ids. Nothing when the upstream gave no
 * ids (a hosted API), since then there is nothing to extend.
 */
export function promptStateOf(
  request: ChatCompletionRequest,
  outcome: ChatOutcome,
): PromptState | undefined {
  if (!outcome.promptIds || outcome.choices.some((c) => !c.completionIds)) return undefined;
  return {
    messages: request.messages,
    promptIds: outcome.promptIds,
    choices: outcome.completion.choices.map((c, i) => ({
      completionIds: outcome.choices[i]!.completionIds!,
      message: c.message,
    })),
    ...(outcome.renderKey !== undefined ? { renderKey: outcome.renderKey } : {}),
  };
}
