/**
 * `rllm/backend`: the training-backend SPI, for authors of a backend (torch, Tinker, a hosted
 * fine-tuning API). The contract (`TrainingBackend`, see src/backends/spi.ts), what flows through
 * it (`Datum`, `LossSpec`), the reference loss every `forwardBackward` must agree with, and the
 * startup check that refuses a loss a backend cannot compute.
 *
 * Types, zod and pure maths only: importing it starts no worker, opens no database and loads no
 * wasm, so a backend package can depend on it without pulling in the local model or the gateway.
 */
export {
  type Aggregation,
  aggregationScale,
  type KlEstimator,
  type LossKind,
  type LossRow,
  type LossSpec,
  type LossSpecInput,
  LossSpecSchema,
  type ReferenceLossResult,
  referenceLoss,
  type TokenLoss,
  type TokenLossInput,
  tokenLoss,
} from "../algorithms/loss.js";
export {
  type BackendCapabilities,
  type BackendContext,
  type BackendDefinition,
  type BackendSection,
  type BackendSectionSchema,
  checkLossSupported,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type OptimParams,
  type OptimStepResult,
  type SamplerInfo,
  type ServedCheckpoint,
  type TrainingBackend,
  UnsupportedOptionError,
} from "../backends/spi.js";
export { type Datum, DatumSchema } from "../types/core.js";
