/**
 * The seven commands' flag tables (train, eval, sft, gateway, model serve, model setup, worker): a row per
 * flag with the config key it sets, the parser of its value and its help. The machinery that
 * turns a table into commander options and a config layer, and the rules a row follows, are
 * flags.ts's.
 *
 * README.md lists each command's flags; flags.test.ts fails when a list and its table disagree.
 */
import {
  RdzvEndpointSchema,
  TorchBackendConfigSchema,
  VllmSamplerConfigSchema,
} from "../backends/torch/config.js";
import { ConfigError, type ConfigLayer, ProviderSchema } from "../config/index.js";
import { DEFAULT_CONCURRENCY } from "../engine/engine.js";
import {
  DEFAULT_EXEC_TIMEOUT_S,
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
} from "../sandbox/types.js";
import { SFT_DEFAULT_LR } from "../trainer/sft.js";
import { RL_DEFAULT_LR } from "../trainer/trainer.js";
import {
  configuredBackend,
  defaultAt,
  defaultGatewayStore,
  type FlagRow,
  int,
  intIn,
  num,
  type Parser,
  parseSampler,
  parseSamplingParams,
  parseUpstream,
  port,
  runBackend,
  UPSTREAM_KIND,
} from "./flags.js";

const CONFIG = { flag: "--config <file>", help: "YAML or JSON config file" } as const;

const TORCH_DEVICE = {
  flag: "--device <device>",
  path: "backend.device",
  backend: "torch",
  default: TorchBackendConfigSchema.shape.device.parse(undefined),
  help: "where the torch worker runs: auto is cuda when there is one (--backend torch)",
} as const satisfies FlagRow;

/** The torch backend's knobs of `rllm train` and `rllm sft` (with another backend: an error). */
const TORCH_TRAIN_FLAGS = [
  {
    flag: "--model <dir|hub-id>",
    path: "backend.model",
    backend: "torch",
    help: "the Hugging Face model to train: a model directory or Hub id (--backend torch)",
  },
  {
    flag: "--lora-rank <r>",
    path: "backend.lora.rank",
    parse: int,
    backend: "torch",
    help: "train LoRA adapters of rank r instead of every weight (--backend torch)",
  },
  TORCH_DEVICE,
  {
    flag: "--nproc <n>",
    path: "backend.nproc",
    parse: int,
    backend: "torch",
    default: TorchBackendConfigSchema.shape.nproc.parse(undefined),
    help: "trainer processes on this node, one per GPU; above 1 the trainer runs under torchrun (--backend torch)",
  },
  {
    flag: "--nnodes <n>",
    path: "backend.nnodes",
    parse: int,
    backend: "torch",
    default: TorchBackendConfigSchema.shape.nnodes.parse(undefined),
    help: "machines the trainer spans; this one is node 0, the others run `rllm worker` (--backend torch)",
  },
  {
    flag: "--rdzv-endpoint <host:port>",
    path: "backend.rdzvEndpoint",
    backend: "torch",
    help: "this node's address and a free port, which every node reaches (with --nnodes > 1; --backend torch)",
  },
] as const satisfies readonly FlagRow[];

/** Whether `rllm eval` serves a torch model itself (--backend torch, or --checkpoint on torch). */
const evalServesTorch = (f: Readonly<Record<string, unknown>>): boolean =>
  (f.backend !== undefined || f.checkpoint !== undefined) && runBackend(f).name === "torch";

/** train's loss flags build one algorithm.loss; alone, a clip or KL flag tunes the default (ppo). */
const lossKnob =
  (key: "clipLow" | "clipHigh" | "kl") =>
  (v: number, f: Readonly<Record<string, unknown>>): ConfigLayer => ({
    algorithm: {
      loss: {
        // a config file may name the kind; else the flag tunes the default loss
        kind: f.loss ?? (f.config ? undefined : defaultAt("algorithm.loss.kind")),
        [key]: key === "kl" ? { coef: v } : v,
      },
    },
  });

