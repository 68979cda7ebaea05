/**
 * Errors whose class tells the engine how to treat an episode, shared by the parts that throw them
 * (rewards/, agents/) and the engine that reads them.
 *
 * `InfrastructureError`: the infrastructure failed, not the model — an LLM judge unreachable or
 * answering no parsable verdict after its own retries. The engine (engine.ts `isInfraError`)
 * marks such an episode `infraFailed` with no reward: it is neither scored nor trained on, and it
 * is counted as an infrastructure failure in `rllm eval`'s results. Never throw it for a bad model
 * answer (that is reward 0).
 */
export class InfrastructureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "InfrastructureError";
  }
}
