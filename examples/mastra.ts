/**
 * A Mastra agent (@mastra/core 1.71): an `Agent` with a calculator tool made by `createTool`,
 * `generate` looping over tool calls. rllm's part is two lines: the `rollout()` wrap, and the
 * model given as an OpenAI-compatible endpoint, the rollout's session (`config.baseURL`,
 * `config.apiKey`).
 *
 *   npx rllm eval gsm8k --agent examples/mastra.ts --max-examples 10
 */
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";
import { rollout } from "../src/sdk/index.js"; // in your project: from "rllm"
import { CALCULATOR_DESCRIPTION, calculator, INSTRUCTIONS } from "./calculator.js";

const calculatorTool = createTool({
  id: "calculator",
  description: CALCULATOR_DESCRIPTION,
  inputSchema: z.object({ expression: z.string() }),
  execute: async ({ expression }) => calculator(expression),
});

export default rollout(
  async (task, config) => {
    const agent = new Agent({
      id: "math",
      name: "math",
      instructions: INSTRUCTIONS,
      model: {
        providerId: "rllm",
        modelId: config.model,
        url: config.baseURL,
        apiKey: config.apiKey,
      },
      tools: { calculator: calculatorTool },
    });
    await agent.generate(String(task.data.question), {
      maxSteps: 5,
      abortSignal: config.signal,
    });
    // Nothing returned: the gateway's traces of the session are the episode.
  },
  { name: "mastra" },
);
