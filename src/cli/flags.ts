/**
 * The flag tables: one per command, a row per flag with the config key it sets, the parser of its
 * value and its help. From a table come the command's commander options (`addFlags`), the config
 * layer its flags give (`flagLayer`, the top layer of `loadConfig`) and the type of its parsed
 * flags (`FlagValues`). Nothing about a flag is written twice:
 *
 *   - the default `--help` shows is read from the config schema at the row's key (a row says
 *     `default` only where the schema has none and the command decides it, e.g. the lr of RL);
 *   - the choices `--help` shows and commander checks are the schema's enum (or literals) there;
 *   - a parser names the flag in its error (`--group-size x: must be a non-negative integer`);
 *   - a flag that is not one key (train's `--loss`/`--clip-*`/`--kl-coef` build one
 *     `algorithm.loss`, gateway's repeatable `--upstream`, `--store memory` against `--db`) maps
 *     its value with `to`, which sees every flag of the command;
 *   - rows are merged in order, so a later row wins over an earlier one on a shared key (eval's
 *     `--temperature` over `--sampling-params temperature=`).
 *
 * README.md lists each command's flags; flags.test.ts fails when a list and its table disagree.
 */
import { join } from "node:path";
import { type Command, Option } from "commander";
import { z } from "zod";
import {
  ConfigError,
  type ConfigLayer,
  deepMerge,
  ProviderSchema,
  RllmConfigSchema,
  UpstreamConfigSchema,
} from "../config/index.js";
import { DEFAULT_CONCURRENCY } from "../engine/engine.js";
import { rllmHome } from "../home.js";
import { SFT_DEFAULT_LR } from "../trainer/sft.js";
import { RL_DEFAULT_LR } from "../trainer/trainer.js";
import { SamplingParamsSchema } from "../types/index.js";

// ── parsers ───────────────────────────────────────────────────────────────────────────────────

/** A flag's value from its text; throws a ConfigError that names the flag. */
export type Parser<T = unknown> = (value: string, flag: string) => T;

export const int: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError(`${flag} ${v}: must be a non-negative integer`);
  return n;
};

export const num: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ConfigError(`${flag} ${v}: must be a number`);
  return n;
};

