/**
 * What the torch backend accepts and computes: its config section (strict: a knob it does not
 * have is an error naming it) and its capabilities. Loaded by the config layer through the
 * registry, so it imports zod and types only — never the worker, a socket or a child process.
 *
 * Decided here, once:
 *   - `model` is a Hugging Face model directory or a Hub id; it may be left out only when
 *     `checkpoint` (a directory written by save()) names the weights — create() refuses a section
 *     with neither, naming both keys (not the schema: `rllm eval --checkpoint` serves a checkpoint
 *     through this section without a model);
 *   - `device: "auto"` is cuda when the worker sees one, else cpu; `dtype: "auto"` is bfloat16 on
 *     cuda and float32 on cpu;
 *   - `lora` absent is full fine-tuning; `lora.alpha` defaults to 2·rank;
 *   - `python` absent: $RLLM_PYTHON, else <package root>/python/.venv/bin/python when it exists,
 *     else python3 (worker.ts resolves it at start, not here);
 *   - `nproc` 1 and `nnodes` 1 is the plain launch (`python -m rllm_worker`, one process); anything
 *     more runs the trainer under torchrun (torchrun.ts), nproc processes on each of nnodes nodes;
 *     the sampler is always one plain process;
 *   - the node that runs rllm (and the trainer's rank 0, which speaks the RPC) is node 0, so there
 *     is no `nodeRank` key: the other nodes run `rllm worker --node-rank R`;
 *   - `rdzvEndpoint` (node 0's "host:port", reachable from every node) is required with nnodes > 1
 *     and refused with nnodes 1, where rllm picks a free port of 127.0.0.1.
 *   - `sampler` is a union on `engine`: "torch" (the default, so a section without `engine` is
 *     the in-process sampler) or "vllm"/"sglang" with the servers' `urls`, each variant strict, so
 *     a knob of the other kind is an error naming it.
 */
import { z } from "zod";
import { ALL_LOSS_CAPABILITIES, type BackendCapabilities } from "../spi.js";

/** The worker implements src/algorithms/loss.ts whole: every kind, aggregation and option. */
export const TORCH_CAPABILITIES: BackendCapabilities = ALL_LOSS_CAPABILITIES;

const LoraConfigSchema = z
  .strictObject({
    /** r: the rank of each adapter's A·B. */
    rank: z.number().int().min(1).max(4096),
    /** α: the adapter's output is scaled by α/r (default 2·rank). */
    alpha: z.number().positive().optional(),
    dropout: z.number().min(0).max(1).default(0),
    /** peft's target_modules: "all-linear" (every linear layer but the head) or module names. */
    targetModules: z
      .union([z.literal("all-linear"), z.array(z.string().min(1)).min(1)])
      .default("all-linear"),
  })
  .transform((l) => ({ ...l, alpha: l.alpha ?? 2 * l.rank }));
export type LoraConfig = z.output<typeof LoraConfigSchema>;

const TimeoutsSchema = z.strictObject({
  /** Seconds from spawning a worker to its `hello` (imports, CUDA init). */
  startupS: z.number().positive().default(600),
  /** Seconds one call may run before the worker is killed (a hung worker never hangs a run). */
  callS: z.number().positive().default(1800),
  /**
   * Seconds a collective of the trainer's ranks may wait (torchrun launches: one rank dead or hung
   * fails the others after this, not never). Idle time between calls does not count.
   */
  collectiveS: z.number().positive().default(600),
});

/** `host:port`: a hostname, an IPv4 address or a bracketed IPv6 address, and a port 1–65535. */
const RDZV_ENDPOINT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

export const RdzvEndpointSchema = z.string().refine(
  (v) => {
    const m = RDZV_ENDPOINT.exec(v);
    return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
  },
  {
    error: (i) =>
      `${JSON.stringify(i.input)} is not "host:port" (e.g. 10.0.0.1:29500): node 0's address, which every node reaches, and a free port (1–65535)`,
  },
);

