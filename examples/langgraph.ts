/**
 * A LangGraph.js agent (@langchain/langgraph 1.7, @langchain/openai): the ReAct graph built by hand
 * as LangGraph's docs show it — a model node, a ToolNode with the calculator, `toolsCondition`
 * between them. rllm's part is two lines: the `rollout()` wrap, and ChatOpenAI pointed at the
 * rollout's session (`config.baseURL`, `config.apiKey`).
 *
 *   npx rllm eval gsm8k --agent examples/langgraph.ts --max-examples 10
 */
import { SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { rollout } from "../src/sdk/index.js"; // in your project: from "rllm"
import { CALCULATOR_DESCRIPTION, calculator, INSTRUCTIONS } from "./calculator.js";

const calculatorTool = tool(async ({ expression }) => calculator(expression), {
  name: "calculator",
  description: CALCULATOR_DESCRIPTION,
  schema: z.object({ expression: z.string() }),
});

function buildGraph(llm: ChatOpenAI) {
  const model = llm.bindTools([calculatorTool]);
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [await model.invoke([new SystemMessage(INSTRUCTIONS), ...state.messages])],
    }))
    .addNode("tools", new ToolNode([calculatorTool]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile();
}

export default rollout(
  async (task, config) => {
    const llm = new ChatOpenAI({
      model: config.model,
      apiKey: config.apiKey,
      configuration: { baseURL: config.baseURL },
    });
    await buildGraph(llm).invoke(
      { messages: [{ role: "user", content: String(task.data.question) }] },
      { recursionLimit: 10, signal: config.signal },
    );
    // Nothing returned: the gateway's traces of the session are the episode.
  },
  { name: "langgraph" },
);
