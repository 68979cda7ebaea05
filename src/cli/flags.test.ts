/**
 * The flag tables (flags.ts): the config layer each command's flags give equals what the
 * hand-written converters gave before the tables (kept below as the reference), `--help` shows the
 * schema's defaults and choices, parsers name the flag, and README.md's flag list of each command
 * is its table's.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Command } from "commander";
import {
  ConfigError,
  type ConfigLayer,
  loadConfig,
  RllmConfigSchema,
  UpstreamKindSchema,
} from "../config/index.js";
import { DEFAULT_CONCURRENCY } from "../engine/engine.js";
import { RL_DEFAULT_LR } from "../trainer/trainer.js";
import { evalCommand, evalFlagsToConfig } from "./eval.js";
import { COMMAND_FLAGS } from "./flag-tables.js";
import {
  choicesAt,
  defaultAt,
  flagName,
  int,
  num,
  parseSamplingParams,
  port,
  schemasAt,
} from "./flags.js";
import { gatewayCommand, flagsToConfig as gatewayFlagsToConfig } from "./gateway.js";
import { modelCommand } from "./model.js";
import { samplerCommand } from "./sampler.js";
import { sandboxCommand } from "./sandbox.js";
import { registerServeCommand } from "./serve.js";
import { sftCommand, sftFlagsToConfig } from "./sft.js";
import { trainCommand, trainFlagsToConfig } from "./train.js";
import { workerCommand } from "./worker.js";

// ── the converters as they were written by hand before the tables (the reference) ────────────

// biome-ignore lint/suspicious/noExplicitAny: the reference converters read untyped flags
type F = Record<string, any>;

/** train's and sft's backend section (the torch knobs joined the tables with the torch backend). */
function torchSection(f: F): ConfigLayer {
  return {
    name: f.backend,
    checkpoint: f.checkpoint,
    model: f.model,
    device: f.device,
    nproc: f.nproc,
    nnodes: f.nnodes,
    rdzvEndpoint: f.rdzvEndpoint,
    ...(f.loraRank !== undefined ? { lora: { rank: f.loraRank } } : {}),
  };
}

function oldTrain(f: F): ConfigLayer {
  const lossFlags = {
    clipLow: f.clipLow,
    clipHigh: f.clipHigh,
    ...(f.klCoef !== undefined ? { kl: { coef: f.klCoef } } : {}),
  };
  const anyLossFlag = Object.values(lossFlags).some((v) => v !== undefined);
  const kind = f.loss ?? (anyLossFlag && !f.config ? "ppo" : undefined);
  return {
    backend: torchSection(f),
    optim: { lr: f.lr },
    algorithm: {
      estimator: f.advEstimator,
      ...(kind || anyLossFlag ? { loss: { kind, ...lossFlags } } : {}),
    },
    trainer: {
      groupSize: f.groupSize,
      batchSize: f.batchSize,
      epochs: f.epochs,
      maxSteps: f.maxSteps,
      maxSeconds: f.maxSeconds,
      valFreq: f.valFreq,
      saveFreq: f.saveFreq,
      maxValExamples: f.valExamples,
      valAttempts: f.valAttempts,
      async: f.async,
      staleness: f.staleness,
      skipSettled: f.skipSettled,
      seed: f.seed,
      dataDir: f.dataDir,
      agent: f.agent,
      evaluator: f.evaluator,
      output: f.output,
      resume: f.resume,
    },
  };
}

function oldEval(f: F): ConfigLayer {
  const sampling: Record<string, unknown> = {};
  if (f.samplingParams) Object.assign(sampling, parseSamplingParams(f.samplingParams));
  if (f.temperature !== undefined) sampling.temperature = f.temperature;
  if (f.topP !== undefined) sampling.top_p = f.topP;
  if (f.maxTokens !== undefined) sampling.max_tokens = f.maxTokens;
  // --backend names the backend section too; with torch, --model is the model it serves
  const torch = f.backend === "torch";
  return {
    backend: { name: f.backend, device: f.device, model: torch ? f.model : undefined },
    model: {
      baseUrl: f.baseUrl,
      name: torch ? undefined : f.model,
      apiKey: f.apiKey,
      kind: f.upstreamKind,
    },
    gateway: { tokenizer: f.tokenizer },
    engine: {
      concurrency: f.concurrency,
      timeoutSeconds: f.timeout,
      infraRetries: f.retries,
      gateway: f.gateway,
      gatewayAdminKey: f.gatewayAdminKey,
    },
    eval: {
      split: f.split,
      maxExamples: f.maxExamples,
      taskIndices: f.taskIndices,
      attempts: f.attempts,
      dataDir: f.dataDir,
      output: f.output,
      agent: f.agent,
      agentCmd: f.agentCmd,
      evaluator: f.evaluator,
      backend: f.backend,
      checkpoint: f.checkpoint,
      seed: f.seed,
      ...(Object.keys(sampling).length ? { samplingParams: sampling } : {}),
    },
  };
}