/** The LLM judge of the judge and llm_equality graders (the config's judge section). */
const JUDGE_FLAGS = [
  {
    flag: "--judge-url <url>",
    path: "judge.baseUrl",
    help: "OpenAI-compatible base URL of the LLM judge (judge/llm_equality graders; rllm eval: default the model's own server)",
  },
  {
    flag: "--judge-model <name>",
    path: "judge.model",
    help: "the LLM judge's model name (needed by benchmarks graded by judge or llm_equality)",
  },
] as const satisfies readonly FlagRow[];

export const TRAIN_FLAGS = [
  { flag: "--backend <name>", path: "backend.name", help: "training backend" },
  {
    flag: "--checkpoint <dir>",
    path: "backend.checkpoint",
    help: "start from this checkpoint (default: the recipe's base model)",
  },
  ...TORCH_TRAIN_FLAGS,
  {
    flag: "--sampler <engine=urls>",
    path: "backend.sampler",
    parse: parseSampler,
    backend: "torch",
    help: "generate on running vLLM or SGLang servers, pushing each new weight version into them: vllm=URL[,URL...] or sglang=URL[,URL...] (start them with `rllm sampler launch`; default: the in-process sampler; --backend torch)",
  },
  {
    flag: "--agent <file[#export]>",
    path: "trainer.agent",
    help: "a module exporting a rollout (default: the benchmark's)",
  },
  {
    flag: "--harness <name>",
    path: "trainer.harness",
    help: "run a coding-agent CLI as the agent: claude-code, codex, gemini-cli, opencode, qwen-code (rllm harness list; its timeout is 80% of the rollout timeout, engine.timeoutSeconds)",
  },
  {
    flag: "--evaluator <file[#export]>",
    path: "trainer.evaluator",
    help: "a module exporting an evaluator",
  },
  {
    flag: "--group-size <n>",
    path: "trainer.groupSize",
    parse: int,
    help: "attempts per task (GRPO group)",
  },
  { flag: "--batch-size <n>", path: "trainer.batchSize", parse: int, help: "tasks per step" },
  {
    flag: "--lr <x>",
    path: "optim.lr",
    parse: num,
    default: RL_DEFAULT_LR,
    help: "peak learning rate",
  },
  {
    flag: "--epochs <n>",
    path: "trainer.epochs",
    parse: int,
    help: "passes over the training tasks",
  },
  { flag: "--max-steps <n>", path: "trainer.maxSteps", parse: int, help: "stop after n steps" },
  {
    flag: "--max-seconds <s>",
    path: "trainer.maxSeconds",
    parse: num,
    help: "stop after s seconds of training",
  },
  {
    flag: "--val-freq <n>",
    path: "trainer.valFreq",
    parse: int,
    help: "validate every n steps (0: before and after only)",
  },
  {
    flag: "--save-freq <n>",
    path: "trainer.saveFreq",
    parse: int,
    help: "checkpoint every n steps (0: at the end only)",
  },
  {
    flag: "--val-examples <n>",
    path: "trainer.maxValExamples",
    parse: int,
    help: "validation tasks",
  },
  {
    flag: "--val-attempts <k>",
    path: "trainer.valAttempts",
    parse: int,
    help: "attempts per validation task: pass@1..k",
  },
  { flag: "--loss <kind>", path: "algorithm.loss.kind", help: "the policy loss" },
  {
    flag: "--adv-estimator <name>",
    path: "algorithm.estimator",
    help: "advantage estimator: grpo, rloo, reinforce, ...",
  },
  {
    flag: "--kl-coef <x>",
    parse: num,
    to: lossKnob("kl"),
    help: "KL penalty to the starting model",
  },
  { flag: "--clip-low <x>", parse: num, to: lossKnob("clipLow"), help: "PPO/CISPO lower clip ε" },
  {
    flag: "--clip-high <x>",
    parse: num,
    to: lossKnob("clipHigh"),
    help: "PPO/CISPO upper clip ε (clip-higher)",
  },
  {
    flag: "--async",
    path: "trainer.async",
    help: "generate ahead of training (bounded staleness, truncated IS)",
  },
  {
    flag: "--staleness <n>",
    path: "trainer.staleness",
    parse: int,
    help: "most weight versions a sample may lag (async)",
  },
  {
    flag: "--skip-settled <p>",
    path: "trainer.skipSettled",
    parse: num,
    help: "skip a task whose last group scored all alike with probability p (0–1) when it comes round again",
  },
  {
    flag: "--seed <n>",
    path: "trainer.seed",
    parse: int,
    help: "seed of the task order and the sampling",
  },
  {
    flag: "--data-dir <dir>",
    path: "trainer.dataDir",
    help: "read DIR/<benchmark>/<split>.jsonl instead of generating/the Hub",
  },
  {
    flag: "--output <dir>",
    path: "trainer.output",
    help: "run directory (default: runs/train/<benchmark>-<time>)",
  },
  {
    flag: "--resume",
    path: "trainer.resume",
    help: "continue the run in --output from its latest checkpoint",
  },
  ...JUDGE_FLAGS,
  CONFIG,
] as const satisfies readonly FlagRow[];

