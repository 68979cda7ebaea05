/**
 * Self-consistency of the math grader on real dataset rows: for every row, a response that boxes
 * the ground truth must be graded correct, and one that boxes a clearly different number must be
 * graded wrong. Catches normalisation rules that break on real answers. The rows: the fixtures
 * (a few per dataset, one per answer shape) always, and every row of ../shared/data too when it
 * is beside the repository.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { lastBoxed } from "./extract.js";
import { evaluateExact } from "./math/evaluate.js";
import { ParseError, parseExpression } from "./math/parse.js";
import { mathGrader, mathGroundTruth } from "./math.js";
import { mathAnswersEqual, normalizeMathAnswer } from "./math-equal.js";
import { Rational } from "./rational.js";

type RowCounts = { gsm8k: number; math500: number; aime_2024: number; aime_2025: number };
const DATA_SETS: { label: string; dir: string; rows: RowCounts }[] = [
  {
    label: "fixtures",
    dir: fileURLToPath(new URL("../benchmarks/fixtures/data/", import.meta.url)),
    rows: { gsm8k: 10, math500: 14, aime_2024: 2, aime_2025: 3 },
  },
];
const sharedDir = fileURLToPath(new URL("../../../shared/data/", import.meta.url));
if (existsSync(sharedDir)) {
  DATA_SETS.push({
    label: "shared/data",
    dir: sharedDir,
    rows: { gsm8k: 1319, math500: 500, aime_2024: 30, aime_2025: 30 },
  });
}

function rows(dataDir: string, file: string): Record<string, unknown>[] {
  return readFileSync(`${dataDir}${file}`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A number that differs from the truth: the truth plus one where it has an exact value. */
function differentNumber(truth: string): string {
  let value: Rational | undefined;
  try {
    value = evaluateExact(parseExpression(normalizeMathAnswer(truth)));
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
  }
  return value ? value.add(Rational.fromInt(1)).toString() : "987654321";
}

async function selfCheck(dataDir: string, file: string, expectedRows: number) {
  const data = rows(dataDir, file);
  assert.equal(data.length, expectedRows, `${file} row count`);
  const failures: string[] = [];
  for (const [i, row] of data.entries()) {
    const task = { id: `${file}#${i}`, data: row };
    const truth = mathGroundTruth(task);
    const right = await mathGrader(task, `The final answer is $\\boxed{${truth}}$.`);
    if (!right.isCorrect) failures.push(`row ${i}: \\boxed{${truth}} graded wrong`);
    for (const other of [differentNumber(truth), "987654321"]) {
      const wrong = await mathGrader(task, `\\boxed{${other}}`);
      if (wrong.isCorrect) failures.push(`row ${i}: \\boxed{${other}} graded right for ${truth}`);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} self-consistency failures in ${file}`);
}

for (const { label, dir, rows: count } of DATA_SETS) {
  test(`gsm8k test (${label}): every row grades its own answer right and another wrong`, async () => {
    await selfCheck(dir, "gsm8k/test.jsonl", count.gsm8k);
  });

  test(`math500 test (${label}): every row grades its own answer right and another wrong`, async () => {
    await selfCheck(dir, "math500/test.jsonl", count.math500);
  });

  test(`aime_2024 test (${label}): every row grades its own answer right and another wrong`, async () => {
    await selfCheck(dir, "aime_2024/test.jsonl", count.aime_2024);
  });

  test(`aime_2025 (${label}, integer answers) grades right and wrong`, async () => {
    await selfCheck(dir, "aime_2025/test.jsonl", count.aime_2025);
  });

  test(`math500 (${label}): the last \\boxed{} of each reference solution equals the answer field`, () => {
    const mismatches = rows(dir, "math500/test.jsonl").flatMap((row, i) => {
      const boxed = lastBoxed(String(row["solution"]));
      const answer = String(row["answer"]);
      return boxed !== undefined && mathAnswersEqual(boxed, answer)
        ? []
        : [`row ${i}: ${boxed} vs ${answer}`];
    });
    assert.deepEqual(mismatches, []);
  });

  test(`aime_2024 (${label}): zero-padded answers equal their integer value`, async () => {
    const padded = rows(dir, "aime_2024/test.jsonl").filter((r) => /^0/.test(String(r["answer"])));
    assert.ok(padded.length > 0, "expected some zero-padded answers such as 025");
    for (const row of padded) {
      const task = { id: "aime", data: row };
      const asInt = String(Number.parseInt(String(row["answer"]), 10));
      assert.equal((await mathGrader(task, `\\boxed{${asInt}}`)).reward, 1, String(row["answer"]));
    }
  });

  test(`math500 (${label}): reformatted answers (math delimiters, \\dfrac, spacing) still grade right`, async () => {
    const reformat: [string, (s: string) => string][] = [
      ["wrapped in $...$ with a full stop", (s) => `$${s}$.`],
      ["\\frac written \\dfrac", (s) => s.replace(/\\frac/g, "\\dfrac")],
      ["a space after every comma", (s) => s.replace(/,\s*/g, ", ")],
      ["spaces removed", (s) => s.replace(/ (?![a-zA-Z])/g, "")],
    ];
    const failures: string[] = [];
    for (const [i, row] of rows(dir, "math500/test.jsonl").entries()) {
      const task = { id: `math500#${i}`, data: row };
      for (const [how, f] of reformat) {
        const out = await mathGrader(task, `\\boxed{${f(String(row["answer"]))}}`);
        if (!out.isCorrect) failures.push(`row ${i} (${how}): ${row["answer"]}`);
      }
    }
    assert.deepEqual(failures, []);
  });
}
