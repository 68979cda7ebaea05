import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { byteTokenizer } from "../local/tokenizer.js";
import {
  CHECKPOINT_FORMAT_VERSION,
  type Checkpoint,
  loadCheckpoint,
  MANIFEST_FILE,
  MODEL_FILE,
  OPTIMIZER_FILE,
  saveCheckpoint,
} from "./checkpoint.js";
import { parseSafetensors } from "./safetensors.js";

const roots: string[] = [];
async function scratch(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "rllm-ckpt-"));
  roots.push(d);
  return d;
}
after(async () => {
  for (const d of roots) await rm(d, { recursive: true, force: true });
});

function seq(n: number, k: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * 0.1);
}

function sample(): Checkpoint {
  const tensors = {
    "wte.weight": { shape: [264, 8], data: seq(264 * 8, 1) },
    "h.0.attn.qkv": { shape: [8, 24], data: seq(8 * 24, 2) },
    "ln_f.weight": { shape: [8], data: seq(8, 3) },
  };
  const moment = (k: number) =>
    Object.fromEntries(
      Object.entries(tensors).map(([n, t]) => [n, { shape: t.shape, data: seq(t.data.length, k) }]),
    );
  return {
    tensors,
    config: { dModel: 8, nLayers: 1, nHeads: 2, vocabSize: 264 },
    tokenizer: { ...byteTokenizer.describe() },
    weightVersion: 7,
    optimizer: {
      step: 42,
      hyperparameters: { lr: 3e-4, betas: [0.9, 0.95], weightDecay: 0.1 },
      m: moment(4),
      v: moment(5),
    },
    extra: { dataCursor: 123 },
  };
}

test("round trip: tensors, config, tokenizer, optimizer and extra come back equal", async () => {
  const dir = join(await scratch(), "step-42");
  const ckpt = sample();
  const manifest = await saveCheckpoint(dir, ckpt);
  assert.deepEqual((await readdir(dir)).sort(), [MODEL_FILE, OPTIMIZER_FILE, MANIFEST_FILE].sort());
  assert.equal(manifest.formatVersion, CHECKPOINT_FORMAT_VERSION);
  assert.match(manifest.files[MODEL_FILE]!.sha256, /^[0-9a-f]{64}$/);
  const back = await loadCheckpoint(dir);
  assert.deepEqual(back.tensors, ckpt.tensors);
  assert.deepEqual(back.config, ckpt.config);
  assert.deepEqual(back.tokenizer, ckpt.tokenizer);
  assert.equal(back.weightVersion, 7);
  assert.deepEqual(back.optimizer, ckpt.optimizer);
  assert.deepEqual(back.extra, { dataCursor: 123 });
  // The model file is plain safetensors with torch's metadata, readable by other tools.
  const st = parseSafetensors(await readFile(join(dir, MODEL_FILE)));
  assert.deepEqual(st.metadata, { format: "pt" });
  const json = JSON.parse(await readFile(join(dir, MANIFEST_FILE), "utf8"));
  assert.equal(json.optimizer.step, 42);
  assert.deepEqual(json.optimizer.hyperparameters.betas, [0.9, 0.95]);
});

test("without an optimizer only the model and manifest are written", async () => {
  const dir = join(await scratch(), "weights");
  const { optimizer: _, ...noOpt } = sample();
  await saveCheckpoint(dir, noOpt);
  assert.deepEqual((await readdir(dir)).sort(), [MODEL_FILE, MANIFEST_FILE].sort());
  const back = await loadCheckpoint(dir);
  assert.equal(back.optimizer, undefined);
  assert.equal(back.manifest.optimizer, null);
});