export const EVAL_FLAGS = [
  {
    flag: "--base-url <url>",
    path: "model.baseUrl",
    help: "OpenAI-compatible base URL of the model (else the stored provider)",
  },
  {
    flag: "--model <name>",
    path: "model.name",
    to: (name: string, f) =>
      evalServesTorch(f) ? { backend: { model: name } } : { model: { name } },
    help: "model name; with --backend torch, the Hugging Face model to serve (a directory or Hub id)",
  },
  { flag: "--api-key <key>", path: "model.apiKey", help: "API key for the model server" },
  {
    flag: "--upstream-kind <kind>",
    path: "model.kind",
    // the kind of a model given without one is the stored provider's default
    default: ProviderSchema.shape.kind.parse(undefined),
    help: "vllm or sglang (token ids), openai (any hosted API)",
  },
  {
    flag: "--tokenizer <dir>",
    path: "gateway.tokenizer",
    help: "model dir for token-in/token-out (needed for sglang)",
  },
  {
    flag: "--gateway <url>",
    path: "engine.gateway",
    help: "use a running gateway instead of starting one in process",
  },
  {
    flag: "--gateway-admin-key <key>",
    path: "engine.gatewayAdminKey",
    help: "admin key of that gateway",
  },
  {
    flag: "--agent <file[#export]>",
    path: "eval.agent",
    help: "a module exporting a rollout (default: the benchmark's agent)",
  },
  {
    flag: "--agent-cmd <command>",
    path: "eval.agentCmd",
    help: "run this command per rollout, with OPENAI_BASE_URL etc. set",
  },
  {
    flag: "--harness <name>",
    path: "eval.harness",
    help: "run a coding-agent CLI as the agent: claude-code, codex, gemini-cli, opencode, qwen-code (rllm harness list; its timeout is 80% of the rollout timeout, engine.timeoutSeconds)",
  },
  {
    flag: "--evaluator <file[#export]>",
    path: "eval.evaluator",
    help: "a module exporting an evaluator (default: the benchmark's grader)",
  },
  {
    flag: "--split <name>",
    path: "eval.split",
    help: "dataset split (default: the benchmark's)",
  },
  {
    flag: "--max-examples <n>",
    path: "eval.maxExamples",
    parse: int,
    help: "evaluate at most n tasks",
  },
  {
    flag: "--task-indices <spec>",
    path: "eval.taskIndices",
    help: "only these rows, e.g. 0,3,7-9",
  },
  {
    flag: "--concurrency <n>",
    path: "engine.concurrency",
    parse: int,
    default: DEFAULT_CONCURRENCY,
    help: "rollouts at once",
  },
  {
    flag: "--attempts <k>",
    path: "eval.attempts",
    parse: int,
    help: "attempts per task; reports pass@1..k",
  },
  {
    flag: "--timeout <seconds>",
    path: "engine.timeoutSeconds",
    parse: num,
    help: "per-rollout limit",
  },
  {
    flag: "--retries <n>",
    path: "engine.infraRetries",
    parse: int,
    help: "retries of infrastructure failures",
  },
  // before --temperature, --top-p and --max-tokens: those win over the same key here
  {
    flag: "--sampling-params <k=v,...>",
    to: (v: string) => ({ eval: { samplingParams: parseSamplingParams(v) } }),
    help: "more sampling parameters, e.g. top_k=20,stop=END",
  },
  {
    flag: "--temperature <t>",
    path: "eval.samplingParams.temperature",
    parse: num,
    help: "sampling temperature",
  },
  { flag: "--top-p <p>", path: "eval.samplingParams.top_p", parse: num, help: "nucleus sampling" },
  {
    flag: "--max-tokens <n>",
    path: "eval.samplingParams.max_tokens",
    parse: int,
    help: "completion token limit per call",
  },
  {
    flag: "--seed <n>",
    path: "eval.seed",
    parse: int,
    help: "seed each (task, attempt)'s sampling apart: a rerun repeats its answers (excludes --sampling-params seed=)",
  },
  {
    flag: "--data-dir <dir>",
    path: "eval.dataDir",
    help: "read DIR/<benchmark>/<split>.jsonl[.gz]|.parquet instead of the Hub",
  },
  {
    flag: "--output <dir>",
    path: "eval.output",
    help: "where results.json and episodes/ go (default: runs/eval/<benchmark>-<time>)",
  },
  {
    flag: "--backend <name>",
    path: "eval.backend",
    // the backend section too, unless the config file or the environment names another
    to: (name: string, f) => {
      const named = configuredBackend(f.config as string | undefined);
      if (named && named.name !== name)
        throw new ConfigError(
          `--backend ${name}, but ${named.where} names backend ${named.name}; make them agree`,
        );
      return { eval: { backend: name }, backend: { name } };
    },
    help: "serve the model in process on this backend (no model server): a --checkpoint, the torch backend's --model, or the recipe's base model",
  },
  {
    flag: "--checkpoint <dir>",
    path: "eval.checkpoint",
    help: "the checkpoint --backend serves",
  },
  TORCH_DEVICE,
  {
    flag: "--list",
    help: "print the benchmark catalog (grader, agent, which splits are cached) and exit",
  },
  ...JUDGE_FLAGS,
  CONFIG,
] as const satisfies readonly FlagRow[];