/** `engine: "torch"` (the default; a section without `engine` is this): the in-process sampler. */
const TorchSamplerConfigSchema = z.strictObject({
  engine: z.literal("torch").default("torch"),
  /** Most sequences (prompts × n) in one generate call. */
  maxBatch: z.number().int().min(1).max(4096).default(64),
  /** How long the first request of an idle queue waits for others to batch with. */
  batchWindowMs: z.number().min(0).max(1000).default(2),
  host: z.string().min(1).default("127.0.0.1"),
  /** 0: an ephemeral port. */
  port: z.number().int().min(0).max(65535).default(0),
  /** The model name the sampler answers to. */
  modelName: z.string().min(1).default("rllm-torch"),
  /** Concurrent generate calls in flight; the worker merges them into one running batch. */
  lanes: z.number().int().min(1).max(64).default(4),
});

/** A server's root URL: http(s), no query; a trailing `/` or `/v1` is dropped (routes add it). */
const ServerUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://10.0.0.5:8000" })
  .refine((u) => !u.includes("?") && !u.includes("#"), "must have no query or fragment")
  .transform((u) => u.replace(/\/+$/, "").replace(/\/v1$/, ""));

/**
 * `engine: "vllm" | "sglang"`: generation on running servers of that engine (`urls`, started with
 * the flags `rllm sampler launch` prints), the trainer pushing each new weight version into every
 * one of them (remote/weight-sync.ts).
 */
function externalSamplerSchema<E extends "vllm" | "sglang">(engine: E) {
  return z.strictObject({
    engine: z.literal(engine),
    /** The servers' root URLs (http://host:port); generation is spread across them. */
    urls: z.array(ServerUrlSchema).min(1, "name at least one server URL"),
    /**
     * Where each version's weights are written for the servers to read. Default: the trainer's
     * exchange directory — mode 0700, under /dev/shm where it exists (full weights sit in RAM),
     * removed on close but left behind after a kill -9 — so the servers must run as the same user
     * on the same machine. Servers on other machines need a filesystem they share with the
     * trainer, at the same path.
     */
    syncDir: z.string().min(1).optional(),
    /** Further attempts of a failed admin call (connection error, non-2xx) before the step fails. */
    retries: z.number().int().min(0).max(100).default(2),
    /** Seconds one admin call (a load, a weight update) may take. */
    timeoutS: z.number().positive().max(86_400).default(600),
    /** Sent as `Authorization: Bearer` on every call (vLLM's and SGLang's --api-key). */
    apiKey: z
      .string()
      .min(1)
      .regex(/^[^\r\n]*$/, "must be one line")
      .optional(),
    /**
     * LoRA adapter versions kept loaded on each server (older ones are unloaded). New requests
     * always name the newest; one in flight keeps the adapter it started with (vLLM) or holds its
     * unload until it ends (SGLang). An async run has requests of up to `trainer.staleness`
     * versions back in flight, so it needs staleness + 1.
     */
    keepVersions: z.number().int().min(1).max(64).default(2),
    /** The base model's served name (default: the first id of the servers' GET /v1/models). */
    modelName: z.string().min(1).optional(),
  });
}
export const VllmSamplerConfigSchema = externalSamplerSchema("vllm").extend({
  /**
   * How a full-weight version gets into the servers (remote/vllm.ts): "transfer", vLLM's
   * weight-transfer API with its disk backend (/init_weight_transfer_engine once, then
   * /start_weight_update → /update_weights {path} → /finish_weight_update {weight_version}; the
   * servers started with --weight-transfer-config '{"backend":"disk"}'); "reload", the workers'
   * reload_weights through /collective_rpc, for vLLM builds without the disk backend. Both need
   * VLLM_SERVER_DEV_MODE=1 (`rllm sampler launch vllm --full-weights [--full-weights-mode]`).
   * LoRA runs do not use it.
   */
  fullWeights: z.enum(["transfer", "reload"]).default("transfer"),
});
const SglangSamplerConfigSchema = externalSamplerSchema("sglang");
export type ExternalSamplerConfig =
  | z.output<typeof VllmSamplerConfigSchema>
  | z.output<typeof SglangSamplerConfigSchema>;

