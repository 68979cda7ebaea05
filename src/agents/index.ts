export {
  type HarnessAgentOptions,
  HarnessAgentOptionsSchema,
  harnessAgent,
} from "./harness/agent.js";
export {
  HarnessNotInstalledError,
  installHarness,
  type LocatedHarness,
  locateHarness,
} from "./harness/install.js";
export { HARNESSES, harnessDefinition, harnessNames } from "./harness/registry.js";
export type {
  HarnessContext,
  HarnessDefinition,
  HarnessDialect,
  HarnessFile,
  HarnessSetup,
} from "./harness/types.js";
export { type ToolAgentOptions, ToolAgentOptionsSchema, toolAgent } from "./tool-agent.js";
export {
  clip,
  runToolCall,
  TOOLS,
  type ToolContext,
  type ToolOutcome,
  toolSpecs,
} from "./tools.js";