export const SFT_FLAGS = [
  { flag: "--backend <name>", path: "backend.name", help: "training backend" },
  {
    flag: "--train-file <file>",
    path: "sft.trainFile",
    help: "JSONL, one {messages: [...], tools?: [...]} per line",
  },
  { flag: "--val-file <file>", path: "sft.valFile", help: "JSONL rows for a validation loss" },
  {
    flag: "--checkpoint <dir>",
    path: "backend.checkpoint",
    help: "start from this checkpoint (default: a fresh model)",
  },
  ...TORCH_TRAIN_FLAGS,
  {
    flag: "--output <dir>",
    path: "sft.output",
    help: "metrics.jsonl, checkpoints/ and the final model/ (default: runs/sft-<time>)",
  },
  { flag: "--epochs <n>", path: "sft.epochs", parse: int, help: "passes over the data" },
  {
    flag: "--batch-size <n>",
    path: "sft.batchSize",
    parse: int,
    help: "rows per optimizer step",
  },
  { flag: "--max-steps <n>", path: "sft.maxSteps", parse: int, help: "stop after n steps" },
  {
    flag: "--lr <x>",
    path: "optim.lr",
    parse: num,
    default: SFT_DEFAULT_LR,
    help: "peak learning rate",
  },
  {
    flag: "--warmup-steps <n>",
    path: "optim.warmupSteps",
    parse: int,
    help: "linear warmup steps",
  },
  { flag: "--schedule <s>", path: "optim.schedule", help: "learning-rate schedule" },
  { flag: "--save-freq <n>", path: "sft.saveFreq", parse: int, help: "checkpoint every n steps" },
  {
    flag: "--val-freq <n>",
    path: "sft.valFreq",
    parse: int,
    help: "validation loss every n steps",
  },
  { flag: "--seed <n>", path: "sft.seed", parse: int, help: "shuffle seed" },
  { flag: "--overlong <mode>", path: "sft.overlong", help: "rows longer than the context" },
  CONFIG,
] as const satisfies readonly FlagRow[];