/** Where generation runs: in process (torch) or on vLLM/SGLang servers; a knob of another is an error. */
const SamplerConfigSchema = z.discriminatedUnion(
  "engine",
  [TorchSamplerConfigSchema, VllmSamplerConfigSchema, SglangSamplerConfigSchema],
  { error: 'must be engine "torch" (the default), "vllm" or "sglang"' },
);
export type SamplerConfig = z.output<typeof SamplerConfigSchema>;
export type TorchSamplerConfig = z.output<typeof TorchSamplerConfigSchema>;

/**
 * The in-process sampler's section; anything that serves weights in this process (`rllm eval
 * --backend torch`, `rllm model serve`) needs it, and refuses an external engine by name.
 */
export function inProcessSampler(config: { sampler: SamplerConfig }): TorchSamplerConfig {
  const s = config.sampler;
  if (s.engine === "torch") return s;
  throw new Error(
    `backend.sampler.engine is "${s.engine}", but this command serves the weights itself (the in-process sampler); drop backend.sampler's engine and urls`,
  );
}

export const TorchBackendConfigSchema = z
  .strictObject({
    /** A Hugging Face model directory or Hub id (required unless `checkpoint`). */
    model: z.string().min(1).optional(),
    /** Start from this torch checkpoint (a directory written by save()). */
    checkpoint: z.string().min(1).optional(),
    device: z.enum(["auto", "cpu", "cuda"]).default("auto"),
    dtype: z.enum(["auto", "float32", "bfloat16"]).default("auto"),
    /** LoRA adapters instead of full fine-tuning. */
    lora: LoraConfigSchema.optional(),
    /** Recompute activations in the backward pass: less memory, ~30% more compute. */
    gradientCheckpointing: z.boolean().default(false),
    /**
     * Most tokens per packed micro-batch of forwardBackward (gradient accumulation beyond; a longer
     * row gets a micro-batch of its own). Attention within a packed micro-batch is dense under a
     * block-diagonal mask (sdpa; no flash-attn varlen), so its cost grows with this squared: on the
     * CPU (the countdown model, 18k tokens a call) 8192 ran 3.6k tokens/s, 2048 10.6k, 1024 13.9k.
     */
    microBatchTokens: z.number().int().min(16).max(16_777_216).default(2048),
    /** Tokens per chunk of the head + log-softmax (the fp32 logits never exist whole). */
    logprobChunkTokens: z.number().int().min(1).max(1_048_576).default(1024),
    seed: z.number().int().nonnegative().default(0),
    /** The Python interpreter that runs the worker. */
    python: z.string().min(1).optional(),
    /** Trainer processes on this node (one per GPU); above 1 the trainer runs under torchrun. */
    nproc: z.number().int().min(1).max(1024).default(1),
    /** Nodes (machines) the trainer spans; the others run `rllm worker` (each with nproc ranks). */
    nnodes: z.number().int().min(1).max(1024).default(1),
    /** Node 0's "host:port" for the ranks' rendezvous (nnodes > 1). */
    rdzvEndpoint: RdzvEndpointSchema.optional(),
    timeouts: TimeoutsSchema.default(TimeoutsSchema.parse({})),
    sampler: SamplerConfigSchema.default(TorchSamplerConfigSchema.parse({})),
  })
  .superRefine((c, ctx) => {
    if (c.nnodes > 1 && c.rdzvEndpoint === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["rdzvEndpoint"],
        message: `required with backend.nnodes ${c.nnodes}: node 0's "host:port" that every node reaches (e.g. 10.0.0.1:29500; --rdzv-endpoint)`,
      });
    if (c.nnodes === 1 && c.rdzvEndpoint !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["rdzvEndpoint"],
        message: `is the rendezvous of several nodes and backend.nnodes is 1 (one node: rllm picks a free port of 127.0.0.1); drop it or set backend.nnodes`,
      });
  });
export type TorchBackendConfig = z.output<typeof TorchBackendConfigSchema>;
export type TorchBackendConfigInput = z.input<typeof TorchBackendConfigSchema>;