export const port: Parser<number> = (v, flag) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${flag} ${v}: must be an integer from 0 to 65535`);
  return n;
};

/** An integer in [min, max]. */
export function intIn(min: number, max: number): Parser<number> {
  return (v, flag) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ConfigError(
        `${flag} must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`,
      );
    return n;
  };
}

/** `k=v,k=v` → an object of sampling parameters, values parsed as JSON where they can be. */
export function parseSamplingParams(spec: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new ConfigError(`--sampling-params: "${part}" is not key=value`);
    const key = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a bare string such as a stop word
    }
    out[key] = value;
  }
  const checked = SamplingParamsSchema.safeParse(out);
  if (!checked.success) {
    const i = checked.error.issues[0]!;
    const known = Object.keys(SamplingParamsSchema.shape).join(", ");
    throw new ConfigError(
      `--sampling-params: ${i.path.join(".") || i.message}: ${i.message}. Known: ${known}`,
    );
  }
  return checked.data;
}

/** The kind an `--upstream URL` without a `kind=` prefix gets: the schema's default. */
const UPSTREAM_KIND = UpstreamConfigSchema.shape.kind.parse(undefined);

/** `--upstream [kind=]URL` → an upstream of gateway.upstreams. */
export function parseUpstream(spec: string, apiKey?: string): ConfigLayer {
  const m = /^([a-z]+)=(.+)$/.exec(spec);
  let kind: string = UPSTREAM_KIND;
  let url = spec;
  if (m) {
    const k = UpstreamConfigSchema.shape.kind.safeParse(m[1]);
    if (!k.success)
      throw new ConfigError(
        `--upstream ${spec}: unknown kind "${m[1]}"; use ${UpstreamConfigSchema.shape.kind.unwrap().options.join("=, ")}=`,
      );
    kind = k.data;
    url = m[2]!;
  }
  return { url, kind, ...(apiKey ? { apiKey } : {}) };
}

/** Where `rllm gateway` keeps its store unless told otherwise (store.path). */
export function defaultGatewayStore(env: NodeJS.ProcessEnv = process.env): string {
  return join(rllmHome(env), "gateway", "traces.db");
}

// ── the table's row and what is derived from it ──────────────────────────────────────────────

export interface FlagRow {
  /** Commander's spelling: `--group-size <n>` takes a value, `--async` is a switch. */
  readonly flag: string;
  readonly help: string;
  /** The config key the value sets (dotted); `--help` shows the schema's default there. */
  readonly path?: string;
  /** Text → value (default: the text itself). */
  readonly parse?: Parser;
  /** The flag may be given again; its values collect into an array. */
  readonly repeat?: true;
  /** The command cannot run without it. */
  readonly required?: true;
  /** Allowed values where they are not the schema's enum at `path`. */
  readonly choices?: readonly string[];
  /** The default `--help` shows where the schema has none at `path` (the command's own). */
  readonly default?: string | number;
  /** The config a value gives when it is not one key; it sees every flag of the command. */
  readonly to?: (value: never, flags: Readonly<Record<string, unknown>>) => ConfigLayer;
}

type Camel<S extends string> = S extends `${infer H}-${infer T}`
  ? `${H}${Capitalize<Camel<T>>}`
  : S;
type LongName<F extends string> = F extends `--${infer N} ${string}`
  ? N
  : F extends `--${infer N}`
    ? N
    : never;
type RowValue<R> = R extends { parse: Parser<infer T> }
  ? T
  : R extends { flag: `${string}<${string}` }
    ? string
    : boolean;
/** The parsed flags of a table, keyed as commander keys them (`--group-size` → groupSize). */
export type FlagValues<T extends readonly FlagRow[]> = {
  [R in T[number] as Camel<LongName<R["flag"]>>]?: R extends { repeat: true }
    ? RowValue<R>[]
    : RowValue<R>;
};

/** `--group-size <n>` → `groupSize`, as commander keys the parsed value. */
export function flagKey(flag: string): string {
  const long = /--([a-z0-9-]+)/.exec(flag)?.[1];
  if (!long) throw new Error(`flag table: "${flag}" has no --long name`);
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `--group-size <n>` → `--group-size`. */
export function flagName(flag: string): string {
  return `--${/--([a-z0-9-]+)/.exec(flag)?.[1]}`;
}

/** The partial config a command's parsed flags give: the top layer of loadConfig. */
export function flagLayer(
  rows: readonly FlagRow[],
  flags: Readonly<Record<string, unknown>>,
): ConfigLayer {
  let layer: ConfigLayer = {};
  for (const row of rows) {
    const value = flags[flagKey(row.flag)];
    if (value === undefined) continue;
    if (row.to) layer = deepMerge(layer, row.to(value as never, flags));
    else if (row.path) layer = deepMerge(layer, atPath(row.path, value));
  }
  return layer;
}

/** Adds a table's flags to a command, with help, defaults and choices from the schema. */
export function addFlags(cmd: Command, rows: readonly FlagRow[]): Command {
  for (const row of rows) cmd.addOption(flagOption(row));
  return cmd;
}

function flagOption(row: FlagRow): Option {
  const shown = row.default ?? (row.path ? shownDefault(defaultAt(row.path)) : undefined);
  const o = new Option(
    row.flag,
    shown === undefined ? row.help : `${row.help} (default: ${shown})`,
  );
  const choices = row.choices ?? (row.path && !row.parse ? choicesAt(row.path) : undefined);
  if (row.required) o.makeOptionMandatory();
  if (choices) o.choices(choices);
  else if (row.parse || row.repeat) {
    const name = flagName(row.flag);
    const parse = row.parse ?? ((v: string) => v);
    o.argParser((v: string, previous: unknown) => {
      const value = parse(v, name);
      return row.repeat ? [...((previous as unknown[] | undefined) ?? []), value] : value;
    });
  }
  return o;
}

function atPath(path: string, value: unknown): ConfigLayer {
  return path.split(".").reduceRight<unknown>((v, key) => ({ [key]: v }), value) as ConfigLayer;
}

let defaults: unknown;
/** The schema's default at a dotted key (undefined where it has none). */
export function defaultAt(path: string): unknown {
  defaults ??= RllmConfigSchema.parse({});
  let v: unknown = defaults;
  for (const key of path.split(".")) v = (v as Record<string, unknown> | undefined)?.[key];
  return v;
}

function shownDefault(v: unknown): string | number | undefined {
  if (typeof v === "number" || (typeof v === "string" && v !== "")) return v;
  return undefined; // booleans (a switch is off unless given), objects, arrays
}

/** The schemas of a dotted key (one per union member that has it; none: no such key). */
export function schemasAt(path: string): z.ZodType[] {
  let level: z.ZodType[] = [RllmConfigSchema];
  for (const key of path.split(".")) {
    level = level.flatMap((s) => objectsOf(s).flatMap((o) => (o.shape[key] ? [o.shape[key]] : [])));
  }
  return level;
}

/** The values the schema allows at a dotted key when they are a closed set (enum, literals). */
export function choicesAt(path: string): string[] | undefined {
  const level = schemasAt(path);
  if (!level.length) return undefined;
  const values = new Set<string>();
  for (let s of level) {
    s = unwrap(s);
    if (s instanceof z.ZodEnum) for (const v of s.options) values.add(String(v));
    else if (s instanceof z.ZodLiteral) for (const v of s.values) values.add(String(v));
    else return undefined;
  }
  return values.size ? [...values] : undefined;
}

function unwrap(s: z.ZodType): z.ZodType {
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable)
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.out as z.ZodType;
    else return s;
  }
}

function objectsOf(schema: z.ZodType): z.ZodObject[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) return [s];
  if (s instanceof z.ZodDiscriminatedUnion || s instanceof z.ZodUnion)
    return (s.options as z.ZodType[]).flatMap(objectsOf);
  return [];
}

// ── the tables ───────────────────────────────────────────────────────────────────────────────

const CONFIG = { flag: "--config <file>", help: "YAML or JSON config file" } as const;

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

export const TRAIN_FLAGS = [
  { flag: "--backend <name>", path: "backend.name", help: "training backend" },
  {
    flag: "--checkpoint <dir>",
    path: "backend.checkpoint",
    help: "start from this checkpoint (default: the recipe's base model)",
  },
  {
    flag: "--agent <file[#export]>",
    path: "trainer.agent",
    help: "a module exporting a rollout (default: the benchmark's)",
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
  CONFIG,
] as const satisfies readonly FlagRow[];

export const EVAL_FLAGS = [
  {
    flag: "--base-url <url>",
    path: "model.baseUrl",
    help: "OpenAI-compatible base URL of the model (else the stored provider)",
  },
  { flag: "--model <name>", path: "model.name", help: "model name" },
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
    help: "local: serve a local-backend checkpoint in process (no model server)",
  },
  {
    flag: "--checkpoint <dir>",
    path: "eval.checkpoint",
    help: "the checkpoint --backend local serves",
  },
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

/** `rllm model serve`: its flags are the local backend's sampler knobs (it reads no config file). */
export const SERVE_FLAGS = [
  {
    flag: "--checkpoint <dir>",
    help: "local-backend checkpoint directory (default: an untrained model)",
  },
  {
    flag: "--port <port>",
    parse: intIn(0, 65535),
    required: true,
    help: "port to listen on (0: any free port)",
  },
  { flag: "--host <host>", path: "backend.sampler.host", help: "address to bind" },
  {
    flag: "--workers <n>",
    path: "backend.sampler.workers",
    parse: intIn(1, 256),
    help: "worker threads, one model replica each",
  },
  {
    flag: "--seed <seed>",
    path: "backend.seed",
    parse: intIn(0, 2 ** 32 - 1),
    help: "init seed of the untrained model (without --checkpoint)",
  },
  { flag: "--model <name>", path: "backend.sampler.modelName", help: "served model name" },
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

/** Every command's table, by the words that run it. */
export const COMMAND_FLAGS: Record<string, readonly FlagRow[]> = {
  train: TRAIN_FLAGS,
  eval: EVAL_FLAGS,
  sft: SFT_FLAGS,
  gateway: GATEWAY_FLAGS,
  "model serve": SERVE_FLAGS,
  "model setup": SETUP_FLAGS,
};
