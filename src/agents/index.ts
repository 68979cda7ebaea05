export { type ToolAgentOptions, ToolAgentOptionsSchema, toolAgent } from "./tool-agent.js";
export {
  clip,
  runToolCall,
  TOOLS,
  type ToolContext,
  type ToolOutcome,
  toolSpecs,
} from "./tools.js";
