/**
 * `rllm sampler launch`: the exact server commands per engine and weight-sync mode, its refusals,
 * and the command line (printed, not run with --dry-run; an engine that is not installed is exit
 * status 1 with what to install). `rllm train --sampler`: its syntax and the config it gives.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../config/index.js";
import { TRAIN_FLAGS } from "./flag-tables.js";
import { flagLayer, parseSampler } from "./flags.js";
import { type LaunchFlags, launchCommand, shellLine } from "./sampler.js";
import { loadTrainConfig } from "./train.js";

const line = (engine: string, f: LaunchFlags) => shellLine(launchCommand(engine, f));

test("the server commands carry the flags weight sync needs", () => {
  assert.equal(
    line("vllm", { model: "Qwen/Qwen3-0.6B", gpus: [0, 1], loraRank: 20 }),
    "CUDA_VISIBLE_DEVICES=0,1 VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve Qwen/Qwen3-0.6B --host 127.0.0.1 --port 8000 --tensor-parallel-size 2 --enable-lora --max-lora-rank 32 --max-loras 3 --max-cpu-loras 3",
  );
  assert.equal(
    line("vllm", {
      model: "/m/my model",
      gpus: [3],
      fullWeights: true,
      port: 9000,
      host: "0.0.0.0",
    }),
    `CUDA_VISIBLE_DEVICES=3 VLLM_SERVER_DEV_MODE=1 vllm serve '/m/my model' --host 0.0.0.0 --port 9000 --tensor-parallel-size 1 --weight-transfer-config '{"backend":"disk"}'`,
  );
  // the reload mode (backend.sampler.fullWeights "reload") needs no weight-transfer engine
  assert.equal(
    line("vllm", { model: "m", gpus: [0], fullWeights: true, fullWeightsMode: "reload" }),
    "CUDA_VISIBLE_DEVICES=0 VLLM_SERVER_DEV_MODE=1 vllm serve m --host 127.0.0.1 --port 8000 --tensor-parallel-size 1",
  );
  assert.equal(
    line("vllm", { model: "m", gpus: [0], fullWeights: true, fullWeightsMode: "transfer" }),
    `CUDA_VISIBLE_DEVICES=0 VLLM_SERVER_DEV_MODE=1 vllm serve m --host 127.0.0.1 --port 8000 --tensor-parallel-size 1 --weight-transfer-config '{"backend":"disk"}'`,
  );
  assert.equal(
    line("sglang", { model: "Qwen/Qwen3-0.6B", gpus: [0, 1, 2, 3], loraRank: 16, keepVersions: 3 }),
    "CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m sglang.launch_server --model-path Qwen/Qwen3-0.6B --host 127.0.0.1 --port 30000 --tp 4 --enable-lora --max-lora-rank 16 --lora-target-modules all --max-loras-per-batch 4 --max-loaded-loras 4",
  );
  assert.equal(
    line("sglang", { model: "m", gpus: [0], fullWeights: true }),
    "CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path m --host 127.0.0.1 --port 30000 --tp 1 --weight-version 0",
  );
});

test("launch refuses what it cannot start, naming the flag", () => {
  assert.throws(
    () => line("vllm", { model: "m", gpus: [0] }),
    /one of --lora-rank R .* or --full-weights/,
  );
  assert.throws(
    () => line("vllm", { model: "m", gpus: [0], loraRank: 8, fullWeights: true }),
    /one of --lora-rank/,
  );
  assert.throws(() => line("tgi", { model: "m", gpus: [0], fullWeights: true }), /vllm or sglang/);
  assert.throws(
    () => line("vllm", { model: "m", gpus: [0], loraRank: 8, fullWeightsMode: "reload" }),
    /--full-weights-mode is vLLM's, with --full-weights/,
  );
  assert.throws(
    () => line("sglang", { model: "m", gpus: [0], fullWeights: true, fullWeightsMode: "reload" }),
    /--full-weights-mode is vLLM's.*SGLang loads from disk one way: drop it/,
  );
  assert.throws(
    () => line("vllm", { model: "m", gpus: [0], loraRank: 1024 }),
    /--lora-rank 1024: vLLM serves LoRA ranks up to 512/,
  );
});

test("rllm sampler launch: --dry-run prints; without it a missing engine is exit 1 with what to install", () => {
  const cli = new URL("./index.ts", import.meta.url).pathname;
  const rllm = (args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", cli, "sampler", "launch", ...args], {
      encoding: "utf8",
      env: { ...process.env, PATH: "/nonexistent" }, // no vllm on it
    });
  const dry = rllm(["vllm", "--model", "m", "--gpus", "0", "--full-weights", "--dry-run"]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.equal(dry.stdout.trim(), line("vllm", { model: "m", gpus: [0], fullWeights: true }));
  assert.match(
    dry.stderr,
    /then: rllm train \.\.\. --backend torch --sampler vllm=http:\/\/127\.0\.0\.1:8000/,
  );
  const reload = rllm([
    ...["vllm", "--model", "m", "--gpus", "0", "--full-weights"],
    ...["--full-weights-mode", "reload", "--dry-run"],
  ]);
  assert.equal(reload.status, 0, reload.stderr);
  assert.doesNotMatch(reload.stdout, /weight-transfer-config/);
  assert.match(
    reload.stderr,
    /--sampler vllm=http:\/\/127\.0\.0\.1:8000 with backend\.sampler\.fullWeights: reload/,
  );
  const nccl = rllm([
    "vllm",
    "--model",
    "m",
    "--gpus",
    "0",
    "--full-weights",
    "--full-weights-mode",
    "nccl",
  ]);
  assert.equal(nccl.status, 1);
  assert.match(
    nccl.stderr,
    /--full-weights-mode <mode>' argument 'nccl' is invalid\. Allowed choices are transfer, reload/,
  );
  const run = rllm(["vllm", "--model", "m", "--gpus", "0", "--lora-rank", "8"]);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /vllm serve m/);
  assert.match(run.stderr, /vLLM is not installed here .*pip install vllm/);
  const bad = rllm(["vllm", "--model", "m", "--gpus", "0,x", "--lora-rank", "8"]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--gpus 0,x: must be distinct GPU indices/);
});

test("rllm train --sampler: ENGINE=URL[,URL...] is backend.sampler's engine and urls", () => {
  const flags = {
    backend: "torch",
    model: "m",
    sampler: parseSampler("sglang=http://a:30000,http://b:30000/v1", "--sampler"),
  };
  const config = loadConfig({ env: {}, flags: flagLayer(TRAIN_FLAGS, flags) });
  assert.equal(config.backend.name, "torch");
  const s = (config.backend as { sampler: { engine: string; urls: string[] } }).sampler;
  assert.equal(s.engine, "sglang");
  assert.deepEqual(s.urls, ["http://a:30000", "http://b:30000"]);
  for (const [v, why] of [
    ["http://a:1", /not ENGINE=URL/],
    ["tgi=http://a:1", /unknown engine "tgi"/],
    ["vllm=", /"" is not an http\(s\) URL/],
    ["vllm=http://a:1,localhost:2", /"localhost:2" is not an http\(s\) URL/],
  ] as const)
    assert.throws(
      () => parseSampler(v, "--sampler"),
      (e: Error) =>
        e instanceof ConfigError && why.test(e.message) && e.message.includes("vllm=URL[,URL...]"),
    );
  assert.throws(
    () => flagLayer(TRAIN_FLAGS, { backend: "local", sampler: flags.sampler }),
    /--sampler is a torch-backend option \(backend\.sampler\), and the backend is local/,
  );
});

test("rllm train countdown --backend torch --sampler: the recipe's in-process sampler knobs give way", () => {
  const flags = {
    backend: "torch",
    sampler: parseSampler("vllm=http://a:8000", "--sampler"),
  };
  const config = loadTrainConfig("countdown", { env: {}, flags: flagLayer(TRAIN_FLAGS, flags) });
  const b = config.backend as { name: string; microBatchTokens: number; sampler: unknown };
  assert.equal(b.name, "torch");
  assert.equal(b.microBatchTokens, 1024); // the recipe's other defaults stay
  assert.deepEqual(b.sampler, {
    engine: "vllm",
    urls: ["http://a:8000"],
    retries: 2,
    timeoutS: 600,
    keepVersions: 2,
    fullWeights: "transfer",
  });
  // without --sampler the recipe's batch size applies to the in-process sampler
  const own = loadTrainConfig("countdown", {
    env: {},
    flags: flagLayer(TRAIN_FLAGS, { backend: "torch" }),
  });
  assert.equal((own.backend as { sampler: { maxBatch: number } }).sampler.maxBatch, 256);
});
