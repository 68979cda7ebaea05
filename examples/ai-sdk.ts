/**
 * A Vercel AI SDK agent (ai 7, @ai-sdk/openai-compatible): `generateText` with a calculator tool,
 * looping until the model answers without a tool call. rllm's part is two lines: the `rollout()`
 * wrap, and the provider pointed at the rollout's session (`config.baseURL`, `config.apiKey`).
 *
 *   npx rllm eval gsm8k --agent examples/ai-sdk.ts --max-examples 10
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, isStepCount, tool } from "ai";
import { z } from "zod";
import { rollout } from "../src/sdk/index.js"; // in your project: from "rllm"
import { CALCULATOR_DESCRIPTION, calculator, INSTRUCTIONS } from "./calculator.js";

const tools = {
  calculator: tool({
    description: CALCULATOR_DESCRIPTION,
    inputSchema: z.object({ expression: z.string() }),
    execute: async ({ expression }) => calculator(expression),
  }),
};

export default rollout(
  async (task, config) => {
    const provider = createOpenAICompatible({
      name: "rllm",
      baseURL: config.baseURL,
      apiKey: config.apiKey,
    });
    await generateText({
      model: provider.chatModel(config.model),
      system: INSTRUCTIONS,
      prompt: String(task.data.question),
      tools,
      stopWhen: isStepCount(5),
      abortSignal: config.signal,
    });
    // Nothing returned: the gateway's traces of the session are the episode.
  },
  { name: "ai-sdk" },
);
