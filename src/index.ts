/**
 * rllm's public API. An agent author needs `rollout`, `evaluator` and the types; running and
 * training go through the engine, the gateway and (to come) the trainer.
 */
export * from "./algorithms/index.js";
export * from "./benchmarks/index.js";
export * from "./config/index.js";
export * from "./engine/index.js";
export { Gateway, type GatewayOptions, startGateway } from "./gateway/server.js";
export * from "./rewards/index.js";
export * from "./sdk/index.js";
export { Store } from "./store/sqlite.js";
export * from "./types/index.js";
export { VERSION } from "./version.js";