export const GATEWAY_FLAGS = [
  { flag: "--port <port>", path: "gateway.port", parse: port, help: "port to listen on" },
  { flag: "--host <host>", path: "gateway.host", help: "address to bind" },
  {
    flag: "--upstream <url>",
    repeat: true,
    to: (specs: string[], f) => ({
      gateway: {
        upstreams: specs.map((s) => parseUpstream(s, f.upstreamApiKey as string | undefined)),
      },
    }),
    help: `model server URL; repeat for several. Prefix the kind as vllm=URL, sglang=URL or openai=URL (default: ${UPSTREAM_KIND})`,
  },
  {
    flag: "--upstream-api-key <key>",
    to: (_key: string, f) => {
      if (!f.upstream)
        throw new ConfigError(
          "--upstream-api-key is sent to the --upstream URLs and there is none; for upstreams of a config file set gateway.upstreams[].apiKey there",
        );
      return {}; // --upstream takes it
    },
    help: "API key sent to the --upstream URLs (hosted APIs)",
  },
  { flag: "--model <name>", path: "gateway.model", help: "pin the model name sent upstream" },
  {
    flag: "--admin-key <key>",
    path: "gateway.adminKey",
    help: "require this key (Bearer) on admin routes",
  },
  {
    flag: "--tokenizer <dir>",
    path: "gateway.tokenizer",
    help: "model dir with tokenizer.json + tokenizer_config.json (token-in/token-out; needed for sglang)",
  },
  {
    flag: "--db <path>",
    path: "store.path",
    default: defaultGatewayStore({ RLLM_HOME: "$RLLM_HOME" }),
    help: "SQLite file for sessions and traces",
  },
  {
    flag: "--store <kind>",
    choices: ["memory"],
    to: (kind: string, f) => {
      if (f.db) throw new ConfigError("--db and --store memory exclude each other; pass one");
      return { store: { path: kind } };
    },
    help: "'memory' for a store that is gone on exit",
  },
  {
    flag: "--durability <mode>",
    path: "store.synchronous",
    help: "'normal' survives kill -9; 'full' also an OS crash",
  },
  CONFIG,
] as const satisfies readonly FlagRow[];

/**
 * `rllm model serve`: a backend's sampler knobs (it reads no config file; RLLM_* variables apply).
 * A knob of one backend alone is refused with the other, as in train.
 */
export const SERVE_FLAGS = [
  { flag: "--backend <name>", path: "backend.name", help: "the backend that serves" },
  {
    flag: "--checkpoint <dir>",
    path: "backend.checkpoint",
    help: "a checkpoint of the backend (default: local, an untrained model; torch, --model)",
  },
  {
    flag: "--model <dir|hub-id>",
    path: "backend.model",
    backend: "torch",
    help: "the Hugging Face model to serve without --checkpoint: a model directory or Hub id (--backend torch)",
  },
  TORCH_DEVICE,
  {
    flag: "--port <port>",
    path: "backend.sampler.port",
    parse: intIn(0, 65535),
    required: true,
    help: "port to listen on (0: any free port)",
  },
  { flag: "--host <host>", path: "backend.sampler.host", help: "address to bind" },
  {
    flag: "--workers <n>",
    path: "backend.sampler.workers",
    parse: intIn(1, 256),
    backend: "local",
    help: "worker threads, one model replica each (--backend local)",
  },
  {
    flag: "--seed <seed>",
    path: "backend.seed",
    parse: intIn(0, 2 ** 32 - 1),
    backend: "local",
    help: "init seed of the untrained model (--backend local without --checkpoint)",
  },
  {
    flag: "--served-model-name <name>",
    path: "backend.sampler.modelName",
    default: "rllm-<backend>",
    help: "the model name the server answers to",
  },
] as const satisfies readonly FlagRow[];

