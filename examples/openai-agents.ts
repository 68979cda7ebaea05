/**
 * An OpenAI Agents JS agent (@openai/agents 0.20): an `Agent` with a calculator function tool, run
 * by a `Runner` over the Responses API (the SDK's default). rllm's part is two lines: the
 * `rollout()` wrap, and the runner's OpenAIProvider pointed at the rollout's session
 * (`config.baseURL`, `config.apiKey`). A Runner per rollout, not `setDefaultOpenAIClient`: the
 * rollouts run at once, each in a session of its own.
 *
 *   npx rllm eval gsm8k --agent examples/openai-agents.ts --max-examples 10
 */
import { Agent, OpenAIProvider, Runner, tool } from "@openai/agents";
import { z } from "zod";
import { rollout } from "../src/sdk/index.js"; // in your project: from "rllm"
import { CALCULATOR_DESCRIPTION, calculator, INSTRUCTIONS } from "./calculator.js";

const calculatorTool = tool({
  name: "calculator",
  description: CALCULATOR_DESCRIPTION,
  parameters: z.object({ expression: z.string() }),
  execute: async ({ expression }) => calculator(expression),
});

export default rollout(
  async (task, config) => {
    const agent = new Agent({
      name: "math",
      instructions: INSTRUCTIONS,
      model: config.model,
      tools: [calculatorTool],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ baseURL: config.baseURL, apiKey: config.apiKey }),
      tracingDisabled: true, // no trace export to OpenAI: the gateway records the calls
    });
    await runner.run(agent, String(task.data.question), { maxTurns: 5, signal: config.signal });
    // Nothing returned: the gateway's traces of the session are the episode.
  },
  { name: "openai-agents" },
);