function oldSft(f: F): ConfigLayer {
  return {
    backend: torchSection(f),
    optim: { lr: f.lr, warmupSteps: f.warmupSteps, schedule: f.schedule },
    sft: {
      trainFile: f.trainFile,
      valFile: f.valFile,
      epochs: f.epochs,
      batchSize: f.batchSize,
      maxSteps: f.maxSteps,
      saveFreq: f.saveFreq,
      valFreq: f.valFreq,
      seed: f.seed,
      overlong: f.overlong,
      output: f.output,
    },
  };
}

function oldGateway(opts: F): ConfigLayer {
  const gateway: ConfigLayer = {
    port: opts.port,
    host: opts.host,
    model: opts.model,
    adminKey: opts.adminKey,
    tokenizer: opts.tokenizer,
  };
  const upstream: string[] = opts.upstream ?? [];
  if (upstream.length > 0) {
    gateway.upstreams = upstream.map((spec) => {
      const m = /^([a-z]+)=(.+)$/.exec(spec);
      return {
        url: m ? m[2] : spec,
        kind: m ? m[1] : "vllm",
        ...(opts.upstreamApiKey ? { apiKey: opts.upstreamApiKey } : {}),
      };
    });
  }
  return {
    gateway,
    store: { path: opts.store === "memory" ? "memory" : opts.db, synchronous: opts.durability },
  };
}

/** A layer without its undefined values and the objects left empty by them. */
function strip(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const s = strip(x);
    if (s === undefined) continue;
    if (typeof s === "object" && s !== null && !Array.isArray(s) && !Object.keys(s).length)
      continue;
    out[k] = s;
  }
  return out;
}

/** Parses argv with a command's real options (commander), returning its flags object. */
function parse(cmd: Command, argv: string[]): F {
  let got: F = {};
  cmd
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((...a: unknown[]) => {
      got = a.find((x) => x && typeof x === "object" && !(x instanceof Command)) as F;
    });
  cmd.parse(argv, { from: "user" });
  return got;
}

