import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { loadLocalCheckpoint } from "../backends/local/weights.js";
import { loadConfig } from "../config/index.js";
import { runSftCommand, sftFlagsToConfig } from "./sft.js";

const run = promisify(execFile);
const tinyModel = { dModel: 32, nLayers: 1, nHeads: 2, maxSeqLen: 64 };

function rows(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = i % 7;
    const b = (i * 3) % 5;
    out.push(
      JSON.stringify({
        messages: [
          { role: "user", content: `${a}+${b}` },
          { role: "assistant", content: `${a + b}` },
        ],
      }),
    );
  }
  return `${out.join("\n")}\n`;
}

describe("rllm sft", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "rllm-sft-"));
    await writeFile(join(dir, "train.jsonl"), rows(24));
    await writeFile(join(dir, "val.jsonl"), rows(6));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("trains on assistant tokens, writes metrics and a loadable model", async () => {
    const output = join(dir, "out");
    const config = loadConfig({
      flags: {
        ...sftFlagsToConfig({
          trainFile: join(dir, "train.jsonl"),
          valFile: join(dir, "val.jsonl"),
          output,
          epochs: 6,
          batchSize: 8,
          lr: 0.01,
          valFreq: 9,
          saveFreq: 9,
        }),
        backend: { name: "local", model: tinyModel, trainWorkers: 2, seed: 4, initStd: 0.05 },
      } as never,
    });
    const lines: string[] = [];
    const r = await runSftCommand(config, { log: (l) => lines.push(l) });
    assert.equal(r.steps, 18);
    assert.ok(r.lastLoss < r.firstLoss * 0.6, `loss ${r.firstLoss} → ${r.lastLoss}`);
    const metrics = (await readFile(join(output, "metrics.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(metrics.length, 18);
    assert.deepEqual(
      metrics.map((m) => m.step),
      Array.from({ length: 18 }, (_, i) => i + 1),
    );
    assert.equal(typeof metrics[8]["val/loss"], "number");
    assert.equal(typeof metrics[17]["val/loss"], "number");
    assert.equal(metrics[0]["val/loss"], undefined);
    const ck = await loadLocalCheckpoint(join(output, "model"));
    assert.equal(ck.config.dModel, 32);
    assert.equal(ck.checkpoint.optimizer?.step, 18);
    await loadLocalCheckpoint(join(output, "checkpoints", "step-9"));
    assert.match(lines.at(-1)!, /sft: 18 steps, loss .* model saved to .*out\/model/);
  });

  it("bad rows and missing flags are errors that say what to fix", async () => {
    const bad = join(dir, "bad.jsonl");
    const cfg = (file: string, overlong?: string) =>
      loadConfig({
        flags: {
          ...sftFlagsToConfig({ trainFile: file, output: join(dir, "never"), overlong }),
          backend: { name: "local", model: tinyModel, trainWorkers: 1 },
        } as never,
      });
    const cases: [string, RegExp][] = [
      [`${rows(2)}{"messages": [}\n`, /bad\.jsonl line 3: not JSON/],
      [`${rows(1)}{"msgs": []}\n`, /bad\.jsonl line 2: messages: .*each row must be \{"messages"/],
      [
        `${JSON.stringify({ messages: [{ role: "user", content: "hi" }] })}\n`,
        /line 1: no assistant message/,
      ],
      [
        `${JSON.stringify({
          messages: [
            { role: "user", content: "x".repeat(100) },
            { role: "assistant", content: "y" },
          ],
        })}\n`,
        /line 1: \d+ tokens, longer than the model's context \(64\)/,
      ],
      ["\n\n", /has no rows/],
    ];
    for (const [text, re] of cases) {
      await writeFile(bad, text);
      await assert.rejects(runSftCommand(cfg(bad), { log: () => {} }), re);
    }
    await assert.rejects(
      runSftCommand(cfg(join(dir, "missing.jsonl")), { log: () => {} }),
      /cannot read .*missing\.jsonl/,
    );
    await assert.rejects(
      runSftCommand(loadConfig({ flags: {} }), { log: () => {} }),
      /needs --train-file/,
    );
    await assert.rejects(
      runSftCommand(loadConfig({ flags: sftFlagsToConfig({ backend: "torch", trainFile: bad }) }), {
        log: () => {},
      }),
      /rllm sft --backend torch needs --model DIR\|HUB_ID .* or --checkpoint DIR/,
    );
  });

  it("the CLI refuses unknown flags and bad values before doing work", async () => {
    const cli = join(import.meta.dirname, "index.ts");
    const fail = async (args: string[], re: RegExp) => {
      await assert.rejects(
        run(process.execPath, ["--import", "tsx", cli, "sft", ...args]),
        (e: { stderr: string }) => {
          assert.match(e.stderr, re);
          return true;
        },
      );
    };
    await fail(
      ["--train-file", "x", "--batch-size", "-3"],
      /--batch-size -3: must be a non-negative integer/,
    );
    await fail(["--train-file", "x", "--schedule", "exp"], /schedule/);
    // the choices are the config's backend names (backend.name), checked by the flag itself
    await fail(
      ["--train-file", "x", "--backend", "tinker"],
      /--backend <name>' argument 'tinker' is invalid\. Allowed choices are local, torch/,
    );
  });
});
