/**
 * The reference answers the agreement bench rewrites: every final answer of MATH-500, GSM8K test
 * and AIME 2024/2025, read from the benchmark copies in shared/data (each folder's SOURCE.md says
 * where they come from). GSM8K's answer is the worked solution; its final answer follows `####`
 * (src/rewards/math.ts: mathGroundTruth reads it the same way, so we call it). AIME 2024 stores
 * zero-padded strings (`"025"`), AIME 2025 integers: both are kept as written.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mathGroundTruth } from "../../src/rewards/index.js";
import type { Task } from "../../src/types/index.js";

export type Dataset = "math500" | "gsm8k" | "aime_2024" | "aime_2025";

const DATASETS: readonly Dataset[] = ["math500", "gsm8k", "aime_2024", "aime_2025"];

export interface Reference {
  /** `<dataset>/<row index>`: stable across runs, so pair ids are too. */
  id: string;
  dataset: Dataset;
  answer: string;
  /** The problem text: a few rules read it (currency in the question, "separated by commas"). */
  problem: string;
}

function readRows(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch (e) {
        throw new Error(`${file}: line ${i + 1} is not JSON (${(e as Error).message})`);
      }
    });
}

/** Every reference answer, datasets in DATASETS order, rows in file order. */
export function loadReferences(dataDir: string): Reference[] {
  const refs: Reference[] = [];
  for (const dataset of DATASETS) {
    const file = join(dataDir, dataset, "test.jsonl");
    if (!existsSync(file)) {
      throw new Error(
        `no ${dataset} data at ${file}: pass --data DIR, the folder holding math500/, gsm8k/, ` +
          `aime_2024/ and aime_2025/ (shared/data beside the repository)`,
      );
    }
    readRows(file).forEach((row, index) => {
      const id = `${dataset}/${index}`;
      const problem = String(row["problem"] ?? row["question"] ?? "");
      const answer = mathGroundTruth({ id, data: row as Task["data"] });
      refs.push({ id, dataset, answer, problem });
    });
  }
  return refs;
}