/** `rllm model setup`: the stored provider's fields (not config keys). */
export const SETUP_FLAGS = [
  {
    flag: "--base-url <url>",
    help: "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1",
  },
  { flag: "--api-key <key>", help: "API key (omit for local servers)" },
  { flag: "--model <name>", help: "model name" },
  {
    flag: "--kind <kind>",
    choices: ProviderSchema.shape.kind.unwrap().options,
    default: ProviderSchema.shape.kind.parse(undefined),
    help: "vllm/sglang give token ids; openai is any hosted API",
  },
] as const satisfies readonly FlagRow[];

/** `host:port` of a rendezvous (the config's own check), naming the flag. */
const endpoint: Parser<string> = (v, flag) => {
  const r = RdzvEndpointSchema.safeParse(v);
  if (!r.success) throw new ConfigError(`${flag} ${r.error.issues[0]!.message}`);
  return r.data;
};

const seconds: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!(Number.isFinite(n) && n > 0))
    throw new ConfigError(`${flag} ${v}: must be a positive number of seconds`);
  return n;
};

/**
 * `rllm worker`: node R ≥ 1 of a torch trainer that spans several machines (not config keys: the
 * config is node 0's, and the values must be node 0's — its `rllm train` logs this command).
 */
export const WORKER_FLAGS = [
  {
    flag: "--nproc <n>",
    parse: intIn(1, 1024),
    required: true,
    help: "trainer processes on this node (node 0's --nproc: every node runs as many)",
  },
  {
    flag: "--nnodes <n>",
    parse: intIn(2, 1024),
    required: true,
    help: "machines the trainer spans, node 0 included",
  },
  {
    flag: "--node-rank <r>",
    parse: intIn(1, 1023),
    required: true,
    help: "this node's rank, 1 to nnodes − 1 (node 0 runs rllm train)",
  },
  {
    flag: "--rdzv-endpoint <host:port>",
    parse: endpoint,
    required: true,
    help: "node 0's backend.rdzvEndpoint",
  },
  {
    flag: "--collective-timeout-s <s>",
    parse: seconds,
    default: TorchBackendConfigSchema.shape.timeouts.parse(undefined).collectiveS,
    help: "node 0's backend.timeouts.collectiveS",
  },
  {
    flag: "--python <path>",
    default: "$RLLM_PYTHON, else python/.venv's, else python3",
    help: "the interpreter with torch, transformers and peft",
  },
  { flag: "--print", help: "print the torchrun command and exit, without running it" },
] as const satisfies readonly FlagRow[];

/** `--gpus 0,1` → [0, 1]. */
const gpuList = (v: string, flag: string): number[] => {
  const ids = v.split(",").map((x) => x.trim());
  if (!ids.every((x) => /^\d+$/.test(x)) || new Set(ids).size !== ids.length)
    throw new ConfigError(
      `${flag} ${v}: must be distinct GPU indices separated by commas, e.g. 0,1`,
    );
  return ids.map(Number);
};

