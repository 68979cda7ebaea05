/**
 * `rllm/algorithms`: the RL maths of rllm, pure functions with no I/O — grouping, filters,
 * advantage estimators, episodes → training rows, loss specs, the learning-rate schedule. Read the
 * modules in this order: grouping → filters → advantages → datums → loss → pipeline (which composes
 * them).
 */
export {
  type AdvantageEstimator,
  assertFiniteRewards,
  BUILTIN_ESTIMATORS,
  type BuiltinEstimatorName,
  DEFAULT_EPSILON,
  discountedReturns,
  distillationAdvantages,
  drGrpo,
  type EstimatorOptions,
  EstimatorRegistry,
  estimatorForRole,
  estimators,
  grpo,
  PRECOMPUTED,
  prpo,
  reinforce,
  reinforcePlusPlusBaseline,
  rloo,
} from "../algorithms/advantages.js";
export {
  broadcastAdvantage,
  buildDatums,
  type DatumOptions,
  type DatumStats,
  datumMetrics,
  emptyDatumStats,
  hasPrefix,
  perStepAdvantages,
  type RowSource,
  trajectoryToDatums,
} from "../algorithms/datums.js";
export {
  type GroupDropReason,
  groupDropReason,
  isSettledGroup,
  isSolved,
  isTruncated,
  type MaskReason,
  maskReasonOf,
  type OverlongPenalty,
  overlongPenalty,
  type RejectionDecision,
  RejectionSampler,
  type RejectionSamplingOptions,
  responseLength,
  splitInfraFailed,
} from "../algorithms/filters.js";
export {
  DEFAULT_ROLE,
  type Group,
  type GroupMember,
  groupEpisodes,
  groupIdOf,
  groupsByRole,
  roleOf,
  weightVersionsOf,
} from "../algorithms/grouping.js";
export {
  type Aggregation,
  AggregationSchema,
  aggregationScale,
  CispoLossSchema,
  CrossEntropyLossSchema,
  ImportanceSamplingLossSchema,
  type KlEstimator,
  KlEstimatorSchema,
  type LossKind,
  type LossRow,
  type LossSpec,
  type LossSpecInput,
  LossSpecSchema,
  PpoLossSchema,
  type ReferenceLossResult,
  referenceLoss,
  type TokenLoss,
  type TokenLossInput,
  tokenLoss,
} from "../algorithms/loss.js";
export {
  GROUP_REWARD_PERCENTILES,
  type GroupSummary,
  type RoleSummary,
  roleMetrics,
} from "../algorithms/metrics.js";
export {
  type AlgorithmConfig,
  type AlgorithmConfigInput,
  AlgorithmConfigSchema,
  episodesToDatums,
  OverlongConfigSchema,
  type PipelineResult,
  RejectionSamplingConfigSchema,
  type ScoredGroup,
  type ScoredMember,
} from "../algorithms/pipeline.js";
export { type LrSchedule, learningRate } from "../algorithms/schedule.js";
export type { StdKind } from "../algorithms/stats.js";