test("saving over an existing checkpoint replaces it; over a non-checkpoint dir is refused", async () => {
  const root = await scratch();
  const dir = join(root, "latest");
  await saveCheckpoint(dir, sample());
  const next = sample();
  next.weightVersion = 8;
  await saveCheckpoint(dir, next);
  assert.equal((await loadCheckpoint(dir)).weightVersion, 8);
  assert.deepEqual(await readdir(root), ["latest"]);
  const other = join(root, "notes");
  await mkdir(other);
  await writeFile(join(other, "todo.txt"), "keep me");
  await assert.rejects(
    saveCheckpoint(other, sample()),
    /refusing to replace .*not an rllm checkpoint/,
  );
  assert.equal(await readFile(join(other, "todo.txt"), "utf8"), "keep me");
});

test("corruption is detected: flipped byte, missing file, bad manifest, format version", async () => {
  const root = await scratch();
  const dir = join(root, "c");
  await saveCheckpoint(dir, sample());
  const model = join(dir, MODEL_FILE);
  const good = await readFile(model);
  const bad = Buffer.from(good);
  bad[bad.length - 1] = bad[bad.length - 1]! ^ 0xff;
  await writeFile(model, bad);
  await assert.rejects(loadCheckpoint(dir), /model\.safetensors fails its checksum.*restore it/);
  await writeFile(model, good.subarray(0, good.length - 4));
  await assert.rejects(loadCheckpoint(dir), /fails its checksum/);
  await writeFile(model, good);
  await rm(join(dir, OPTIMIZER_FILE));
  await assert.rejects(loadCheckpoint(dir), /is missing optimizer\.safetensors/);

  const dir2 = join(root, "d");
  await saveCheckpoint(dir2, sample());
  const mf = join(dir2, MANIFEST_FILE);
  const manifest = JSON.parse(await readFile(mf, "utf8"));
  await writeFile(mf, JSON.stringify({ ...manifest, formatVersion: 99 }));
  await assert.rejects(loadCheckpoint(dir2), /format version 99.*newer rllm — upgrade/);
  await writeFile(mf, "{ not json");
  await assert.rejects(loadCheckpoint(dir2), /rllm\.json is not valid JSON/);
  await rm(mf);
  await assert.rejects(loadCheckpoint(dir2), /has no rllm\.json: it is not an rllm checkpoint/);
  await assert.rejects(loadCheckpoint(join(root, "nope")), /no checkpoint at .*does not exist/);
});

test("atomicity: a failure midway leaves no partial directory and keeps the old checkpoint", async () => {
  const root = await scratch();
  const fresh = join(root, "fresh");
  const boom = (at: string) => async (file: string) => {
    if (file === at) throw new Error("injected disk failure");
  };
  for (const at of [MODEL_FILE, OPTIMIZER_FILE, MANIFEST_FILE]) {
    await assert.rejects(
      saveCheckpoint(fresh, sample(), { onFileWritten: boom(at) }),
      /injected disk failure/,
    );
    assert.deepEqual(await readdir(root), [], `after failing at ${at}`);
  }
  const kept = join(root, "kept");
  await saveCheckpoint(kept, sample());
  const next = sample();
  next.weightVersion = 99;
  await assert.rejects(
    saveCheckpoint(kept, next, { onFileWritten: boom(OPTIMIZER_FILE) }),
    /injected/,
  );
  assert.deepEqual(await readdir(root), ["kept"]);
  assert.equal((await loadCheckpoint(kept)).weightVersion, 7);
});

test("an optimizer state that does not match the model is refused on save", async () => {
  const ckpt = sample();
  delete ckpt.optimizer!.m["ln_f.weight"];
  await assert.rejects(
    saveCheckpoint(join(await scratch(), "x"), ckpt),
    /optimizer "m" does not match.*missing: ln_f\.weight/,
  );
  const ckpt2 = sample();
  ckpt2.optimizer!.v["ln_f.weight"] = { shape: [4, 2], data: new Float32Array(8) };
  await assert.rejects(
    saveCheckpoint(join(await scratch(), "y"), ckpt2),
    /"v\.ln_f\.weight" has shape 4x2, the parameter 8/,
  );
});