/** `rllm sampler launch vllm|sglang`: the server's model, GPUs and weight-sync mode (no config keys). */
export const SAMPLER_LAUNCH_FLAGS = [
  {
    flag: "--model <dir|hub-id>",
    required: true,
    help: "the base model the trainer trains (the same directory or Hub id as --model of rllm train)",
  },
  {
    flag: "--gpus <ids>",
    required: true,
    parse: gpuList,
    help: "GPU indices, e.g. 0,1 (tensor parallel over all of them)",
  },
  {
    flag: "--lora-rank <r>",
    parse: intIn(1, 4096),
    help: "a LoRA run of this rank: the server loads each version as an adapter",
  },
  { flag: "--full-weights", help: "a full fine-tune: the server reloads each version's weights" },
  {
    flag: "--full-weights-mode <mode>",
    choices: VllmSamplerConfigSchema.shape.fullWeights.unwrap().options,
    default: VllmSamplerConfigSchema.shape.fullWeights.parse(undefined),
    help: "vLLM with --full-weights: how each version loads, as backend.sampler.fullWeights of the run (transfer: the weight-transfer API's disk backend; reload: /collective_rpc reload_weights, for vLLM builds without it)",
  },
  {
    flag: "--keep-versions <k>",
    parse: intIn(1, 64),
    default: VllmSamplerConfigSchema.shape.keepVersions.parse(undefined),
    help: "LoRA versions kept loaded (backend.sampler.keepVersions of the run)",
  },
  {
    flag: "--host <host>",
    default: "127.0.0.1",
    help: "address to bind (0.0.0.0 for trainers on other machines)",
  },
  { flag: "--port <port>", parse: port, help: "port (default: vllm 8000, sglang 30000)" },
  { flag: "--dry-run", help: "print the command only" },
] as const satisfies readonly FlagRow[];

/** The default a row of `rows` states for `flag` (a command's own, where no config key has it). */
export function rowDefault(rows: readonly FlagRow[], flag: string): string | number {
  const d = rows.find((r) => r.flag === flag || r.flag.startsWith(`${flag} `))?.default;
  if (d === undefined) throw new Error(`flag table: ${flag} states no default`);
  return d;
}

/** MiB, positive. */
const mib: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!(Number.isFinite(n) && n > 0))
    throw new ConfigError(`${flag} ${v}: must be a positive number of MiB`);
  return n;
};

/**
 * `rllm sandbox run -- CMD ARGS...`: one command in a fresh sandbox. The sandbox's backend and
 * limits are the config's `sandbox` section; the rest are this command's own.
 */
export const SANDBOX_RUN_FLAGS = [
  CONFIG,
  { flag: "--backend <name>", path: "sandbox.backend", help: "the sandbox backend" },
  {
    flag: "--timeout <s>",
    parse: seconds,
    default: DEFAULT_EXEC_TIMEOUT_S,
    help: "wall-clock limit of the command",
  },
  {
    flag: "--memory <mb>",
    path: "sandbox.limits.memoryMb",
    parse: mib,
    default: DEFAULT_LIMITS.memoryMb,
    help: "memory of the sandbox's processes together",
  },
  {
    flag: "--cpu <s>",
    path: "sandbox.limits.cpuSeconds",
    parse: seconds,
    default: DEFAULT_LIMITS.cpuSeconds,
    help: "CPU seconds per process",
  },
  {
    flag: "--network <off|on>",
    choices: ["off", "on"],
    to: (v: "off" | "on") => ({ sandbox: { network: v === "on" } }),
    default: "off",
    help: "network inside the sandbox",
  },
  {
    flag: "--workdir <dir>",
    help: "a host directory whose files the work dir starts with (copied in; the host's copy is never written)",
  },
  { flag: "--stdin <file>", help: "bytes for the command's stdin ('-': this command's own stdin)" },
  {
    flag: "--max-output <bytes>",
    parse: intIn(0, 1 << 30),
    default: DEFAULT_MAX_OUTPUT_BYTES,
    help: "bytes of stdout, and of stderr, kept; more kills the command",
  },
] as const satisfies readonly FlagRow[];

/** Every command's table, by the words that run it. */
export const COMMAND_FLAGS: Record<string, readonly FlagRow[]> = {
  train: TRAIN_FLAGS,
  eval: EVAL_FLAGS,
  sft: SFT_FLAGS,
  gateway: GATEWAY_FLAGS,
  "model serve": SERVE_FLAGS,
  "model setup": SETUP_FLAGS,
  worker: WORKER_FLAGS,
  "sampler launch": SAMPLER_LAUNCH_FLAGS,
  "sandbox run": SANDBOX_RUN_FLAGS,
};