describe("flag tables", () => {
  it("each command's flags give the config layer the hand-written converters gave", () => {
    const cases: [string, () => Command, (f: F) => ConfigLayer, (f: F) => ConfigLayer, string[]][] =
      [
        ["train", trainCommand, trainFlagsToConfig, oldTrain, ["countdown"]],
        ["eval", evalCommand, evalFlagsToConfig, oldEval, ["gsm8k"]],
        ["sft", sftCommand, sftFlagsToConfig, oldSft, []],
        ["gateway", gatewayCommand, gatewayFlagsToConfig, oldGateway, []],
      ];
    const argvs: Record<string, string[][]> = {
      train: [
        [],
        ["--group-size", "4", "--batch-size", "8", "--lr", "3e-4", "--max-seconds", "60"],
        ["--checkpoint", "ck", "--backend", "local", "--agent", "a.ts#x", "--evaluator", "e.ts"],
        ["--epochs", "2", "--max-steps", "9", "--val-freq", "0", "--save-freq", "3"],
        ["--val-examples", "5", "--val-attempts", "2", "--adv-estimator", "rloo", "--async"],
        ["--staleness", "2", "--skip-settled", "0.5", "--seed", "7", "--data-dir", "d"],
        ["--output", "o", "--resume"],
        ["--loss", "cispo"],
        ["--clip-low", "0.1", "--clip-high", "0.3"],
        ["--kl-coef", "0.01"],
        ["--kl-coef", "0.01", "--config", "x.yaml"],
        ["--loss", "cispo", "--clip-high", "0.2"],
        ["--backend", "torch", "--model", "Qwen/Qwen3-0.6B", "--lora-rank", "8", "--device", "cpu"],
        ["--backend", "torch", "--checkpoint", "ck", "--device", "cuda"],
        [
          "--backend",
          "torch",
          "--nproc",
          "4",
          "--nnodes",
          "2",
          "--rdzv-endpoint",
          "10.0.0.1:29500",
        ],
      ],
      eval: [
        [],
        ["--base-url", "http://h/v1", "--model", "m", "--api-key", "k", "--upstream-kind", "vllm"],
        ["--tokenizer", "t", "--gateway", "http://g", "--gateway-admin-key", "kkkkkkkk"],
        ["--agent", "a.ts", "--evaluator", "e.ts", "--split", "test", "--max-examples", "3"],
        ["--task-indices", "0,2-3", "--concurrency", "8", "--attempts", "2", "--timeout", "9"],
        ["--retries", "0", "--temperature", "0.5", "--top-p", "0.9", "--max-tokens", "64"],
        ["--sampling-params", "top_k=20,temperature=0.1,stop=END", "--temperature", "0.7"],
        ["--sampling-params", "seed=3"],
        ["--seed", "1", "--data-dir", "d", "--output", "o", "--agent-cmd", "echo hi"],
        ["--backend", "local", "--checkpoint", "ck"],
        ["--backend", "torch", "--model", "./tiny-qwen3", "--device", "cpu"],
        ["--backend", "torch", "--checkpoint", "ck"],
      ],
      sft: [
        [],
        ["--train-file", "t.jsonl", "--val-file", "v.jsonl", "--checkpoint", "ck", "--output", "o"],
        ["--epochs", "2", "--batch-size", "4", "--max-steps", "3", "--lr", "1e-3"],
        ["--warmup-steps", "2", "--schedule", "cosine", "--save-freq", "1", "--val-freq", "2"],
        ["--seed", "3", "--overlong", "truncate", "--backend", "local"],
        ["--backend", "torch", "--model", "m", "--lora-rank", "4", "--device", "auto"],
        ["--backend", "torch", "--nproc", "2"],
      ],
      gateway: [
        [],
        ["--port", "0", "--host", "0.0.0.0", "--model", "m", "--admin-key", "kkkkkkkk"],
        ["--upstream", "http://a:1", "--upstream", "sglang=http://b:2", "--tokenizer", "t"],
        ["--upstream", "openai=https://x/v1", "--upstream-api-key", "sk-1"],
        ["--db", "/tmp/g.db", "--durability", "full"],
        ["--store", "memory"],
      ],
    };
    for (const [name, command, now, old, args] of cases) {
      for (const argv of argvs[name]!) {
        const flags = parse(command(), [...args, ...argv]);
        const layer = now(flags);
        assert.deepEqual(strip(layer), strip(old(flags)), `${name} ${argv.join(" ")}`);
        if (!flags.config) loadConfig({ env: {}, flags: layer }); // and it is a valid config
      }
    }
  });

  it("--help shows the schema's defaults and choices", () => {
    const d = RllmConfigSchema.parse({});
    const help = (cmd: Command) => cmd.helpInformation().replace(/\s+/g, " ");
    const train = help(trainCommand());
    assert.match(
      train,
      new RegExp(
        `--group-size <n> attempts per task \\(GRPO group\\) \\(default: ${d.trainer.groupSize}\\)`,
      ),
    );
    assert.match(
      train,
      new RegExp(`--val-examples <n> validation tasks \\(default: ${d.trainer.maxValExamples}\\)`),
    );
    assert.match(train, new RegExp(`--lr <x> peak learning rate \\(default: ${RL_DEFAULT_LR}\\)`));
    assert.match(
      train,
      /--loss <kind> the policy loss \(default: ppo\) \(choices: "cross_entropy", "importance_sampling", "ppo", "cispo"\)/,
    );
    assert.match(
      train,
      new RegExp(`--backend <name> training backend \\(default: ${d.backend.name}\\)`),
    );
    const ev = help(evalCommand());
    assert.match(
      ev,
      new RegExp(`--concurrency <n> rollouts at once \\(default: ${DEFAULT_CONCURRENCY}\\)`),
    );
    assert.match(
      ev,
      new RegExp(`--timeout <seconds> per-rollout limit \\(default: ${d.engine.timeoutSeconds}\\)`),
    );
    assert.match(ev, new RegExp(`--attempts <k> .*\\(default: ${d.eval.attempts}\\)`));
    assert.match(
      ev,
      /--upstream-kind <kind> .*\(default: openai\) \(choices: "vllm", "sglang", "openai"\)/,
    );
    const sft = help(sftCommand());
    assert.match(
      sft,
      new RegExp(`--batch-size <n> rows per optimizer step \\(default: ${d.sft.batchSize}\\)`),
    );
    assert.match(
      sft,
      /--schedule <s> learning-rate schedule \(default: constant\) \(choices: "constant", "linear", "cosine"\)/,
    );
    const gw = help(gatewayCommand());
    assert.match(
      gw,
      new RegExp(`--port <port> port to listen on \\(default: ${d.gateway.port}\\)`),
    );
    assert.match(
      gw,
      /--db <path> SQLite file for sessions and traces \(default: \$RLLM_HOME\/gateway\/traces\.db\)/,
    );
    const serve = help(registerServeCommand(new Command("model")).commands[0]!);
    assert.equal(d.backend.name, "local", "the default backend");
    const workers = d.backend.name === "local" ? d.backend.sampler.workers : Number.NaN;
    assert.match(serve, new RegExp(`--workers <n> .*\\(default: ${workers}\\)`));
    assert.match(serve, /--served-model-name <name> .*\(default: rllm-<backend>\)/);
    assert.match(serve, /--device <device> .*\(default: auto\) \(choices: "auto", "cpu", "cuda"\)/);
    // read from the schema, not written in the table
    assert.equal(defaultAt("engine.timeoutSeconds"), d.engine.timeoutSeconds);
    // engine.concurrency has no schema default (train and eval differ): the row states eval's
    assert.equal(defaultAt("engine.concurrency"), undefined);
    assert.deepEqual(choicesAt("model.kind"), UpstreamKindSchema.options);
    assert.deepEqual(choicesAt("backend.name"), ["local", "torch"]);
    assert.equal(choicesAt("trainer.agent"), undefined);
  });

  it("parsers and mappings name the flag in their errors", () => {
    assert.throws(
      () => int("x", "--group-size"),
      /^ConfigError: --group-size x: must be a non-negative integer$/,
    );
    assert.throws(() => num("1e", "--lr"), /--lr 1e: must be a number/);
    assert.throws(
      () => port("70000", "--port"),
      /--port 70000: must be an integer from 0 to 65535/,
    );
    assert.throws(() => parse(trainCommand(), ["countdown", "--group-size", "-1"]), ConfigError);
    assert.throws(
      () => gatewayFlagsToConfig(parse(gatewayCommand(), ["--upstream", "tgi=http://x"])),
      /--upstream tgi=http:\/\/x: unknown kind "tgi"; use vllm=, sglang=, openai=/,
    );
    assert.throws(
      () => gatewayFlagsToConfig(parse(gatewayCommand(), ["--db", "x.db", "--store", "memory"])),
      /--db and --store memory exclude each other/,
    );
    assert.throws(
      () => gatewayFlagsToConfig(parse(gatewayCommand(), ["--upstream-api-key", "sk"])),
      /--upstream-api-key is sent to the --upstream URLs and there is none/,
    );
    assert.throws(
      () => parse(evalCommand(), ["gsm8k", "--upstream-kind", "tgi"]),
      /--upstream-kind <kind>' argument 'tgi' is invalid/,
    );
  });

  it("a torch knob on another backend is an error naming the flag; eval's --backend names the section", () => {
    const tmp = mkdtempSync(join(tmpdir(), "rllm-flags-"));
    const localFile = join(tmp, "local.yaml");
    writeFileSync(localFile, "backend:\n  name: local\n");
    const torchFile = join(tmp, "torch.yaml");
    writeFileSync(torchFile, "backend:\n  name: torch\n  model: ./m\n");
    const layer = (cmd: () => Command, to: (f: F) => ConfigLayer, argv: string[]) =>
      to(parse(cmd(), argv));
    for (const [cmd, to, args] of [
      [trainCommand, trainFlagsToConfig, ["countdown"]],
      [sftCommand, sftFlagsToConfig, []],
    ] as const) {
      assert.throws(
        () => layer(cmd, to, [...args, "--lora-rank", "8"]),
        /^ConfigError: --lora-rank is a torch-backend option \(backend\.lora\.rank\), and the backend is local \(the default\); pass --backend torch, or drop --lora-rank$/,
      );
      assert.throws(
        () => layer(cmd, to, [...args, "--backend", "local", "--model", "m"]),
        /--model is a torch-backend option \(backend\.model\), and the backend is local \(--backend\)/,
      );
      assert.throws(
        () => layer(cmd, to, [...args, "--config", localFile, "--device", "cpu"]),
        /--device is a torch-backend option .*the backend is local \(config file .*local\.yaml\)/,
      );
      assert.throws(
        () => layer(cmd, to, [...args, "--nproc", "2"]),
        /^ConfigError: --nproc is a torch-backend option \(backend\.nproc\), and the backend is local/,
      );
      assert.throws(
        () => layer(cmd, to, [...args, "--backend", "local", "--rdzv-endpoint", "h:1"]),
        /--rdzv-endpoint is a torch-backend option \(backend\.rdzvEndpoint\)/,
      );
      // a file that names torch takes the torch knobs without --backend
      const cfg = loadConfig({
        env: {},
        file: torchFile,
        flags: layer(cmd, to, [...args, "--config", torchFile, "--lora-rank", "2"]),
      });
      assert.equal(cfg.backend.name, "torch");
      assert.deepEqual(cfg.backend.name === "torch" && cfg.backend.lora?.rank, 2);
    }
    assert.throws(
      () => layer(evalCommand, evalFlagsToConfig, ["countdown", "--device", "cpu"]),
      /--device is a torch-backend option/,
    );
    // eval: --backend torch selects the torch section, where --model is the model to serve
    const served = loadConfig({
      env: {},
      flags: layer(evalCommand, evalFlagsToConfig, [
        "countdown",
        "--backend",
        "torch",
        "--model",
        "M",
      ]),
    });
    assert.equal(served.eval.backend, "torch");
    assert.equal(served.backend.name === "torch" && served.backend.model, "M");
    assert.equal(served.model.name, undefined);
    // without --backend, --model is the remote model's name
    const remote = layer(evalCommand, evalFlagsToConfig, ["countdown", "--model", "gpt-x"]);
    assert.deepEqual(remote, { model: { name: "gpt-x" } });
    // a file naming another backend is refused, not overridden
    assert.throws(
      () =>
        layer(evalCommand, evalFlagsToConfig, [
          "countdown",
          "--config",
          localFile,
          "--backend",
          "torch",
        ]),
      /--backend torch, but config file .*local\.yaml names backend local; make them agree/,
    );
    // one naming the same backend, or none, is fine
    layer(evalCommand, evalFlagsToConfig, [
      "countdown",
      "--config",
      torchFile,
      "--backend",
      "torch",
    ]);
    rmSync(tmp, { recursive: true, force: true });
  });

  it("every row's config key is one the schema has", () => {
    for (const [command, rows] of Object.entries(COMMAND_FLAGS))
      for (const row of rows)
        if ("path" in row && row.path)
          assert.ok(
            schemasAt(row.path).length > 0,
            `rllm ${command} ${row.flag}: no key ${row.path}`,
          );
    assert.equal(schemasAt("trainer.nope").length, 0);
  });

  it("README.md lists each command's flags as its table does", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const program = new Command();
    program.addCommand(trainCommand());
    program.addCommand(evalCommand());
    program.addCommand(sftCommand());
    program.addCommand(gatewayCommand());
    program.addCommand(registerServeCommand(modelCommand()));
    program.addCommand(workerCommand());
    program.addCommand(samplerCommand());
    program.addCommand(sandboxCommand());
    for (const [command, rows] of Object.entries(COMMAND_FLAGS)) {
      const start = readme.indexOf(`\`rllm ${command}\` flags`);
      assert.ok(start >= 0, `README.md has no "\`rllm ${command}\` flags" list`);
      const paragraph = readme.slice(start, readme.indexOf("\n\n", start));
      const listed = [...paragraph.matchAll(/`(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]).sort();
      const table = rows.map((r) => flagName(r.flag)).sort();
      assert.deepEqual(listed, table, `README.md's list of rllm ${command} flags`);
      // and the command declares exactly its table
      const cmd = command
        .split(" ")
        .reduce<Command>((c, w) => c.commands.find((x) => x.name() === w)!, program);
      assert.deepEqual(cmd.options.map((o) => o.long).sort(), table, `rllm ${command}'s options`);
    }
  });
});
