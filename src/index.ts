/**
 * `rllm`: the public API, by who uses it. Everything not named here is internal and may change.
 *
 *   agent authors   rollout, evaluator, the data types, helpers that hand an agent its session
 *   runners         the engine (eval), AgentTrainer and runSft (training), config loading,
 *                   benchmarks, graders, sandboxes, the local backend
 *   and the three narrower entry points, re-exported whole:
 *     rllm/algorithms  the RL maths (./public/algorithms.ts)
 *     rllm/backend     the training-backend SPI (./public/backend.ts)
 *     rllm/gateway     the gateway and its store (./public/gateway.ts)
 */

// The built-in tool-calling agent (bash, files and submit in the task's sandbox, MCP servers' tools); the coding-agent
// CLIs (Claude Code, opencode, Qwen Code, ...) run unchanged as the agent; the task environment
// every agent that acts opens (a Harbor task's sandbox and verifier).
export {
  type HarnessAgentOptions,
  type HarnessDefinition,
  harnessAgent,
  harnessNames,
  installHarness,
  type McpServerOptions,
  openTaskEnvironment,
  type TaskEnvironment,
  type ToolAgent,
  type ToolAgentOptions,
  ToolAgentOptionsSchema,
  toolAgent,
  VerifierError,
  type VerifierResult,
} from "./agents/index.js";
// The embedded local backend (a small transformer trained on the CPU, in worker threads).
export { LocalBackend } from "./backends/local/backend.js";
// The local model's chat format, for runSft's renderer.
export { renderSft } from "./backends/local/chat-format.js";
export type { LocalBackendConfig, LocalBackendConfigInput } from "./backends/local/config.js";
// Built-in benchmarks: the catalog, dataset loading, task generators.
export {
  type BenchmarkEntry,
  type BenchmarkGenerator,
  BenchmarkRowError,
  type BenchmarkSource,
  benchmarkMessages,
  COUNTDOWN_PRESETS,
  type CountdownConfig,
  type CountdownData,
  type CountdownDifficulty,
  type CountdownOp,
  type CountdownOptions,
  defaultEvaluator,
  defaultRollout,
  generateCountdown,
  getBenchmark,
  HarborTaskError,
  HubDownloadError,
  type LoadBenchmarkOptions,
  listBenchmarks,
  loadBenchmark,
  loadHarborTasks,
  loadRows,
  type Row,
  verifierEvaluator,
} from "./benchmarks/index.js";
// The one config: defaults ← file ← environment ← flags.
export {
  ConfigError,
  type ConfigLayer,
  type LoadConfigOptions,
  loadConfig,
  type OptimConfig,
  parseConfig,
  type RllmConfig,
  type RllmConfigInput,
  RllmConfigSchema,
  type TrainerConfig,
} from "./config/index.js";
// Evaluation: run rollouts through a gateway, score them, summarize pass@k.
export {
  createProgress,
  type EngineMetrics,
  type EngineOptions,
  type EngineResult,
  type EvalItem,
  type EvalResults,
  episodeWriter,
  formatSummary,
  type GatewayHandle,
  GatewayUnavailableError,
  InProcessGateway,
  type Progress,
  type ProgressOptions,
  type ProgressState,
  passAtK,
  RemoteGateway,
  runRollouts,
  type SessionHandle,
  summarize,
  TraceJoinError,
} from "./engine/index.js";
// The narrower entry points, whole: rllm/algorithms, rllm/backend, rllm/gateway.
export * from "./public/algorithms.js";
export * from "./public/backend.js";
export * from "./public/gateway.js";
// Graders and the answer checks they are built from.
export {
  type ChoiceExtraction,
  type CodeGraderOptions,
  type CountdownExpr,
  type CountdownGraderOptions,
  type CountdownParse,
  codeGrader,
  configureJudge,
  countdownGrader,
  createJudge,
  directEndpoint,
  extractChoice,
  extractMathAnswer,
  extractProgram,
  extractQaAnswer,
  type Grader,
  type GraderName,
  getGrader,
  graderNames,
  graders,
  isGraderName,
  type Judge,
  type JudgeAnswer,
  type JudgeCache,
  type JudgeEndpoint,
  type JudgeGraderOptions,
  type JudgeOptions,
  type JudgeQuestion,
  type JudgeRoute,
  judgeGrader,
  lastAnswerLine,
  lastBoxed,
  lastTagContent,
  llmEqualityGrader,
  type MathAnswerSource,
  type MathEqualOptions,
  mathAnswersEqual,
  mathGrader,
  multipleChoiceGrader,
  normalizeMathAnswer,
  normalizeQaAnswer,
  parseCountdownEquation,
  qaEmGrader,
  qaExactMatch,
  qaF1,
  qaF1Grader,
  sharedJudge,
} from "./rewards/index.js";
// Where untrusted code runs: the sandbox protocol, its backends and pools.
export {
  closeSharedSandboxes,
  configureSandboxes,
  createSandboxBackend,
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxBackend,
  type SandboxConfig,
  SandboxConfigSchema,
  SandboxError,
  type SandboxFile,
  type SandboxLimits,
  SandboxPool,
  type SandboxSnapshot,
  type SandboxSource,
  type SandboxSpec,
  sharedSandboxes,
} from "./sandbox/index.js";
// For agent authors: wrap an agent and its scoring; hand an agent its session.
export {
  AgentHttpError,
  AgentProcessError,
  type ChatAgentOptions,
  chatAgent,
  currentSession,
  type Evaluator,
  type EvaluatorFn,
  evaluator,
  finalResponse,
  isEvaluator,
  isRollout,
  loadEvaluator,
  loadRollout,
  type ProcessRolloutOptions,
  processRollout,
  type Rollout,
  type RolloutConfig,
  type RolloutFn,
  rollout,
  sessionEnv,
} from "./sdk/index.js";
// Where a run's metrics go: AgentTrainerOptions.metricsSinks adds sinks to the two defaults.
export {
  JsonlMetricsSink,
  type Metrics,
  type MetricsRun,
  type MetricsSink,
  StoreMetricsSink,
} from "./store/metrics.js";
// Supervised fine-tuning on any backend.
export {
  type LoadSftOptions,
  loadSftFile,
  runSft,
  type SftBackend,
  SftDataError,
  type SftExample,
  type SftOptions,
  type SftRenderer,
  type SftResult,
  type SftStepMetrics,
  tokenizeSftRows,
} from "./trainer/sft.js";
// RL training: `new AgentTrainer({...}).train()`.
export {
  AgentTrainer,
  type AgentTrainerConfig,
  type AgentTrainerOptions,
  type StepMetrics,
  type TrainResult,
} from "./trainer/trainer.js";
// The data model: zod schemas and their types.
export {
  type ChatCompletion,
  type ChatCompletionChoice,
  type ChatCompletionChunk,
  type ChatCompletionChunkChoice,
  type ChatCompletionRequest,
  ChatCompletionRequestSchema,
  type ChatMessage,
  ChatMessageSchema,
  type ContentPart,
  ContentPartSchema,
  contentText,
  type Datum,
  DatumSchema,
  type Episode,
  type EpisodeInput,
  EpisodeSchema,
  type EvalOutput,
  EvalOutputSchema,
  type FinishReason,
  InfrastructureError,
  type SamplingParams,
  SamplingParamsSchema,
  type Step,
  type StepInput,
  StepSchema,
  type Task,
  TaskSchema,
  type TerminationReason,
  TerminationReasonSchema,
  type TokenLogprob,
  type TokenSource,
  TokenSourceSchema,
  type Tool,
  type ToolCall,
  ToolCallSchema,
  ToolSchema,
  type TraceChoice,
  TraceChoiceSchema,
  type TraceRecord,
  TraceRecordSchema,
  type Trajectory,
  type TrajectoryGroup,
  TrajectoryGroupSchema,
  TrajectorySchema,
  type Usage,
} from "./types/index.js";

export { VERSION } from "./version.js";
