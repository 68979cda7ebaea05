/**
 * Runs a fake upstream in its own process (e.g. pinned to a core with `taskset` for a benchmark):
 *
 *   node --import tsx src/testing/fake-upstream-main.ts --port 8001 --kind vllm \
 *     [--host 127.0.0.1] [--model NAME] [--latency-ms N] [--token-delay-ms N] \
 *     [--tokens-per-chunk N] [--record] [--replay] [--reasoning-field reasoning|reasoning_content|both]
 *
 * Request recording is off unless `--record` is given (a benchmark should not accumulate);
 * `--replay` answers a repeated request with the bytes it got the first time (see the option). Prints
 * one line `READY <url>` on stdout once listening; exits cleanly on SIGINT / SIGTERM.
 */
import { parseArgs } from "node:util";
import { type FakeUpstreamKind, startFakeUpstream } from "./fake-upstream.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    kind: { type: "string", default: "vllm" },
    model: { type: "string" },
    "latency-ms": { type: "string", default: "0" },
    "token-delay-ms": { type: "string", default: "0" },
    "tokens-per-chunk": { type: "string", default: "1" },
    "reasoning-field": { type: "string" },
    record: { type: "boolean", default: false },
    replay: { type: "boolean", default: false },
  },
  strict: true,
});

const kind = values.kind as FakeUpstreamKind;
if (kind !== "vllm" && kind !== "sglang" && kind !== "openai") {
  process.stderr.write(`--kind must be vllm, sglang or openai (got ${String(values.kind)})\n`);
  process.exit(2);
}
const REASONING_FIELDS = ["reasoning", "reasoning_content", "both"] as const;
const rf = values["reasoning-field"];
const reasoningField = REASONING_FIELDS.find((f) => f === rf);
if (rf !== undefined && reasoningField === undefined) {
  process.stderr.write("--reasoning-field must be reasoning, reasoning_content or both\n");
  process.exit(2);
}

const upstream = await startFakeUpstream({
  kind,
  port: Number(values.port),
  host: values.host,
  ...(values.model ? { model: values.model } : {}),
  latencyMs: Number(values["latency-ms"]),
  tokenDelayMs: Number(values["token-delay-ms"]),
  tokensPerChunk: Number(values["tokens-per-chunk"]),
  record: values.record,
  replay: values.replay,
  ...(reasoningField ? { reasoningField } : {}),
});
process.stdout.write(`READY ${upstream.url}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  upstream.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
