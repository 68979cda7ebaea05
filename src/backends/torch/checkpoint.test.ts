import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { resolveCheckpoint } from "../../trainer/checkpoint-path.js";
import { loadCheckpoint, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { loadLocalCheckpoint } from "../local/weights.js";
import { readTorchManifest, saveTorchCheckpoint } from "./checkpoint.js";

const fields = {
  weightVersion: 3,
  step: 2,
  kind: "lora" as const,
  baseModel: "/models/tiny",
  lora: { rank: 4, alpha: 8, dropout: 0, targetModules: "all-linear" as const },
  dtype: "float32",
  reference: { model: "/models/tiny" },
};

test("a torch checkpoint: written atomically with its manifest, read back, found by --checkpoint", async () => {
  const root = mkdtempSync(join(tmpdir(), "rllm-torch-ckpt-"));
  try {
    const dir = join(root, "step-2", "backend");
    const m = await saveTorchCheckpoint(dir, fields, async (tmp) => {
      writeFileSync(join(tmp, "adapter_model.safetensors"), "x");
      return ["adapter_model.safetensors"];
    });
    assert.equal(m.backend, "torch");
    assert.deepEqual(await readTorchManifest(dir), m);
    assert.equal(resolveCheckpoint(join(root, "step-2")), dir);
    // a failing save leaves the old checkpoint as it was and no temp dir behind
    await assert.rejects(
      saveTorchCheckpoint(dir, { ...fields, step: 3 }, async () => {
        throw new Error("disk full");
      }),
      /disk full/,
    );
    assert.equal((await readTorchManifest(dir)).step, 2);
    assert.deepEqual(readdirSync(join(root, "step-2")), ["backend"]);
    // a directory that is not a checkpoint is never replaced
    const other = join(root, "data");
    mkdirSync(other);
    await assert.rejects(
      saveTorchCheckpoint(other, fields, async () => []),
      /refusing to replace .*data: it exists and is not an rllm checkpoint/,
    );
    // the local backend's loader refuses it, naming the backend
    await assert.rejects(
      loadCheckpoint(dir),
      /is a checkpoint of the torch backend, which this loader cannot read; use it with --backend torch/,
    );
    await assert.rejects(loadLocalCheckpoint(dir), /--backend torch/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the torch loader refuses a local checkpoint, a plain directory and a damaged manifest", async () => {
  const root = mkdtempSync(join(tmpdir(), "rllm-torch-ckpt-"));
  try {
    const local = join(root, "local");
    await saveCheckpoint(local, {
      tensors: { w: { shape: [1], data: new Float32Array([1]) } },
      config: {},
      extra: { backend: "local" },
    });
    await assert.rejects(
      readTorchManifest(local),
      /is a checkpoint of the local backend, not the torch backend's; use it with --backend local/,
    );
    const plain = join(root, "plain");
    mkdirSync(plain);
    await assert.rejects(
      readTorchManifest(plain),
      /has no rllm\.json: it is not a checkpoint of the torch backend/,
    );
    await assert.rejects(readTorchManifest(join(root, "nope")), /the directory does not exist/);
    writeFileSync(
      join(plain, "rllm.json"),
      JSON.stringify({ format: "rllm-torch-checkpoint", backend: "torch" }),
    );
    await assert.rejects(
      readTorchManifest(plain),
      /is not a torch checkpoint manifest \(.*weightVersion/,
    );
    assert.equal(existsSync(join(plain, "rllm.json")), true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
