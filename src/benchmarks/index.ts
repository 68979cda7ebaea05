export * from "./catalog.js";
export { CODE_BLOCK_INSTRUCTION, humaneval, mbpp, mbppSplitOf } from "./code.js";
export * from "./countdown.js";
export * from "./defaults.js";
export { BenchmarkRowError, type Row } from "./fields.js";
export {
  HarborTaskError,
  harborBenchmark,
  loadHarborTasks,
  readHarborTask,
  TaskTomlSchema,
  verifierEvaluator,
} from "./harbor.js";
export { type HarborImage, readDockerfile } from "./harbor-dockerfile.js";
export * from "./hub.js";
export {
  decodePrivateTests,
  LCB_IMPORTS,
  type LcbTest,
  livecodebench,
  PickleError,
  unpickleString,
} from "./livecodebench.js";
export {
  cachedSplit,
  type LoadBenchmarkOptions,
  loadBenchmark,
  parseTaskIndices,
  pullSplit,
} from "./load.js";
export { loadRows } from "./rows.js";
