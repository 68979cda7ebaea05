export {
  harborLinks,
  type OpenTaskEnvironmentOptions,
  openTaskEnvironment,
  type TaskEnvironment,
  VERIFIER_OUTPUT_CHARS,
  VerifierError,
  type VerifierResult,
} from "./environment.js";
export { type ToolAgentOptions, ToolAgentOptionsSchema, toolAgent } from "./tool-agent.js";
export {
  clip,
  runToolCall,
  TOOLS,
  type ToolContext,
  type ToolOutcome,
  toolSpecs,
} from "./tools.js";
