export {
  harborLinks,
  type OpenTaskEnvironmentOptions,
  openTaskEnvironment,
  type TaskEnvironment,
  VERIFIER_OUTPUT_CHARS,
  VerifierError,
  type VerifierResult,
} from "./environment.js";
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
