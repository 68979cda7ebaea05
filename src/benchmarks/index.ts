export * from "./catalog.js";
export * from "./countdown.js";
export * from "./defaults.js";
export { BenchmarkRowError, type Row } from "./fields.js";
export * from "./hub.js";
export { type LoadBenchmarkOptions, loadBenchmark, loadRows, parseTaskIndices } from "./load.js";
