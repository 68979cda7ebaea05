export {
  type McpServerOptions,
  McpServerOptionsSchema,
  McpServers,
  McpServersSchema,
} from "./mcp.js";
export {
  type ToolAgent,
  type ToolAgentOptions,
  ToolAgentOptionsSchema,
  toolAgent,
} from "./tool-agent.js";
export {
  builtinToolbox,
  clip,
  runToolCall,
  TOOLS,
  type Toolbox,
  type ToolContext,
  type ToolOutcome,
  type ToolSpec,
  toolSpecs,
} from "./tools.js";
